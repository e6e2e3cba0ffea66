"""The peer tools' own metrics in the text and markdown reports: one table per tool.

Rows come from the report's `tool_metrics` (never re-computed). A metric on the 0…1
scale reads like ragtui's rates (Δ in points); any other scale in its own units. Metric
names come from the tool's file: they are neutralised (text) and set in code spans (markdown, `md_code`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from ragtui.core.comparing.report_model import MetricFields, Report
from ragtui.core.sanitize import md_code, neutralize
from ragtui.core.vocabulary import (
    MINUS,
    TOOL_LABELS,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    status_source_text,
    target_mark,
)

NAME_WIDTH = 18  # the text table fits 80 columns with a metric name this long


def status_from_line(report: Report) -> str | None:
    """`Question status from: DeepEval's own verdicts (--status-from tool)`, when a tool is involved."""
    tools = [tool for run in report["runs"].values() if (tool := run.get("tool"))]
    return status_source_text(report.get("status_from", "ragtui"), tools) if tools else None


def tool_counts_text(run: Mapping[str, Any]) -> str:
    """`DeepEval: 7 verdicts · 2 failing · 1 tool error` for a run's header."""
    title = TOOL_LABELS.get(run["tool"], run["tool"])
    errors = run["tool_errors"]
    return f"{title}: {run['tool_verdicts']} verdicts · {run['tool_failing']} failing · {errors} tool error{'s' if errors != 1 else ''}"


def _value(metric: Mapping[str, Any], value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" if metric.get("scale") == "rate" else f"{value:.2f}"


def _signed(number: float, digits: int) -> str:
    return f"{number:+.{digits}f}".replace("-", MINUS)


def _delta(metric: Mapping[str, Any], *, unit: bool) -> str:
    delta, ci = metric.get("delta"), metric.get("ci")
    if delta is None:
        return "n/a"
    rate = metric.get("scale") == "rate"
    scale, digits = (100, 1) if rate else (1, 2)
    text = _signed(delta * scale, digits) + (" pts" if rate and unit else "")
    if ci and ci[0] is not None:
        text += f" ({_signed(ci[0] * scale, digits)}…{_signed(ci[1] * scale, digits)})"
    return text


def _threshold(metric: Mapping[str, Any]) -> str:
    threshold = metric.get("threshold")
    if threshold is None:
        return ""
    return ("≥" if metric.get("higher_is_better", True) else "≤") + f"{threshold:g}"


def _errors(metric: Mapping[str, Any]) -> str:
    return "/".join(str(count) for count in metric["errors"].values())


def _by_tool(report: Report) -> dict[str, dict[str, MetricFields]]:
    grouped: dict[str, dict[str, MetricFields]] = {}
    for name, metric in report.get("tool_metrics", {}).items():
        grouped.setdefault(metric.get("tool", ""), {})[name] = metric
    return grouped


def _short_name(name: str) -> str:
    text = neutralize(name.split(":", 1)[-1], keep_newlines=False)
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"


def tool_text_lines(report: Report, table) -> list[str]:
    """The text report's tool sections; `table` is the report's own table layout."""
    two = "B" in report["runs"]
    lines: list[str] = []
    for tool, metrics in _by_tool(report).items():
        title = TOOL_LABELS.get(tool, neutralize(tool, keep_newlines=False))
        header = ["metric", "thr", "A"] + (["B", "Δ (95 % CI)", "verdict"] if two else ["n"])
        rows = []
        for name, m in metrics.items():
            row = [_short_name(name), _threshold(m), f"{_value(m, m['A'])} {target_mark(m['meets_target'].get('A'))}"]
            if two:
                verdict = m.get("verdict")
                row += [
                    f"{_value(m, m['B'])} {target_mark(m['meets_target'].get('B'))}",
                    _delta(m, unit=False),
                    f"{VERDICT_SYMBOL.get(verdict or '', ' ')} {VERDICT_LABEL.get(verdict or '', 'n/a')}",
                ]
            else:
                row.append(str(m["n"]))
            rows.append(row)
        lines += ["", f"{title}'s own metrics (its scores, compared like ragtui's):", *table(rows, header, gap=" ")]
        if two:
            lines.append("(Δ in points on 0–1 scales, else in the metric's units)")
        errors = [f"{_short_name(name)} {_errors(m)}" for name, m in metrics.items() if any(m["errors"].values())]
        if errors:
            label = "A/B " if two else ""
            text = f"Tool errors ({label}questions not scored, left out of the means): " + " · ".join(errors)
            lines += textwrap.wrap(text, 80, subsequent_indent="  ")
    return lines


def tool_markdown_lines(report: Report) -> list[str]:
    """The markdown report's tool tables (one per tool)."""
    two = "B" in report["runs"]
    out: list[str] = []
    for tool, metrics in _by_tool(report).items():
        title = TOOL_LABELS.get(tool, md_code(tool))
        header = ["metric", "threshold", "A"] + (["B", "Δ (95 % CI)", "verdict", "errors A/B"] if two else ["n", "errors"])
        out += ["", f"**{title}'s own metrics**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for name, m in metrics.items():
            row = [md_code(name), _threshold(m), f"{_value(m, m['A'])} {target_mark(m['meets_target'].get('A'))}".strip()]
            if two:
                verdict = m.get("verdict")
                row += [
                    f"{_value(m, m['B'])} {target_mark(m['meets_target'].get('B'))}".strip(),
                    _delta(m, unit=True),
                    f"{VERDICT_SYMBOL.get(verdict or '', '')} {VERDICT_LABEL.get(verdict or '', 'n/a')}",
                    _errors(m),
                ]
            else:
                row += [str(m["n"]), _errors(m)]
            out.append("| " + " | ".join(row) + " |")
    return out
