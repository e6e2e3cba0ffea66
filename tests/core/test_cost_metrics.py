"""Latency p50/p95, cost and tokens per question: compared like every metric, lower is better.

A hand-checked pair of runs on four questions (numpy's linear quantile, as documented):
    A latencies 100, 200, 300, 400 ms → p50 250, p95 300 + 0.85 × 100 = 385
    B latencies 150, 250, 350 ms and q4 a system error (its 5000 ms left out)
          → p50 250, p95 250 + 0.9 × 100 = 340
    cost A 0.001 each → 0.001; B 0.002 on its three answered questions → 0.002
    tokens A 100 in + 10 out = 110; B 200 in (no out) = 200
"""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main
from ragtui.core.errors import InputError
from ragtui.core.loading.config import load_config
from ragtui.core.session import Inputs, load_comparison


def _record(i: int, latency: float, cost: float, tokens: dict, error: str | None = None) -> dict:
    record = {"id": f"q{i}", "question": f"Q{i}?", "category": "factuelle_courte", "gold_passages": ["p"], "retrieved": ["p"], "answer": "Oui.",
              "latency_ms": latency, "cost_usd": cost, **tokens}
    if error is not None:
        record.update({"answer": None, "retrieved": [], "error": error})
    return record


@pytest.fixture
def runs(tmp_path, write_jsonl):
    a = [_record(i, latency, 0.001, {"tokens_in": 100, "tokens_out": 10}) for i, latency in enumerate((100, 200, 300, 400), start=1)]
    b = [_record(i, latency, 0.002, {"tokens_in": 200}) for i, latency in enumerate((150, 250, 350), start=1)]
    b.append(_record(4, 5000, 0.5, {"tokens_in": 9000}, error="HTTP 500: down"))
    return write_jsonl(tmp_path / "a.jsonl", {"name": "a"}, a), write_jsonl(tmp_path / "b.jsonl", {"name": "b"}, b)


def test_latency_quantiles_cost_and_tokens_leave_out_system_errors(runs):
    comparison = load_comparison(Inputs(*runs))
    got = {name: (comparison.metrics[name].a.value, comparison.metrics[name].b.value) for name in ("latency_p50_ms", "latency_p95_ms", "cost_usd", "tokens")}
    assert got["latency_p50_ms"] == pytest.approx((250.0, 250.0))
    assert got["latency_p95_ms"] == pytest.approx((385.0, 340.0))
    assert got["cost_usd"] == pytest.approx((0.001, 0.002))
    assert got["tokens"] == pytest.approx((110.0, 200.0))
    assert comparison.metrics["latency_p95_ms"].b.n == 3
    assert not comparison.metrics["latency_p95_ms"].spec.higher_is_better


def test_a_question_with_only_a_latency_is_not_passing_on_it(tmp_path, write_jsonl):
    run = write_jsonl(tmp_path / "r.jsonl", {"name": "r"}, [{"id": "q1", "latency_ms": 120.0, "cost_usd": 0.001}])
    comparison = load_comparison(Inputs(run, run))
    # Nothing says whether an answer was right: a latency and a cost are not a pass.
    assert dict(comparison.status.select("id", "status").iter_rows()) == {"q1": "not_measured"}
    assert comparison.metrics["latency_p50_ms"].b.value == 120.0


def test_a_max_target_reads_lower_is_better_and_is_checked_by_the_runs_interval(runs, tmp_path, capsys):
    config = tmp_path / "ragtui.yaml"
    config.write_text("targets:\n  latency_p95_ms: {max: 2000}\n  cost_usd: {max: 0.0015}\n", encoding="utf-8")
    comparison = load_comparison(Inputs(*runs, config=config))
    assert comparison.metrics["latency_p95_ms"].target == 2000
    assert comparison.metrics["latency_p95_ms"].target_reading("B").verdict == "meets"  # every resample is ≤ 350 ms
    assert comparison.metrics["cost_usd"].target_reading("B").verdict == "misses"  # 0.002 on every question
    assert main(["report", str(runs[0]), str(runs[1]), "--config", str(config), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metrics"]["cost_usd"]["B"] == 0.002 and report["metrics"]["cost_usd"]["target"] == 0.0015
    assert report["metrics"]["latency_p95_ms"]["higher_is_better"] is False


def test_a_max_target_on_a_metric_where_higher_is_better_is_refused(tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text("targets:\n  recall@5: {max: 0.9}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"targets.recall@5: \{max: …\} is for a metric where lower is better"):
        load_config(config)


def test_max_drop_reads_as_a_share_of_as_value_for_a_quantity(runs):
    comparison = load_comparison(Inputs(*runs))
    # max_drop 0.03: cost doubled (+100 %) is flagged; p95 fell, and p50 did not move.
    assert comparison.metrics["cost_usd"].drop_flagged
    assert not comparison.metrics["latency_p95_ms"].drop_flagged and not comparison.metrics["latency_p50_ms"].drop_flagged


def test_the_text_report_shows_the_quantities_in_a_table_of_their_own_within_80_columns(runs, capsys):
    assert main(["report", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "latency_p95_ms 385" in out and "(lower is better; ▲ improved, ▼ regressed, ~ no clear change)" in out
    assert "1 system error" in out


@pytest.mark.parametrize(("fmt", "shown"), [("markdown", "· 1 system error ·"), ("html", "· 1 system error ·")])
def test_every_report_format_counts_the_system_errors(runs, capsys, fmt, shown):
    assert main(["report", *map(str, runs), "--format", fmt]) == 0
    assert shown in capsys.readouterr().out


def test_more_system_errors_in_b_fail_the_regression_gate_though_no_metric_moved(runs, capsys):
    # B's answered questions are as good as A's: only its system error is worse.
    assert main(["report", *map(str, runs), "--fail-on-regression"]) == 1
    err = capsys.readouterr().err
    assert "gate --fail-on-regression: FAILED: B failed on more questions than A (system errors: A 0, B 1)" in err


def test_each_category_s_latency_p50_and_p95_cells_carry_their_own_quantile_interval_around_their_own_delta(sample_comparison):
    # The grid once gave both latency cells the interval and p of the mean latency: the two
    # cells printed the same numbers, and an interval could miss the Δ it was drawn around.
    for group, data in sample_comparison.categories.items():
        p50, p95 = data.metrics["latency_p50_ms"], data.metrics["latency_p95_ms"]
        for cell in (p50, p95):
            if cell.delta is not None and cell.ci is not None:
                assert cell.ci[0] <= cell.delta <= cell.ci[1], (group, cell)
        assert (p50.ci, p50.p_value) != (p95.ci, p95.p_value), group
