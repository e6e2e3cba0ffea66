"""`ragtui report --notes FILE` lists the triage marks; a bad notes file is exit 2; no TTY is exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ragtui.cli import main
from ragtui.core.triage.notes import Notes


@pytest.fixture
def runs(tmp_path):
    from tests.ui.triage_data import write_triage_runs

    return write_triage_runs(tmp_path / "runs")


@pytest.fixture
def notes(runs):
    path = runs["b"].with_name("b.notes.jsonl")
    marks = Notes.load(path)
    marks.set("proc-02", "bug", "invents a | written <form>")
    marks.set("none-02", "gold_wrong")
    marks.set("fact-03", "flaky", "timeouts")
    marks.set("fact-03", None)  # removed again: not listed
    return path


def _report(runs, notes, fmt):
    return main(["report", str(runs["a"]), str(runs["b"]), "--gold", str(runs["gold"]), "--notes", str(notes), "--format", fmt])


def test_the_json_report_lists_each_current_mark_with_its_status(runs, notes, capsys):
    assert _report(runs, notes, "json") == 0
    marks = json.loads(capsys.readouterr().out)["marks"]
    assert [(m["id"], m["mark"], m["note"], m["status"]) for m in marks] == [
        ("proc-02", "bug", "invents a | written <form>", "regressed"),
        ("none-02", "gold_wrong", "", "still_failing"),
    ]


def test_the_text_report_has_a_marks_section(runs, notes, capsys):
    assert _report(runs, notes, "text") == 0
    out = capsys.readouterr().out
    section = out[out.index("Triage marks (2):"):].splitlines()
    assert section[1] == "proc-02  bug         invents a | written <form>"
    assert section[2] == "none-02  gold wrong"


def test_the_markdown_report_sets_the_notes_in_code_spans(runs, notes, capsys):
    # Like every string from a file in the markdown report: a code span, pipe escaped, no HTML.
    assert _report(runs, notes, "markdown") == 0
    out = capsys.readouterr().out
    assert "| `proc-02` | `Procedural` | bug | `invents a \\| written <form>` |" in out
    assert "| `none-02` | `No answer in corpus` | gold wrong | – |" in out


def test_a_report_without_notes_has_no_marks_section(runs, capsys):
    assert main(["report", str(runs["a"]), str(runs["b"]), "--gold", str(runs["gold"]), "--format", "json"]) == 0
    assert "marks" not in json.loads(capsys.readouterr().out)


def test_a_bad_line_in_the_notes_file_is_exit_2_naming_the_line(runs, tmp_path, capsys):
    bad = tmp_path / "bad.notes.jsonl"
    bad.write_text('{"id": "proc-02", "mark": "bug"}\n{"id": "proc-01", "mark": "maybe"}\n', encoding="utf-8")
    assert _report(runs, bad, "text") == 2
    err = capsys.readouterr().err
    assert "bad.notes.jsonl:2: mark:" in err and "maybe" in err


def test_a_missing_notes_file_is_exit_2(runs, tmp_path, capsys):
    assert _report(runs, tmp_path / "nope.jsonl", "text") == 2
    assert "no such notes file" in capsys.readouterr().err


def test_open_without_a_terminal_says_so_and_exits_2_instead_of_hanging(runs):
    result = subprocess.run(
        [sys.executable, "-m", "ragtui", "open", str(runs["a"])],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "needs an interactive terminal" in result.stderr
