"""`report --format github`: workflow commands a hostile run cannot forge, and the step summary."""

from __future__ import annotations

import re

import pytest

from ragtui.cli import main
from ragtui.cli.render_github import escape_data, escape_property
from tests.cli.ci_sample import REGRESSED, SAMPLE_ARGS
from tests.cli.hostile_runs import COLONS_ID, IMAGE, NEWLINE_ID, write_hostile

# A workflow command as the runner parses it: the name, the properties up to the first `::`, the message.
COMMAND = re.compile(r"^::(error|warning|notice) title=([^:\n]*)::(.*)$")


def _unescape(text: str) -> str:
    """What the runner shows for an escaped value (the inverse of its escapeData / escapeProperty)."""
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def _commands(text: str) -> list[tuple[str, str, str]]:
    lines = text.splitlines()
    parsed = [COMMAND.match(line) for line in lines]
    assert all(parsed), [line for line, match in zip(lines, parsed) if not match]
    return [(m.group(1), _unescape(m.group(2)), _unescape(m.group(3))) for m in parsed if m]


@pytest.fixture
def hostile_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    a, b, gold = write_hostile(tmp_path)
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "github", "--fail-on-regression"]) == 1
    return capsys.readouterr().out


def test_every_line_of_a_hostile_run_is_one_command_the_runner_parses_whole(hostile_commands):
    commands = _commands(hostile_commands)
    # Nothing but our own commands starts a line: the forged ones stay inside messages.
    assert not any(line.startswith("::error title=forged") for line in hostile_commands.splitlines())
    regressed = [(title, message) for kind, title, message in commands if kind == "error" and " regressed" in title and "q-" in title]
    assert len(regressed) == 3


def test_a_newline_or_colons_in_an_id_reach_the_annotation_as_text(hostile_commands):
    messages = [message for _, _, message in _commands(hostile_commands)]
    # The message keeps the id whole (its newline as %0A on the wire), the title on one line.
    assert any(message.startswith(f"{NEWLINE_ID} (cat {IMAGE}): generation") for message in messages)
    assert any(message.startswith(f"{COLONS_ID} (cat {IMAGE}): generation") for message in messages)
    assert "q-nl%0A::error title=forged::forged by a newline" in hostile_commands
    assert "q-colons%3A%3Aerror title=forged%3A%3Aforged by colons regressed::" in hostile_commands


def test_escaping_follows_the_runner():
    assert escape_data("50% done\nnext") == "50%25 done%0Anext"
    assert escape_property("a:b,c\nd") == "a%3Ab%2Cc d"
    assert escape_data("\x1b]52;c;payload\x07") == "␛]52;c;payload␇"


def test_the_sample_annotates_each_regressed_question_and_each_gate(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["report", *SAMPLE_ARGS, "--format", "github", "--fail-on-regression"]) == 0
    commands = _commands(capsys.readouterr().out)
    errors = {title.split(": ")[-1].split()[0] for kind, title, _ in commands if kind == "error"}
    assert errors == REGRESSED  # no metric regressed on the sample: every error is a question
    notices = [message for kind, _, message in commands if kind == "notice"]
    assert notices[0] == "baseline → candidate (k = 5): 26 regressed (of which 4 missing from B, 3 judge errors) · 16 fixed · 26 still failing"
    assert notices[-1].startswith("gate --fail-on-regression: passed: ")
    warnings = [title for kind, title, _ in commands if kind == "warning"]
    assert "ragtui baseline → candidate: faithfulness dropped more than max_drop" in warnings


def test_the_markdown_report_is_appended_to_the_step_summary(tmp_path, capsys, monkeypatch):
    summary = tmp_path / "step_summary.md"
    summary.write_text("## Earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["report", *SAMPLE_ARGS, "--format", "github"]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Earlier step\n\n### ragtui report: `baseline` → `candidate` (k = 5)")
    assert "**Questions:** 26 regressed" in text


def test_an_unwritable_step_summary_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no" / "such" / "folder.md"))
    assert main(["report", *SAMPLE_ARGS, "--format", "github"]) == 2
    err = capsys.readouterr().err
    assert "GITHUB_STEP_SUMMARY: cannot append the summary: No such file or directory" in err
    assert "Traceback" not in err
