"""The report's `tool_metrics` section and the tool's counts in each run's header.

Each tool metric has exactly the fields of a ragtui metric (the same `_metric` builds
both) plus what only a tool metric has: `tool`, `threshold`, `scale`, `errors` per run,
`pass_rate` per run, `unpaired` and its own per-category cells.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from ragtui.core.comparing.compare import Comparison
from ragtui.core.comparing.report import _metric, _num
from ragtui.core.comparing.tool_metrics import ToolMetric
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.tool_scores import tool_of


def tool_metrics_section(comparison: Comparison) -> dict[str, Any]:
    """`TOOL:METRIC` → the metric's fields, in the order the files name them."""
    two_runs = comparison.b is not None
    names = comparison.config.category_name
    return {name: _tool_metric(metric, two_runs, names) for name, metric in comparison.tool_metrics.items()}


def _tool_metric(metric: ToolMetric, two_runs: bool, category_name: Callable[[str], str]) -> dict[str, Any]:
    out = _metric(metric.comparison, two_runs)
    out["tool"] = metric.tool
    out["threshold"] = metric.threshold
    out["scale"] = metric.comparison.spec.scale
    out["errors"] = dict(metric.errors)
    out["pass_rate"] = {label: _num(rate) for label, rate in metric.pass_rate.items()}
    if two_runs:
        out["unpaired"] = metric.unpaired
    categories = {}
    for category, cell in metric.categories.items():
        entry: dict[str, Any] = {"name": category_name(category), "A": _num(cell["A"].value), "n": cell["n"]}
        if two_runs:
            entry["B"] = _num(cell["B"].value)
            entry["delta"] = _num(cell["delta"])
        categories[category] = entry
    out["categories"] = categories
    return out


def tool_run_fields(evaluation: Evaluation) -> dict[str, Any]:
    """A run's tool and its verdict counts: judged by the tool, failing, errors."""
    present = evaluation.questions.filter(pl.col("present"))
    return {
        "tool": tool_of(evaluation),
        "tool_verdicts": present.filter(pl.col("tool_pass").is_not_null() & pl.col("tool_error").is_null()).height,
        "tool_failing": present.filter((pl.col("tool_pass") == False) & pl.col("tool_error").is_null()).height,  # noqa: E712
        "tool_errors": present.filter(pl.col("tool_error").is_not_null()).height,
    }


def add_tool_fields(report: dict[str, Any], comparison: Comparison) -> None:
    """Put `status_from`, the runs' tool counts and `tool_metrics` into a built report."""
    report["status_from"] = comparison.status_from
    for label, evaluation in (("A", comparison.a), ("B", comparison.b)):
        if evaluation is not None and label in report["runs"] and "tool_pass" in evaluation.questions.columns:
            report["runs"][label].update(tool_run_fields(evaluation))
    report["tool_metrics"] = tool_metrics_section(comparison)
