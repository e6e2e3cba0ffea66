"""Which headline metrics fell on a question, from A's value to B's (comparing/question_falls.py)."""

from __future__ import annotations

from ragtui.core.comparing.question_falls import MetricFall, metric_falls
from tests.core.messy_runs import compare_files, record, write_gold, write_run


def test_each_question_names_the_metrics_that_fell_with_both_values(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(1, 6)])
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}", verdicts=[True, True], utility=4) for i in range(1, 6)])
    b = write_run(tmp_path / "b.jsonl", [
        record("q1", hit=False, verdicts=[True, True], utility=4),  # the gold passage left the top k
        record("q2", verdicts=[True, False], utility=4),  # one sentence of two unsupported
        record("q3", verdicts=[True, True], utility=2),  # a lower utility
        record("q4", verdicts=[True, True], utility=5),  # better: nothing fell
        # q5 is missing from B: what A measured is lost
    ])
    comparison = compare_files(a, b, gold)
    assert comparison.b is not None
    falls = metric_falls(comparison.a, comparison.b, ["q1", "q2", "q3", "q4", "q5"], comparison.k)
    assert falls["q1"] == (MetricFall("recall@5", 1.0, 0.0),)
    assert falls["q2"] == (MetricFall("faithfulness", 1.0, 0.5),)
    assert falls["q3"] == (MetricFall("utility", 4.0, 2.0),)
    assert falls["q4"] == ()
    assert falls["q5"] == (MetricFall("recall@5", 1.0, 0.0), MetricFall("faithfulness", 1.0, None), MetricFall("utility", 4.0, None))


def test_no_ids_no_work(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", [("q1", "factuelle_courte")])
    a = write_run(tmp_path / "a.jsonl", [record("q1")])
    comparison = compare_files(a, a, gold)
    assert comparison.b is not None
    assert metric_falls(comparison.a, comparison.b, [], comparison.k) == {}
