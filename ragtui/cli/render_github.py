"""`report --format github`: GitHub Actions workflow commands, one line per finding.

`::error` for each regressed question, each regressed metric and each failed gate;
`::warning` for the report's warnings and the drops larger than max_drop that are not
(yet) regressions; `::notice` for the summary and each gate that passed. With
`$GITHUB_STEP_SUMMARY` set, the markdown report is appended to the file it names, and
the job's summary page shows it.

A command is `::name key=value,…::message`. Every string from a file is made inert
(`neutralize`: no control character; a title on one line) and then escaped as the runner
reads it: `%`, CR and LF in a message, and also `:` and `,` in a property. So a question
id holding a newline or `::` can neither start a command of its own nor end the title
early: the newline reaches the annotation as `%0A`, the `::` as text.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ragtui.cli.ci_model import CiReport
from ragtui.cli.render_junit import failure_message
from ragtui.cli.render_system import quantity_scale
from ragtui.core.sanitize import neutralize

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def escape_data(text: object) -> str:
    """A message as the runner expects it (its `escapeData`): a newline is `%0A`, never a line break."""
    value = neutralize(text)
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: object) -> str:
    """A property's value (its `escapeProperty`) on one line: a message's escapes, plus `:` and `,`."""
    return escape_data(neutralize(text, keep_newlines=False)).replace(":", "%3A").replace(",", "%2C")


def command(name: str, title: str, message: str) -> str:
    return f"::{name} title={escape_property(title)}::{escape_data(message)}"


def render_github(reports: list[CiReport]) -> str:
    """The workflow commands of one or more comparisons."""
    lines = []
    for report in reports:
        head = f"ragtui {report.title}"
        lines.append(command("notice", head, f"{report.title} (k = {report.k}): {report.summary}"))
        for metric in report.metrics:
            change = f"{metric.name}: A {metric.a} → B {metric.b}, Δ {metric.delta}"
            if metric.verdict == "regressed":
                # Latency, cost and tokens fail CI through their targets only (gates.py): a warning here.
                kind = "warning" if quantity_scale(metric.name) is not None else "error"
                lines.append(command(kind, f"{head}: {metric.name} regressed", change))
            elif metric.drop_flagged:
                lines.append(command("warning", f"{head}: {metric.name} dropped more than max_drop", f"{change}: could be noise"))
        for question in report.questions:
            if question.failed:
                where = f"{question.id} ({question.category_name})"
                lines.append(command("error", f"{head}: {question.id} {question.status_label}", f"{where}: {failure_message(question)}"))
        for gate in report.gates:
            lines.append(command("notice" if gate.passed else "error", f"{head}: gate {gate.flag}", gate.line()))
        lines += [command("warning", f"{head}: warning", warning) for warning in report.warnings]
    return "\n".join(lines) + "\n"


def append_step_summary(markdown: Callable[[], str], environ: dict[str, str] | None = None) -> Path | None:
    """Append the markdown report (made only when needed) to the file `$GITHUB_STEP_SUMMARY`
    names; the path, or None when unset.

    Appended, not replaced: earlier steps of the job write to the same file.

    Raises:
        InputError: the file cannot be written (one line, exit 2).
    """
    from ragtui.core.errors import InputError, problem

    name = (environ if environ is not None else os.environ).get(STEP_SUMMARY)
    if not name:
        return None
    text = markdown()
    try:
        with open(name, "a", encoding="utf-8") as handle:
            handle.write(text if text.startswith("\n") else "\n" + text)
    except OSError as exc:
        raise InputError(problem(name, None, STEP_SUMMARY, f"cannot append the summary: {exc.strerror or exc}")) from None
    return Path(name)
