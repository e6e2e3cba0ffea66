"""Whose verdicts make a question's status when a tool's file gives none of its own."""

from __future__ import annotations

import json

from ragtui.cli import main

from .builders import FIXTURES

RAGAS_CSV = FIXTURES / "ragas_results.csv"  # four rows, no thresholds, one NaN faithfulness


def test_a_ragas_csv_without_tool_targets_has_no_tool_verdict_and_takes_ragtuis_status(capsys):
    assert main(["report", str(RAGAS_CSV), "--format", "json"]) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert data["status_from"] == "ragtui"
    run = data["runs"]["A"]
    assert (run["tool_verdicts"], run["tool_failing"], run["tool_errors"]) == (0, 0, 1)
    # ragtui's own metrics decide: only the question ragtui fails is failing, not all four as tool errors
    assert data["questions"]["still_failing"] == ["ragas_0004"]
    assert any("no RAGAS verdict on any question" in w and "ragtui's own metrics" in w and "tool_targets:" in w for w in data["warnings"])


def test_the_text_report_says_why_the_status_is_ragtuis(capsys):
    assert main(["report", str(RAGAS_CSV)]) == 0
    text = capsys.readouterr().out
    assert "Question status from: ragtui's verdicts" in text
    assert "no RAGAS verdict on any question" in text.replace("\n", " ").replace("  ", " ").replace("! ", "")
