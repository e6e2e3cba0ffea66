"""Numbers that hold on messy runs (issue 9, items 1–7): hand-checked expectations."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtui.core.comparing.report import build_report
from tests.core.messy_runs import FALLBACK, compare_files, record, write_gold, write_run

# 1. A, B and Δ over the same questions --------------------------------------------------


def test_a_b_and_delta_are_computed_over_the_same_questions(tmp_path):
    # No gold set: A holds q1–q4, B holds q3–q6. Only q3 and q4 are paired.
    # A: q1, q2 miss, q3, q4 hit → over the pair A's recall is 2/2 = 1.0 (not 2/4).
    # B: q3 hits, q4 misses, q5, q6 hit → over the pair B's recall is 1/2 (not 3/4).
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}", hit=i > 2, gold=[f"g-q{i}"], category="factuelle_courte") for i in (1, 2, 3, 4)])
    b = write_run(tmp_path / "b.jsonl", [record(f"q{i}", hit=i != 4, gold=[f"g-q{i}"], category="factuelle_courte") for i in (3, 4, 5, 6)])
    comparison = compare_files(a, b)
    recall = comparison.metrics["recall@5"]
    assert (recall.a.value, recall.b.value, recall.delta) == (1.0, 0.5, -0.5)
    cell = comparison.categories["factuelle_courte"].metrics["recall@5"]
    assert (cell.a.value, cell.b.value, cell.delta) == (1.0, 0.5, -0.5)
    assert comparison.unpaired == {"A": ["q1", "q2"], "B": ["q5", "q6"]}
    assert any("2 only in A (q1, q2); 2 only in B (q5, q6)" in w for w in comparison.warnings)


def test_questions_in_one_run_only_are_listed_in_that_runs_order(tmp_path):
    # A holds 3,000 ids written backwards, B the first 1,000 and 2,000 of its own: each list
    # of unpaired ids keeps its run's order, not one a join chose.
    ids = [f"q{i:05d}" for i in range(3000)]
    a = write_run(tmp_path / "a.jsonl", [record(qid, gold=["g"], category="factuelle_courte") for qid in reversed(ids)])
    own = [f"b{i:05d}" for i in range(2000)]
    b = write_run(tmp_path / "b.jsonl", [record(qid, gold=["g"], category="factuelle_courte") for qid in ids[:1000] + own])
    comparison = compare_files(a, b)
    assert comparison.unpaired == {"A": list(reversed(ids[1000:])), "B": own}


def test_json_category_cells_carry_the_n_of_both_runs(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", [("q1", "factuelle_courte"), ("q2", "factuelle_courte")])
    a = write_run(tmp_path / "a.jsonl", [record("q1"), record("q2")])
    # B's q2 has a judge error: faithfulness has n = 2 in A and 1 in B.
    b = write_run(tmp_path / "b.jsonl", [record("q1"), record("q2", verdicts=None)])
    cell = build_report(compare_files(a, b, gold))["categories"]["factuelle_courte"]["metrics"]["faithfulness"]
    assert cell["n_by_run"] == {"A": 2, "B": 1}


_question = st.fixed_dictionaries(
    {
        "hit": st.booleans(),
        "abstain": st.booleans(),
        "verdicts": st.one_of(st.none(), st.lists(st.booleans(), min_size=1, max_size=3)),
        "utility": st.one_of(st.none(), st.integers(1, 5)),
        "category": st.sampled_from(["factuelle_courte", "procedurale", "sans_reponse"]),
        "in_a": st.booleans(),
        "in_b": st.booleans(),
    }
)


def _side(question: dict, qid: str, flip: bool) -> dict:
    unanswerable = question["category"] == "sans_reponse"
    abstain = question["abstain"] ^ flip
    return record(
        qid,
        hit=question["hit"] ^ flip,
        answer=FALLBACK if abstain else "S1.",
        verdicts=question["verdicts"],
        utility=question["utility"],
        category=question["category"],
        gold=[] if unanswerable else [f"g-{qid}"],
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_question, min_size=2, max_size=12), st.booleans(), st.lists(st.booleans(), min_size=12, max_size=12))
def test_b_minus_a_equals_delta_for_every_metric_and_category(questions, with_gold, flips):
    """Property: wherever a Δ is shown, it is B − A of the A and B shown beside it."""
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        ids = [f"q{i}" for i in range(len(questions))]
        a_records = [_side(q, qid, False) for q, qid in zip(questions, ids, strict=True) if q["in_a"] or with_gold]
        b_records = [_side(q, qid, flip) for q, qid, flip in zip(questions, ids, flips, strict=False) if q["in_b"] or with_gold]
        # At least one question in common, as any real comparison has.
        a_records = a_records or [_side(questions[0], ids[0], False)]
        b_records = b_records or [_side(questions[0], ids[0], True)]
        if not {r["id"] for r in a_records} & {r["id"] for r in b_records}:
            b_records.append(_side(questions[0], a_records[0]["id"], True) | {"id": a_records[0]["id"]})
        gold = write_gold(tmp / "gold.yaml", [(qid, q["category"]) for q, qid in zip(questions, ids, strict=True)]) if with_gold else None
        a = write_run(tmp / "a.jsonl", a_records)
        b = write_run(tmp / "b.jsonl", b_records)
        report = build_report(compare_files(a, b, gold))
        for name, metric in report["metrics"].items():
            if metric["delta"] is not None:
                assert metric["B"] - metric["A"] == pytest.approx(metric["delta"], abs=2e-4), name
            else:
                assert metric["A"] is None or metric["B"] is None
        for category, data in report["categories"].items():
            for name, cell in data["metrics"].items():
                if cell["delta"] is not None:
                    assert cell["B"] - cell["A"] == pytest.approx(cell["delta"], abs=2e-4), (category, name)


# 2. No gold set: abstention is not available --------------------------------------------


def test_without_a_gold_set_abstention_and_false_abstention_are_not_available(tmp_path):
    # Nothing tells which questions are unanswerable: an abstention cannot be judged.
    run = write_run(tmp_path / "run.jsonl", [record("q1", answer=FALLBACK), record("q2"), record("q3")])
    comparison = compare_files(run)
    assert comparison.metrics["false_abstention"].a.value is None
    assert comparison.metrics["abstention"].a.value is None
    assert any("abstention and false abstention are not available" in w for w in comparison.warnings)


def test_without_a_gold_set_a_correct_abstention_is_not_listed_as_a_failure(tmp_path):
    run = write_run(tmp_path / "run.jsonl", [record("q1", answer=FALLBACK), record("q2")])
    failures = dict(compare_files(run).a.questions.select("id", "failures").iter_rows())
    assert failures["q1"] == []


def test_without_a_gold_set_the_runs_categories_still_tell_unanswerable_questions(tmp_path):
    run = write_run(tmp_path / "run.jsonl", [
        record("q1", answer=FALLBACK, category="sans_reponse"), record("q2", category="factuelle_courte"),
    ])
    metrics = compare_files(run).metrics
    assert (metrics["abstention"].a.value, metrics["false_abstention"].a.value) == (1.0, 0.0)


# 3. Judge errors enter no mean ------------------------------------------------------------


def test_an_answer_without_sentence_verdicts_is_left_out_of_utility(tmp_path):
    # q2 has a utility score of 1 but no sentence verdicts: a judge error, out of every mean.
    run = write_run(tmp_path / "run.jsonl", [record("q1", utility=5), record("q2", verdicts=None, utility=1)])
    comparison = compare_files(run)
    assert comparison.metrics["utility"].a.value == 5.0
    assert comparison.metrics["utility"].a.n == 1
    assert build_report(comparison)["runs"]["A"]["judge_errors"] == 1


def test_a_null_utility_score_is_counted_as_a_judge_error(tmp_path):
    run = write_run(tmp_path / "run.jsonl", [record("q1", utility=5), record("q2", utility=None), record("q3", utility=3)])
    comparison = compare_files(run)
    assert comparison.metrics["utility"].a.value == 4.0
    assert build_report(comparison)["runs"]["A"]["judge_errors"] == 1
    assert "judge_error" in dict(comparison.a.questions.select("id", "failures").iter_rows())["q2"]


def test_a_regression_whose_only_new_failure_is_a_judge_error_has_cause_judge_error(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", [("q1", "factuelle_courte"), ("q2", "factuelle_courte"), ("q3", "factuelle_courte")])
    a = write_run(tmp_path / "a.jsonl", [record("q1"), record("q2"), record("q3")])
    b = write_run(tmp_path / "b.jsonl", [record("q1", verdicts=None), record("q2", verdicts=[False])])  # q3 missing
    report = build_report(compare_files(a, b, gold))
    causes = {r["id"]: r["cause"] for r in report["regressions"]}
    assert causes == {"q1": "judge_error", "q2": "generation_same_passages", "q3": "missing"}
    assert report["regressed_by_cause"] == {"judge_error": 1, "generation_same_passages": 1, "missing": 1}


# 4. Nothing measured is not passing -------------------------------------------------------


def test_a_question_with_no_verdict_and_no_retrieval_measure_is_not_measured(tmp_path):
    # No gold passages (retrieval unknown), an abstention with no category (abstention
    # unknown) whose judge gave no utility: nothing measured it.
    run = write_run(tmp_path / "run.jsonl", [
        {"id": "q1", "question": "q1 ?", "retrieved": ["p1"], "answer": FALLBACK},
        record("q2"),
    ])
    comparison = compare_files(run)
    assert comparison.question_ids("not_measured") == ["q1"]
    assert comparison.question_ids("passing") == ["q2"]


def test_a_question_not_measured_in_b_is_never_passing_in_a_comparison(tmp_path):
    a = write_run(tmp_path / "a.jsonl", [record("q1"), record("q2")])
    b = write_run(tmp_path / "b.jsonl", [{"id": "q1", "question": "q1 ?", "retrieved": ["p1"], "answer": FALLBACK}, record("q2")])
    comparison = compare_files(a, b)
    assert comparison.question_ids("not_measured") == ["q1"]
    assert "q1" not in comparison.question_ids("passing")


# 5. Missing questions fail every metric, false abstention included -------------------------


def test_a_missing_answerable_question_counts_as_a_false_abstention(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(1, 5)])
    run = write_run(tmp_path / "run.jsonl", [record("q1", answer=FALLBACK), record("q2"), record("q3")])  # q4 missing
    metrics = compare_files(run, None, gold).metrics
    assert metrics["false_abstention"].a.value == pytest.approx(2 / 4)  # q1 abstained, q4 missing
    assert metrics["recall@5"].a.value == pytest.approx(3 / 4)  # q4, missing, is the one miss
    assert metrics["false_abstention"].a.n == 4


# 6. A change of judge is said wherever Δ faithfulness is shown ------------------------------


def test_a_change_of_judge_model_warns_on_faithfulness_and_utility(tmp_path):
    a = write_run(tmp_path / "a.jsonl", [record("q1"), record("q2")], judge_model="claude-sonnet-4")
    b = write_run(tmp_path / "b.jsonl", [record("q1", judge_model="llama-3.3-70b"), record("q2", judge_model="llama-3.3-70b")],
                  judge_model="llama-3.3-70b")
    report = build_report(compare_files(a, b))
    assert report["metrics"]["faithfulness"]["judge_changed"] is True
    assert report["metrics"]["utility"]["judge_changed"] is True
    assert report["metrics"]["recall@5"]["judge_changed"] is False
    warning = next(w for w in report["warnings"] if "judged differently" in w)
    assert "claude-sonnet-4" in warning and "llama-3.3-70b" in warning and "ragtui judge" in warning


def test_a_change_of_judge_prompt_version_warns_too(tmp_path):
    a = write_run(tmp_path / "a.jsonl", [record("q1")], judge_prompt_version="fr-1")
    b = write_run(tmp_path / "b.jsonl", [record("q1")], judge_prompt_version="fr-2")
    assert any("prompt fr-1 for A, fr-2 for B" in w for w in compare_files(a, b).warnings)


# 7. Tiny n: the exact test must agree ------------------------------------------------------


def test_four_questions_all_flipping_one_way_are_no_clear_change(tmp_path):
    # The bootstrap interval is [−1, −1] but McNemar's exact p = 2 × 0.5⁴ = 0.125.
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(4)])
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}") for i in range(4)])
    b = write_run(tmp_path / "b.jsonl", [record(f"q{i}", hit=False) for i in range(4)])
    recall = compare_files(a, b, gold).metrics["recall@5"]
    assert recall.ci == (-1.0, -1.0)
    assert recall.p_value == pytest.approx(0.125)
    assert recall.verdict == "no_clear_change"
