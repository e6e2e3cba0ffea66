"""The peer tools' own metrics in the text and markdown reports: one table per tool.

Rows come from the report's `tool_metrics` (never re-computed), in ragtui's formats: a
metric on the 0…1 scale reads like ragtui's rates (`91.7%`, Δ in points); any other scale
like a score. Metric
names come from the tool's file: they are neutralised (text) and set in code spans (markdown, `md_code`).
"""

from __future__ import annotations

import textwrap

from ragtui.cli.render_certainty import delta_heading
from ragtui.core.comparing.report_model import MetricFields, Report, RunFields
from ragtui.core.comparing.targets import metric_spec
from ragtui.core.sanitize import md_code, neutralize
from ragtui.core.vocabulary import (
    TOOL_LABELS,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    delta_ci_text,
    status_source_text,
    target_mark,
    target_text,
    value_text,
)

NAME_WIDTH = 18  # the text table fits 80 columns with a metric name this long


def status_from_line(report: Report) -> str | None:
    """`Question status from: DeepEval's own verdicts (--status-from tool)`, when a tool is involved."""
    tools = [tool for run in report["runs"].values() if (tool := run.get("tool"))]
    return status_source_text(report.get("status_from", "ragtui"), tools) if tools else None


def tool_counts_text(run: RunFields) -> str:
    """`DeepEval: 7 verdicts · 2 failing · 1 tool error` for a run's header."""
    tool = run.get("tool") or ""
    title = TOOL_LABELS.get(tool, tool)
    errors = run.get("tool_errors", 0)
    return f"{title}: {run.get('tool_verdicts', 0)} verdicts · {run.get('tool_failing', 0)} failing · {errors} tool error{'s' if errors != 1 else ''}"


def _cells(name: str, metric: MetricFields, *, unit: bool) -> tuple[str, str, str]:
    """A tool metric's A, B and Δ with its interval in ragtui's formats: a 0…1 scale reads as a rate."""
    spec = metric_spec(name, metric)
    return value_text(metric["A"], spec), value_text(metric.get("B"), spec), delta_ci_text(metric.get("delta"), metric.get("ci"), spec, unit=unit)


def _threshold(name: str, metric: MetricFields) -> str:
    """The tool's own pass threshold, written as a target: `≥ 50%`."""
    return target_text(metric.get("threshold"), metric_spec(name, metric), missing="")


def _errors(metric: MetricFields) -> str:
    return "/".join(str(count) for count in metric.get("errors", {}).values())


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
        header = ["metric", "thr", "A"] + (["B", delta_heading(report), "verdict"] if two else ["n"])
        rows = []
        for name, m in metrics.items():
            a, b, delta = _cells(name, m, unit=False)
            row = [_short_name(name), _threshold(name, m), f"{a} {target_mark(m['meets_target'].get('A'))}"]
            if two:
                verdict = m.get("verdict")
                row += [
                    f"{b} {target_mark(m['meets_target'].get('B'))}",
                    delta,
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
        header = ["metric", "threshold", "A"] + (["B", delta_heading(report), "verdict", "errors A/B"] if two else ["n", "errors"])
        out += ["", f"**{title}'s own metrics**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for name, m in metrics.items():
            a, b, delta = _cells(name, m, unit=True)
            row = [md_code(name), _threshold(name, m), f"{a} {target_mark(m['meets_target'].get('A'))}".strip()]
            if two:
                verdict = m.get("verdict")
                row += [
                    f"{b} {target_mark(m['meets_target'].get('B'))}".strip(),
                    delta,
                    f"{VERDICT_SYMBOL.get(verdict or '', '')} {VERDICT_LABEL.get(verdict or '', 'n/a')}",
                    _errors(m),
                ]
            else:
                row += [str(m["n"]), _errors(m)]
            out.append("| " + " | ".join(row) + " |")
    return out
