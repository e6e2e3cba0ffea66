"""`compare` hands over one complete result: each run's counts, recall curve and judge trust,
the category cells and the status tally are read from it, never computed by a view."""

from __future__ import annotations

import json

import pytest

from ragtui.core.comparing.compare import STATUSES, relabelled
from ragtui.core.comparing.result import CategoryCell, CategoryComparison
from ragtui.core.session import Inputs, load_comparison


def _record(i: int, verdicts: tuple[bool, ...], hit: bool) -> dict:
    return {
        "id": f"q{i}", "category": "procedurale", "gold_passages": ["p"], "retrieved": ["x", "p"] if hit else ["x", "y"],
        "answer": "S. " * len(verdicts),
        "judge": {"faithfulness": {"sentences": [{"text": f"S{j}.", "attested": v} for j, v in enumerate(verdicts)]}},
    }


@pytest.fixture
def runs(tmp_path, write_jsonl):
    """Gold at rank 2 in q0–q2, absent in q3; the person disagrees with the judge on B's q0."""
    records = [_record(0, (True, True), True), _record(1, (True,), True), _record(2, (True,), True), _record(3, (False,), False)]
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "base"}, records)
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "cand"}, records)
    events = [{"id": "q0", "run": "cand", "sentence": j, "human": v, "sampled": True, "at": "t"} for j, v in enumerate((True, False))]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return Inputs(a=a, b=b, labels=labels)


def test_each_runs_counts_recall_curve_and_judge_trust_come_with_the_comparison(runs):
    comparison = load_comparison(runs)
    b = comparison.runs["B"]
    assert (b.counts.questions, b.counts.missing) == (4, 0)
    # recall@1 is 0 (gold at rank 2), recall@2…20 is 3 of 4.
    assert b.recall_curve[0] == 0.0 and b.recall_curve[1] == b.recall_curve[19] == 0.75
    # Two labelled sentences of q0: the judge said attested twice, the person once.
    assert (b.calibration.sentences, b.calibration.sentence_agreement) == (2, 0.5)
    assert comparison.runs["A"].calibration is None  # nobody labelled A
    assert comparison.corrected["faithfulness"].runs["B"].corrected is not None
    assert comparison.corrected["faithfulness"].runs["A"].corrected is None


def test_a_label_given_in_the_app_is_read_by_relabelled(runs):
    comparison = load_comparison(runs)
    comparison.labels["A"].apply({"id": "q3", "run": "base", "sentence": 0, "human": False, "sampled": False, "at": "t"})
    again = relabelled(comparison)
    assert (again.runs["A"].calibration.sentences, again.runs["A"].calibration.sentence_agreement) == (1, 1.0)
    assert again.runs["B"].calibration == comparison.runs["B"].calibration
    assert comparison.runs["A"].calibration is None  # the result handed over earlier is left as it was


def test_category_cells_are_typed_and_hold_both_runs_and_the_delta(runs):
    comparison = load_comparison(runs)
    category = comparison.categories["procedurale"]
    assert isinstance(category, CategoryComparison) and category.n == 4
    cell = category.metrics["recall@5"]
    assert isinstance(cell, CategoryCell)
    assert (cell.value("A").value, cell.value("B").value, cell.delta, cell.applies) == (0.75, 0.75, 0.0, True)


def test_the_status_tally_names_every_status_and_counts_each_question_once(runs):
    comparison = load_comparison(runs)
    assert list(comparison.status_counts) == list(STATUSES)
    # q3 (gold not retrieved, its one sentence unattested) fails in both runs; q0–q2 pass in both.
    assert comparison.status_counts == {"regressed": 0, "fixed": 0, "still_failing": 1, "passing": 3, "not_measured": 0}


def test_the_two_runs_are_measured_apart_and_an_error_measuring_b_reaches_the_caller(runs, monkeypatch):
    import threading

    import ragtui.core.session as session

    real = session.evaluate
    measured_in: dict[str, str] = {}

    def evaluate(run, *args, **kwargs):
        measured_in[run.name] = threading.current_thread().name
        if run.name == "cand" and getattr(evaluate, "fail", False):
            raise RuntimeError("a bug while measuring B")
        return real(run, *args, **kwargs)

    monkeypatch.setattr(session, "evaluate", evaluate)
    comparison = load_comparison(runs)
    assert comparison.runs["B"].counts.questions == 4
    assert measured_in["base"] == threading.current_thread().name != measured_in["cand"]
    evaluate.fail = True  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="a bug while measuring B"):
        load_comparison(runs)
