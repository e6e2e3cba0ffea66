"""Labels that no longer fit are counted and said, never re-paired or dropped silently.

A sentence label remembers a hash of its sentence's text: after the run is judged again
and its answers split differently, a label whose sentence has another text is left out and
counted. Labels for a run name not compared are counted; a line cut short warns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.loading.inputs import Inputs, default_labels_path
from ragtui.core.loading.label_writer import LabelWriter
from ragtui.core.loading.labels import RunLabels, sentence_hash
from ragtui.core.session import load_comparison
from ragtui.ui.models.labelling import Labelling
from tests.core.messy_runs import judge, record, write_run

SPLIT_IN_TWO = ["La période d'essai dure quatre mois.", "Elle est renouvelable une fois."]
SPLIT_IN_ONE = ["La période d'essai dure quatre mois et elle est renouvelable une fois."]


def _judged(sentences: list[str]) -> dict:
    out = judge([True] * len(sentences))
    out["faithfulness"]["sentences"] = [{"text": text, "attested": True, "evidence": [], "reason": "r"} for text in sentences]
    return out


def _run(path: Path, sentences: list[str]) -> Path:
    records = [record("q1") | {"answer": " ".join(sentences), "judge": _judged(sentences)}, record("q2"), record("q3")]
    return write_run(path, records)


def _label(run: Path, index: int, text: str | None) -> Path:
    path = default_labels_path(run)
    writer = LabelWriter(path)
    writer.record(RunLabels(run.stem, path), "q1", sentence=index, human=False, sampled=True, text=text)
    writer.close()
    return path


@pytest.mark.parametrize("detail", [True, False])
@pytest.mark.parametrize("cache", [True, False])
def test_a_label_whose_sentence_was_split_differently_is_counted_and_left_out(tmp_path, detail, cache):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    _label(run, 1, SPLIT_IN_TWO[1])  # "Elle est renouvelable une fois." labelled unsupported
    _run(run, SPLIT_IN_ONE)  # judged again: sentence 1 no longer exists
    comparison = load_comparison(Inputs(a=run, detail=detail, cache=cache))
    labels = comparison.labels["A"]
    assert labels.stale == 1 and labels.sentences == {}
    assert any("1 label of run run no longer fit their sentence" in warning for warning in comparison.warnings)


def test_a_label_whose_sentence_now_has_another_text_at_its_place_is_left_out(tmp_path):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    _label(run, 0, SPLIT_IN_TWO[0])
    _run(run, SPLIT_IN_ONE)  # index 0 still exists, with another text
    assert load_comparison(Inputs(a=run, detail=False)).labels["A"].stale == 1


def test_a_label_that_still_fits_its_sentence_is_kept(tmp_path):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    _label(run, 1, "Elle est  renouvelable\nune fois.")  # the same text, wrapped otherwise
    comparison = load_comparison(Inputs(a=run, detail=False))
    assert comparison.labels["A"].stale == 0 and comparison.labels["A"].sentences == {("q1", 1): (False, True)}
    assert not any("no longer fit" in warning for warning in comparison.warnings)


def test_the_apps_label_remembers_the_hash_of_the_sentence_it_was_made_on(tmp_path):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    labelling = Labelling(load_comparison(Inputs(a=run)))
    labelling.sentence("A", "q1", 1, False, sampled=True)
    labelling.close()
    (event,) = [json.loads(line) for line in default_labels_path(run).read_text(encoding="utf-8").splitlines()]
    assert event["text_hash"] == sentence_hash(SPLIT_IN_TWO[1])


def test_labels_for_another_run_name_are_counted_and_said(tmp_path, capsys):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    events = [{"id": f"q{i}", "run": "run-before-rename", "utility": 3, "sampled": True, "at": "t"} for i in (1, 2)]
    default_labels_path(run).write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    assert main(["report", str(run), "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert f"{default_labels_path(run)}: 2 labels for runs not compared here, not used: run-before-rename (2)" in warnings


def test_a_shared_labels_file_counts_no_label_of_the_two_runs_compared_as_another_runs(tmp_path):
    a, b = _run(tmp_path / "a.jsonl", SPLIT_IN_TWO), _run(tmp_path / "b.jsonl", SPLIT_IN_TWO)
    shared = tmp_path / "shared.labels.jsonl"
    events = [{"id": "q1", "run": name, "utility": 4, "sampled": True, "at": "t"} for name in ("a", "b", "c")]
    shared.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    comparison = load_comparison(Inputs(a=a, b=b, labels=shared, detail=False))
    assert comparison.labels["A"].utility == {"q1": (4.0, True)} and comparison.labels["B"].utility == {"q1": (4.0, True)}
    assert [w for w in comparison.warnings if "not compared here" in w] == [f"{shared}: 1 label for runs not compared here, not used: c (1)"]


def test_a_labels_line_cut_short_warns_in_the_report(tmp_path, capsys):
    run = _run(tmp_path / "run.jsonl", SPLIT_IN_TWO)
    good = json.dumps({"id": "q1", "run": "run", "utility": 4, "sampled": True, "at": "t"})
    default_labels_path(run).write_text(good + "\n" + '{"id": "q2", "run": "ru', encoding="utf-8")
    assert main(["report", str(run), "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any("last line cut short" in warning and ":2:" in warning for warning in warnings)
