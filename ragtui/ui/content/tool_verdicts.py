"""A peer tool's own verdict on one question, beside ragtui's, as Content.

The tool's verdict on the whole question first (✓ passes, ✗ fails, ? tool error), then
each tool metric: its pass/fail mark, score on the tool's scale, threshold, the tool's
reason and the error that kept it from scoring. Metric names, reasons and errors come
from the tool's file: they go through `safe`, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content

from ragtui.core.vocabulary import TOOL_LABELS
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.content.verdict_styles import verdict_mark

Colour = Callable[[str], str]
REASON_LIMIT = 160  # a reason is a hint here; the file holds the whole of it


def _verdict_line(row: dict[str, Any], title: str, colour: Colour) -> Content:
    error = row.get("tool_error")
    passed = None if error else row.get("tool_pass")
    symbol, role, _ = verdict_mark(passed)
    label = {True: "passes", False: "fails", None: "tool error" if error else "no verdict"}[passed]
    line = join(Content(f"{title}'s verdict ").stylize("bold"), Content(f"{symbol} {label}").stylize(f"bold {colour(role)}"))
    if error:
        line = join(line, Content(": ").stylize(colour("fail")), safe(error, one_line=True, limit=REASON_LIMIT).stylize(colour("fail")))
    return line


def _metric_lines(entry: dict[str, Any], colour: Colour) -> list[Content]:
    symbol, role, _ = verdict_mark(entry.get("passed"))
    name = str(entry.get("metric") or "").split(":", 1)[-1]
    value = entry.get("value")
    score = "n/a" if value is None else f"{value:.2f}"
    threshold = entry.get("threshold")
    parts: list[Content | str] = [
        Content(f"{symbol} ").stylize(colour(role)),
        safe(name, one_line=True, limit=40).stylize("bold"),
        f" {score}",
    ]
    if threshold is not None:
        parts.append(Content(f" (threshold {threshold:g})").stylize("dim"))
    lines = [join(*parts)]
    if entry.get("error"):
        lines.append(join("  ", Content("error: ").stylize(colour("fail")), safe(entry["error"], one_line=True, limit=REASON_LIMIT)))
    if entry.get("reason"):
        lines.append(join("  ", safe(entry["reason"], one_line=True, limit=REASON_LIMIT).stylize("dim")))
    return lines


def tool_content(row: dict[str, Any] | None, tool: str | None, colour: Colour) -> Content | None:
    """The tool's verdicts on this row, or None when the run holds none (ragtui's own runs)."""
    if row is None or not row.get("present", True) or tool is None:
        return None
    entries = [entry for entry in row.get("tool_scores") or [] if entry]
    if not entries and row.get("tool_pass") is None and not row.get("tool_error"):
        return None
    lines = [_verdict_line(row, TOOL_LABELS.get(tool, tool), colour)]
    for entry in entries:
        lines += _metric_lines(entry, colour)
    return Content("\n").join(lines)
