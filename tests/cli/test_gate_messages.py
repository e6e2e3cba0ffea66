"""A gate's line says what was checked and how it came out, in the numbers the report shows.

The sample's B is inconclusive against all four targets: a pass of `--fail-below-target`
names them instead of saying "every target met". Several runs honour every gate flag, as
two runs do, and each comparison gets its own gate lines.
"""

from __future__ import annotations

import pytest

from ragtui.cli import main
from ragtui.cli.tui import sample_inputs
from tests.core.messy_runs import record, write_gold, write_run


def _gate_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "gate --" in line]


@pytest.fixture(scope="module")
def sample_args() -> list[str]:
    sample = sample_inputs()
    return [str(sample["a"]), str(sample["b"]), "--gold", str(sample["gold"]), "--config", str(sample["config"])]


def test_target_gate_passing_on_inconclusive_targets_names_them_instead_of_every_target_met(sample_args, capsys):
    # Hand-checked in the report's target table: B is `?` on all four (e.g. recall@5 86.7 %,
    # Wilson 78.1…92.2 % around 80 %), and misses none.
    assert main(["report", *sample_args, "--fail-below-target"]) == 0
    assert _gate_lines(capsys.readouterr().err) == [
        "ragtui: gate --fail-below-target: passed: no target missed by B (4 checked); "
        "4 inconclusive (recall@5, faithfulness, abstention, utility) — --strict-targets fails on them"
    ]


def test_target_gate_states_values_and_intervals_in_the_reports_own_units(sample_args, capsys):
    assert main(["report", *sample_args, "--fail-below-target", "--strict-targets"]) == 1
    (line,) = _gate_lines(capsys.readouterr().err)
    assert "recall@5 of B is inconclusive against its target ≥ 80% (86.7%, CI 78.1…92.2%; --strict-targets)" in line
    assert "utility of B is inconclusive against its target ≥ 4.00 (3.91, CI 3.67…4.13; --strict-targets)" in line


def test_drop_gate_prints_the_drop_in_points_not_a_raw_fraction(sample_args, capsys):
    # Faithfulness 0.8750 → 0.8441 on the sample: −3.1 points, more than max_drop (3).
    assert main(["report", *sample_args, "--fail-on-drop"]) == 1
    (line,) = _gate_lines(capsys.readouterr().err)
    assert "faithfulness dropped more than max_drop (Δ −3.1 pts, no clear change)" in line
    assert "Δ -0.0" not in line


def test_regression_gate_prints_delta_and_interval_in_points(tmp_path, capsys):
    # B loses the gold passage on 12 of 40: recall@5 1.0 → 0.7, −30 points, a regression.
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(40)])
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}") for i in range(40)])
    b = write_run(tmp_path / "b.jsonl", [record(f"q{i}", hit=i >= 12) for i in range(40)])
    assert main(["report", str(a), str(b), "--gold", str(gold), "--fail-on-regression"]) == 1
    (line,) = _gate_lines(capsys.readouterr().err)
    assert "recall@5 regressed (Δ −30.0 pts, CI −" in line


@pytest.fixture
def errored_several(tmp_path):
    """A, B1 = A, B2 whose every verdict is a judge error, on 6 questions."""
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(6)])
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}") for i in range(6)])
    b1 = write_run(tmp_path / "b1.jsonl", [record(f"q{i}") for i in range(6)])
    b2 = write_run(tmp_path / "b2.jsonl", [record(f"q{i}") | {"judge": {"model": "m", "error": "HTTP 500"}} for i in range(6)])
    return [str(a), str(b1), str(b2), "--gold", str(gold)]


def test_several_runs_honour_fail_on_drop_as_two_runs_do(sample_args, capsys):
    sample = sample_inputs()
    k3 = str(sample["b"].parent / "candidate_k3.jsonl")
    assert main(["report", *sample_args[:2], k3, *sample_args[2:], "--fail-on-drop"]) == 1
    lines = _gate_lines(capsys.readouterr().err)
    assert [line.split(": gate")[0] for line in lines] == ["ragtui: A → B1 (candidate)", "ragtui: A → B2 (candidate_k3)"]
    assert all("gate --fail-on-drop: FAILED: faithfulness dropped more than max_drop" in line for line in lines)


def test_several_runs_honour_allow_unavailable_as_two_runs_do(errored_several, capsys):
    assert main(["report", *errored_several, "--fail-on-regression"]) == 1
    failed = _gate_lines(capsys.readouterr().err)
    assert "(--allow-unavailable lets it pass)" in failed[1]
    assert main(["report", *errored_several, "--fail-on-regression", "--allow-unavailable"]) == 0
    lines = _gate_lines(capsys.readouterr().err)
    assert lines[0] == "ragtui: A → B1 (b1): gate --fail-on-regression: passed: no metric regressed (10 checked)"
    assert lines[1].startswith("ragtui: A → B2 (b2): gate --fail-on-regression: passed: no metric regressed")
    assert "allowed by --allow-unavailable: faithfulness not available in B (6 judge errors, 0 missing)" in lines[1]


def test_each_comparison_of_several_runs_ends_with_one_line_per_gate_asked(errored_several, capsys):
    flags = ["--fail-on-regression", "--fail-below-target", "--fail-on-drop", "--allow-unavailable"]
    assert main(["report", *errored_several, *flags]) == 0
    lines = _gate_lines(capsys.readouterr().err)
    assert [(line.split(": gate ")[0], line.split(": gate ")[1].split(":")[0]) for line in lines] == [
        (f"ragtui: A → {label}", flag)
        for label in ("B1 (b1)", "B2 (b2)")
        for flag in ("--fail-on-regression", "--fail-below-target", "--fail-on-drop")
    ]


def test_target_gate_with_no_target_measured_says_none_was_checked_not_every_target_met(tmp_path, capsys):
    # No gold set and every verdict a judge error: no metric with a target measured anything.
    errored = [record(f"q{i}") | {"judge": {"model": "m", "error": "HTTP 500"}} for i in range(3)]
    run = write_run(tmp_path / "a.jsonl", errored)
    assert main(["report", str(run), "--fail-below-target", "--allow-unavailable"]) == 0
    (line,) = _gate_lines(capsys.readouterr().err)
    assert line.startswith("ragtui: gate --fail-below-target: passed: no target to check in A (0 checked); not measured, allowed")
