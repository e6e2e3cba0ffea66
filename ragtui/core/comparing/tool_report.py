"""The report's `tool_metrics` section and the tool's counts in each run's header.

Each tool metric has exactly the fields of a ragtui metric (the same `metric_fields` builds
both) plus what only a tool metric has: `tool`, `threshold`, `scale`, `errors` per run,
`pass_rate` per run, `unpaired` and its own per-category cells.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragtui.core.comparing.report_fields import metric_fields
from ragtui.core.comparing.result import Comparison
from ragtui.core.comparing.run_summary import ToolCounts
from ragtui.core.comparing.tool_metrics import ToolMetric
from ragtui.core.vocabulary import json_number as _num


def tool_metrics_section(comparison: Comparison) -> dict[str, Any]:
    """`TOOL:METRIC` → the metric's fields, in the order the files name them."""
    two_runs = comparison.b is not None
    names = comparison.config.category_name
    return {name: _tool_metric(metric, two_runs, names) for name, metric in comparison.tool_metrics.items()}


def _tool_metric(metric: ToolMetric, two_runs: bool, category_name: Callable[[str], str]) -> dict[str, Any]:
    out = metric_fields(metric.comparison, two_runs)
    out["tool"] = metric.tool
    out["threshold"] = metric.threshold
    out["scale"] = metric.comparison.spec.scale
    out["errors"] = dict(metric.errors)
    out["pass_rate"] = {label: _num(rate) for label, rate in metric.pass_rate.items()}
    if two_runs:
        out["unpaired"] = metric.unpaired
    categories = {}
    for category, cell in metric.categories.items():
        entry: dict[str, Any] = {"name": category_name(category), "A": _num(cell.a.value), "n": cell.a.n}
        if two_runs:
            entry["B"] = _num(cell.b.value) if cell.b is not None else None
            entry["delta"] = _num(cell.delta)
        categories[category] = entry
    out["categories"] = categories
    return out


def tool_run_fields(counts: ToolCounts) -> dict[str, Any]:
    """A run's tool and its verdict counts: judged by the tool, failing, errors."""
    return {"tool": counts.tool, "tool_verdicts": counts.verdicts, "tool_failing": counts.failing, "tool_errors": counts.errors}


def add_tool_fields(report: dict[str, Any], comparison: Comparison) -> None:
    """Put `status_from`, the runs' tool counts and `tool_metrics` into a built report."""
    report["status_from"] = comparison.status_from
    for label, summary in comparison.runs.items():
        if label in report["runs"] and summary.tool is not None:
            report["runs"][label].update(tool_run_fields(summary.tool))
    report["tool_metrics"] = tool_metrics_section(comparison)
