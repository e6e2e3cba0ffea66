"""`ragtui gold check` and `ragtui gold apply`, and `report --gold-edits`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ragtui.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
FIXTURES = Path(__file__).parent / "gold_fixtures"


def run_cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_gold_check_on_the_sample_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    runs = sorted(SAMPLE.glob("*.jsonl"))
    code, out, err = run_cli(capsys, "gold", "check", SAMPLE / "gold.yaml", "--corpus", SAMPLE / "corpus", *runs)
    assert code == 0, err
    assert "120 questions (course: 50–200), 25% unanswerable (course: 20–30 %)" in out
    assert "sans_reponse          30   25%    0           30            24 pts" in out
    assert "all                   120  100%   90          30            10 pts" in out
    assert "Tags: acronyme 23, section_recente 9, tableau 3" in out
    assert out.endswith("Checked against the course's rules, the corpus (153 passages), 5 run(s) for\nstale ids: 0 error(s), 0 warning(s).\n")


def test_gold_check_json_has_the_documented_keys_and_exits_1_on_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.yaml"
    gold.write_text("- {id: a, question: Q ?, gold_passages: [], expected_answer: R, category: factuelle}\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "gold", "check", gold, "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert {"questions", "unanswerable_share", "categories", "tags", "findings"} <= set(report)
    assert report["categories"]["factuelle"]["unanswerable"] == 1
    assert [(f["kind"], f["question"], f["severity"], f["line"]) for f in report["findings"]] == [
        ("too_few_questions", None, "warning", None),
        ("unanswerable_share", None, "warning", None),
        ("answerable_without_gold", "a", "error", 1),
    ]


def test_gold_apply_writes_exactly_the_hand_edited_fixture_and_says_comments_are_lost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "out.yaml"
    code, _, err = run_cli(capsys, "gold", "apply", FIXTURES / "gold.yaml", "-o", out_path)
    assert code == 0, err
    assert out_path.read_text(encoding="utf-8") == (FIXTURES / "gold.edited.yaml").read_text(encoding="utf-8")
    assert "not kept in the rewritten file: 1 comment line(s)" in err
    assert "5 edit(s) of" in err


def test_gold_apply_in_place_keeps_a_backup_and_the_umask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("gold.yaml", "gold.edits.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    original = (tmp_path / "gold.yaml").read_text(encoding="utf-8")
    os.chmod(tmp_path / "gold.yaml", 0o640)
    code, _, err = run_cli(capsys, "gold", "apply", tmp_path / "gold.yaml", "--in-place")
    assert code == 0, err
    assert (tmp_path / "gold.yaml.bak").read_text(encoding="utf-8") == original
    assert (tmp_path / "gold.yaml").read_text(encoding="utf-8") == (FIXTURES / "gold.edited.yaml").read_text(encoding="utf-8")
    assert (tmp_path / "gold.yaml").stat().st_mode & 0o777 == 0o640  # a replaced file keeps its own
    # Applied again: every edit is already in the gold set.
    code, _, err = run_cli(capsys, "gold", "apply", tmp_path / "gold.yaml", "--in-place")
    assert "0 edit(s) of" in err and "5 already in the gold set" in err


def test_report_gold_edits_names_a_missing_log_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.edits.jsonl"
    code, _, err = run_cli(capsys, "report", SAMPLE / "baseline.jsonl", "--gold", SAMPLE / "gold.yaml", "--gold-edits", missing, "--no-cache")
    assert code == 2
    assert f"{missing}: -: no edits log here" in err


def test_report_gold_edits_applies_the_log_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "fix.jsonl"
    log.write_text(json.dumps({"question": "q009", "field": "category", "before": "sans_reponse", "after": "procedurale", "why": "", "who": "t", "at": ""}) + "\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "report", SAMPLE / "baseline.jsonl", "--gold", SAMPLE / "gold.yaml", "--gold-edits", log, "--format", "json", "--no-cache")
    report = json.loads(out)
    assert code == 0
    assert report["categories"]["procedurale"]["n"] == 29
    assert "gold: 1 edit(s) of fix.jsonl not yet in gold.yaml, applied (write them with `ragtui gold apply`)" in report["warnings"]


def test_text_and_markdown_reports_have_a_table_per_tag(capsys: pytest.CaptureFixture[str]) -> None:
    runs = (SAMPLE / "baseline.jsonl", SAMPLE / "candidate.jsonl", "--gold", SAMPLE / "gold.yaml", "--no-cache")
    _, text, _ = run_cli(capsys, "report", *runs)
    _, markdown, _ = run_cli(capsys, "report", *runs, "--format", "markdown")
    # tableau: q068–q070, hand-counted in tests/core/test_gold_set.py.
    assert "By tag of the gold set (A → B; a question counts in each of its tags):" in text
    assert "tableau         3  100.0% → 66.7% 66.7% → 100.0% n/a → n/a       5.00 → 5.00" in text
    assert "**By tag of the gold set** (A → B; a question counts in each of its tags)" in markdown
    assert "| `tableau` | 3 | 100.0% → 66.7% | 66.7% → 100.0% | n/a → n/a | 5.00 → 5.00 |" in markdown
