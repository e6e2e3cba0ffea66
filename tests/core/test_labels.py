"""The labels sidecar: appended and flushed per key, replayed last-event-wins, never silent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from ragtui.core.errors import InputError
from ragtui.core.loading.inputs import default_labels_path
from ragtui.core.loading.label_writer import LabelsUnwritable, LabelWriter, writable_problem
from ragtui.core.loading.labels import RunLabels, replay
from ragtui.core.measuring.calibration import calibrate
from ragtui.core.measuring.calibration_queue import pending, queue_order


def _events(path: Path, *events: dict) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def test_default_labels_file_sits_beside_the_run():
    assert default_labels_path(Path("/data/runs/candidate.jsonl")) == Path("/data/runs/candidate.labels.jsonl")


def test_replay_keeps_the_last_event_for_each_key_and_null_clears(tmp_path):
    path = _events(
        tmp_path / "l.jsonl",
        {"id": "q1", "run": "B", "sentence": 0, "human": True, "sampled": True, "at": "t"},
        {"id": "q1", "run": "B", "sentence": 0, "human": False, "sampled": True, "at": "t"},
        {"id": "q1", "run": "B", "sentence": 1, "human": True, "sampled": False, "at": "t"},
        {"id": "q1", "run": "B", "sentence": 1, "human": None, "sampled": False, "at": "t"},
        {"id": "q1", "run": "B", "utility": 4, "sampled": True, "at": "t"},
        {"id": "q2", "run": "B", "utility": 2, "sampled": False, "at": "t"},
        {"id": "q2", "run": "B", "utility": None, "sampled": False, "at": "t"},
        {"id": "q1", "run": "A", "sentence": 0, "human": True, "sampled": True, "at": "t"},
    )
    labels = replay(path, ["B"])["B"]
    assert labels.sentences == {("q1", 0): (False, True)}
    assert labels.utility == {"q1": (4.0, True)}


def test_writer_flushes_each_event_before_returning(tmp_path):
    path = tmp_path / "l.jsonl"
    labels = RunLabels("B")
    writer = LabelWriter(path)
    writer.record(labels, "q1", sentence=2, human=True, sampled=True)
    # Read by another handle while the writer is still open: what a kill -9 would leave.
    event = json.loads(path.read_text(encoding="utf-8"))
    assert {k: event[k] for k in ("id", "run", "sentence", "human", "sampled")} == {
        "id": "q1", "run": "B", "sentence": 2, "human": True, "sampled": True,
    }
    writer.record(labels, "q1", utility=4.0)
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[1])["utility"] == 4
    writer.close()
    assert replay(path, ["B"])["B"].utility == {"q1": (4.0, False)}


def test_a_last_line_cut_short_by_a_kill_is_skipped_with_a_warning(tmp_path):
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps({"id": "q1", "run": "B", "utility": 3, "sampled": True}) + '\n{"id": "q2", "ru', encoding="utf-8")
    labels = replay(path, ["B"])["B"]
    assert labels.utility == {"q1": (3.0, True)}
    assert "cut short" in str(labels.problems[0]) and ":2:" in str(labels.problems[0])


def test_a_bad_event_names_the_file_line_and_field(tmp_path):
    path = _events(tmp_path / "l.jsonl", {"id": "q1", "run": "B", "utility": 3}, {"id": "q1", "run": "B", "utility": 6})
    with pytest.raises(InputError) as caught:
        replay(path, ["B"])
    assert str(caught.value) == f"{path}:2: utility: expected a score from 1 to 5 or null, found 6"


def test_a_read_only_folder_is_a_message_naming_the_labels_option(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        path = folder / "run.labels.jsonl"
        assert "--labels FILE" in writable_problem(path)
        with pytest.raises(LabelsUnwritable, match="--labels FILE"):
            LabelWriter(path).record(RunLabels("B"), "q1", utility=3)
    finally:
        folder.chmod(0o755)


def test_a_labels_path_under_a_file_is_a_message_naming_the_labels_option(tmp_path):
    (tmp_path / "not_a_folder").write_text("x")
    path = tmp_path / "not_a_folder" / "run.labels.jsonl"
    assert "--labels FILE" in writable_problem(path)
    with pytest.raises(LabelsUnwritable, match="--labels FILE"):
        LabelWriter(path).record(RunLabels("B"), "q1", utility=3)


def _questions() -> pl.DataFrame:
    def sentences(*verdicts):
        return [{"text": f"s{i}", "attested": v, "evidence": [], "reason": None} for i, v in enumerate(verdicts)]

    rows = []
    for i in range(40):
        category = ("procedurale", "factuelle_courte")[i % 2]
        verdicts = (True, i % 5 != 0)
        rows.append({"id": f"q{i:02d}", "category": category, "judged": True, "judge_sentences": sentences(*verdicts), "utility_q": 4.0})
    return pl.DataFrame(rows)


def test_the_queue_is_reproducible_from_the_seed_and_independent_of_file_order():
    questions = _questions()
    order = queue_order(questions, seed=5)
    assert order == queue_order(questions.reverse(), seed=5)
    assert order != queue_order(questions, seed=6)
    assert sorted(order) == sorted(questions.get_column("id"))


def test_every_prefix_of_the_queue_keeps_each_stratum_in_proportion():
    questions = _questions()
    order = queue_order(questions, seed=5)
    categories = dict(zip(questions.get_column("id"), questions.get_column("category"), strict=True))
    for size in (10, 20, 30):
        procedural = sum(categories[qid] == "procedurale" for qid in order[:size])
        assert abs(procedural - size / 2) <= 2


def test_only_labels_from_the_queue_take_an_answer_out_of_it():
    questions = _questions()
    first = queue_order(questions)[0]
    labels = RunLabels("B")
    for index in (0, 1):
        labels.sentences[(first, index)] = (True, False)
    labels.utility[first] = (4.0, False)
    assert pending(questions, labels)[0] == first  # labelled elsewhere: still to draw
    for index in (0, 1):
        labels.sentences[(first, index)] = (True, True)
    assert pending(questions, labels)[0] == first  # utility still missing
    labels.utility[first] = (4.0, True)
    assert first not in pending(questions, labels)


def test_bias_and_agreement_use_sidecar_labels_over_the_runs_own():
    questions = _questions().with_columns(judge_present=True, judge_error=pl.lit(None, dtype=pl.String), human_present=False)
    labels = RunLabels("B")
    labels.sentences[("q00", 1)] = (False, True)  # the judge said not attested: agree
    labels.sentences[("q01", 1)] = (False, True)  # the judge said attested: disagree
    labels.sentences[("q02", 0)] = (True, False)
    result = calibrate(questions, labels)
    assert (result.sentences, result.labels, result.labels_sampled) == (3, 3, 2)
    assert result.sentence_agreement == pytest.approx(2 / 3)
    assert result.confusion == {"judge_yes_person_yes": 1, "judge_yes_person_no": 1, "judge_no_person_yes": 0, "judge_no_person_no": 1}
    assert result.faithfulness_bias.value == pytest.approx(0.5)  # sampled only: (0 + 1) / 2


def _plan_metric(metric: str, more: dict[str, int], *, stratified: bool = True):
    from ragtui.core.measuring.label_values import CorrectedMetric, LabelPlan, PlannedCategory

    by_category = {k: PlannedCategory(5, 5 + gap, gap) for k, gap in more.items()}
    gaps = {k: gap for k, gap in more.items() if gap > 0}
    plan = LabelPlan(0.03, 40, by_category, max(gaps, key=lambda k: gaps[k]) if gaps else None)
    return CorrectedMetric(metric, 0.8, None, 10, 0.03, plan=plan, stratified=stratified)


def test_the_queue_offers_the_label_plans_next_category_first_once_the_correction_is_stratified():
    from ragtui.core.measuring.calibration_queue import plan_category

    faithfulness = _plan_metric("faithfulness", {"procedurale": 3, "factuelle_courte": 7})
    utility = _plan_metric("utility", {"procedurale": 12, "factuelle_courte": 0})
    # The largest gap of the two plans: utility's 12 in procedurale over faithfulness' 7.
    assert plan_category([faithfulness, utility]) == "procedurale"
    # A tie goes to the first metric given (faithfulness).
    assert plan_category([faithfulness, _plan_metric("utility", {"procedurale": 7, "factuelle_courte": 0})]) == "factuelle_courte"
    # Not stratified yet (a category under 5 labelled answers): the proportional order stands.
    assert plan_category([_plan_metric("faithfulness", {"procedurale": 9}, stratified=False)]) is None
    # Every plan met: nothing to put first.
    assert plan_category([_plan_metric("faithfulness", {"procedurale": 0, "factuelle_courte": 0})]) is None

    questions = _questions()
    labels = RunLabels("B")
    plain = pending(questions, labels)
    planned = pending(questions, labels, first="procedurale")
    categories = dict(zip(questions.get_column("id"), questions.get_column("category"), strict=True))
    procedural = [qid for qid in plain if categories[qid] == "procedurale"]
    # That category's answers first, then the others, each part in the queue's own (random) order.
    assert planned == procedural + [qid for qid in plain if categories[qid] != "procedurale"]
    assert len(procedural) == 20 and plain[:4] != planned[:4]
