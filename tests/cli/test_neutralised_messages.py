"""Every message ragtui prints goes through one neutraliser (issue 9)."""

from __future__ import annotations

import json

from ragtui.cli import main

OSC_TITLE = "\x1b]0;pwned\x07"


def _run_with_duplicate_id(tmp_path):
    path = tmp_path / "run.jsonl"
    records = [{"id": f"q{OSC_TITLE}", "question": "?", "retrieved": ["p1"], "answer": "a"}] * 2
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_validate_on_a_duplicate_id_holding_osc_0_cannot_set_the_terminal_title(tmp_path, capsys):
    assert main(["validate", str(_run_with_duplicate_id(tmp_path))]) == 1
    captured = capsys.readouterr()
    assert "duplicate id 'q␛]0;pwned␇'" in captured.out
    assert "\x1b" not in captured.out + captured.err and "\x07" not in captured.out + captured.err


def test_a_problem_on_stderr_quoting_an_id_is_neutralised(tmp_path, capsys):
    assert main(["report", str(_run_with_duplicate_id(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "␛]0;pwned␇" in err and "\x1b" not in err


def test_a_newline_in_an_id_cannot_forge_a_second_message_line(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    records = [{"id": "q\nragtui: all good", "question": "?", "retrieved": ["p1"], "answer": "a"}] * 2
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert not any(line.startswith("ragtui: all good") for line in out.splitlines())
