"""`ragtui report A B1 B2 B3`: each candidate against A, exactly as the two-run report of the pair."""

from __future__ import annotations

import json

import pytest
import yaml

from ragtui.cli import main
from tests.cli.test_report import GOLD, _record


@pytest.fixture
def four_runs(tmp_path, write_jsonl):
    """A finds every gold passage; B1 is A again; B2 loses it on 12 of 40 (a clear regression);
    B3 loses it on 1 and has 1 answer judged unfaithful (no clear change on recall)."""
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump(GOLD), encoding="utf-8")
    meta = {"generator_model": "llama-3.1-70b", "judge_model": "claude-sonnet-4"}
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "k5", **meta}, [_record(i, hit=True) for i in range(40)])
    b1 = write_jsonl(tmp_path / "b1.jsonl", {"name": "k5-again", **meta}, [_record(i, hit=True) for i in range(40)])
    b2 = write_jsonl(tmp_path / "b2.jsonl", {"name": "k3", **meta}, [_record(i, hit=i >= 12) for i in range(40)])
    b3 = write_jsonl(tmp_path / "b3.jsonl", {"name": "k20", **meta}, [_record(i, hit=i >= 1, attested=i >= 1) for i in range(40)])
    return gold, a, b1, b2, b3


def _report(capsys, *args) -> tuple[int, str, str]:
    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_four_runs_give_three_comparisons_equal_to_the_two_run_report_of_each_pair(four_runs, capsys):
    gold, a, *candidates = four_runs
    code, out, _ = _report(capsys, a, *candidates, "--gold", gold, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert len(report["comparisons"]) == 3
    for candidate, comparison in zip(candidates, report["comparisons"], strict=True):
        _, pair_out, _ = _report(capsys, a, candidate, "--gold", gold, "--format", "json")
        assert comparison == json.loads(pair_out)
    # Hand-checked: B2 misses the gold passage on 12 of 40 questions, so recall@5 falls 30 points.
    recall = report["comparisons"][1]["metrics"]["recall@5"]
    assert (recall["A"], recall["B"], recall["delta"], recall["verdict"]) == (1.0, 0.7, -0.3, "regressed")


def test_runs_lists_every_run_once_the_reference_first(four_runs, capsys):
    gold, a, *candidates = four_runs
    _, out, _ = _report(capsys, a, *candidates, "--gold", gold, "--format", "json")
    report = json.loads(out)
    assert [(run["label"], run["name"]) for run in report["runs"]] == [("A", "k5"), ("B1", "k5-again"), ("B2", "k3"), ("B3", "k20")]
    assert report["runs"][2]["path"] == str(candidates[1])
    assert report["k"] == 5


def test_two_runs_keep_the_two_run_shape_without_comparisons(four_runs, capsys):
    gold, a, b1, *_ = four_runs
    _, out, _ = _report(capsys, a, b1, "--gold", gold, "--format", "json")
    report = json.loads(out)
    assert set(report["runs"]) == {"A", "B"}
    assert "comparisons" not in report


def test_text_report_of_four_runs_shows_a_summary_then_each_comparison_within_80_columns(four_runs, capsys):
    gold, a, *candidates = four_runs
    _, out, _ = _report(capsys, a, *candidates, "--gold", gold)
    lines = out.splitlines()
    assert lines[0] == "ragtui report: 4 runs, each compared with A (k = 5)"
    # The summary and the section rules fit 80 columns (each section is the pair's own report).
    summary = lines[: next(i for i, line in enumerate(lines) if line.startswith("═"))]
    assert [line for line in [*summary, *(line for line in lines if line.startswith("═"))] if len(line) > 80] == []
    summary_b2 = next(line for line in lines if line.startswith("B2 "))
    # value, target mark (28/40: Wilson 0.546…0.819 straddles 0.80, inconclusive), verdict symbol and Δ in points
    assert "70.0% ? ▼−30.0" in summary_b2
    for position in (1, 2, 3):
        assert any(line.startswith(f"═══ Comparison {position} of 3: A → B{position} ") for line in lines)
    # Each section is the two-run text report of its pair, unchanged.
    _, pair_text, _ = _report(capsys, a, candidates[1], "--gold", gold)
    assert pair_text in out


def test_markdown_report_of_four_runs_has_a_summary_table_and_each_pair_report(four_runs, capsys):
    gold, a, *candidates = four_runs
    _, out, _ = _report(capsys, a, *candidates, "--gold", gold, "--format", "markdown")
    assert out.startswith("### ragtui report: 4 runs against `k5` (k = 5)\n")
    assert "| B2 | `k3` | 70.0% ? ▼−30.0 |" in out
    for position, candidate in enumerate(candidates, start=1):
        assert f"#### Comparison {position} of 3: A → B{position}" in out
        _, pair_markdown, _ = _report(capsys, a, candidate, "--gold", gold, "--format", "markdown")
        assert pair_markdown in out


def test_fail_on_regression_applies_to_every_comparison_naming_the_run(four_runs, capsys):
    gold, a, b1, b2, b3 = four_runs
    code, _, err = _report(capsys, a, b1, b3, "--gold", gold, "--fail-on-regression")
    assert code == 0, err
    code, _, err = _report(capsys, a, b1, b2, b3, "--gold", gold, "--fail-on-regression")
    assert code == 1
    failed = [line for line in err.splitlines() if "FAILED" in line]
    assert failed and all(line.startswith("ragtui: A → B2 (k3): gate --fail-on-regression: FAILED: ") for line in failed)
    assert any("recall@5 regressed" in line for line in failed)


def test_fail_below_target_checks_every_candidate(four_runs, capsys):
    gold, a, b1, b2, b3 = four_runs
    # B2's recall (28/40, Wilson 0.546…0.819) is inconclusive against 0.80: it fails with --strict-targets.
    code, _, err = _report(capsys, a, b1, b2, "--gold", gold, "--fail-below-target")
    assert code == 0
    code, _, err = _report(capsys, a, b1, b2, "--gold", gold, "--fail-below-target", "--strict-targets")
    assert code == 1
    assert "ragtui: A → B2 (k3): gate --fail-below-target: FAILED: recall@5 of B is inconclusive against its target ≥ 80%" in err
    assert "ragtui: A → B1 (k5-again): gate --fail-below-target: passed: every target met by B (3 checked)" in err


def test_unreadable_candidates_are_all_named_once_with_exit_2(four_runs, tmp_path, capsys):
    gold, a, b1, *_ = four_runs
    code, out, err = _report(capsys, a, tmp_path / "missing1.jsonl", b1, tmp_path / "missing2.jsonl", "--gold", gold)
    assert code == 2 and out == ""
    assert err.count("missing1.jsonl") == 1 and err.count("missing2.jsonl") == 1
    assert "Traceback" not in err


def test_run_names_are_inert_in_the_several_run_reports(four_runs, tmp_path, write_jsonl, capsys):
    gold, a, b1, *_ = four_runs
    hostile = write_jsonl(tmp_path / "x.jsonl", {"name": "evil\x1b[31m|name"}, [_record(i, hit=True) for i in range(40)])
    _, text, _ = _report(capsys, a, b1, hostile, "--gold", gold)
    _, markdown, _ = _report(capsys, a, b1, hostile, "--gold", gold, "--format", "markdown")
    assert "\x1b" not in text and "\x1b" not in markdown
    assert "evil" in text and "| B2 | `evil" in markdown and "\\|name" in markdown


def test_the_app_on_more_than_two_runs_opens_a_and_b_and_keeps_the_others_for_the_trade_off(four_runs, capsys, monkeypatch):
    import ragtui.cli.terminal
    import ragtui.ui.launch

    gold, a, b1, b2, b3 = four_runs
    launched = []
    monkeypatch.setattr(ragtui.cli.terminal, "terminal_problem", lambda: None)
    monkeypatch.setattr(ragtui.ui.launch, "launch", lambda inputs, **options: launched.append(inputs) or 0)
    code, out, err = _report_app(capsys, a, b1, b2, b3, "--gold", gold)
    assert (code, out, err) == (0, "", "")
    (inputs,) = launched
    assert (inputs.a, inputs.b, inputs.others) == (a, b1, (b2, b3))
    assert inputs.runs == (a, b1, b2, b3)


def _report_app(capsys, *args) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_several_run_report_reads_each_run_at_its_own_k_in_a_trade_off_section(four_runs, capsys):
    gold, a, b1, b2, b3 = four_runs
    _, out, _ = _report(capsys, a, b1, b2, b3, "--gold", gold, "--format", "json")
    section = json.loads(out)["tradeoff"]
    # No k in the metadata: each run's k is read from its name (k5, k5-again, k3, k20).
    assert [(p["label"], p["k"], p["k_from"]) for p in section["points"]] == [
        ("A", 5, "name"), ("B1", 5, "name"), ("B2", 3, "name"), ("B3", 20, "name"),
    ]
    assert section["targets"]["faithfulness"] is not None and section["target_k"] == 5
    assert section["best"] in {p["label"] for p in section["points"]} and set(section["front"]) <= {"A", "B1", "B2", "B3"}
    _, text, _ = _report(capsys, a, b1, b2, b3, "--gold", gold)
    _, markdown, _ = _report(capsys, a, b1, b2, b3, "--gold", gold, "--format", "markdown")
    assert "Trade-off: recall at each run's own k" in text and "20*" in text
    assert "**Trade-off**" in markdown and "| `k20` | 20* |" in markdown
