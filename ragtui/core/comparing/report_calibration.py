"""The calibration parts of the report document: per-run agreement and bias, and the
`corrected` object under faithfulness and utility (docs/cli.md), as the comparison holds them."""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.result import Comparison
from ragtui.core.measuring.label_values import MIN_CORRECTED_ANSWERS, Corrected, CorrectedMetric, MeanWithInterval
from ragtui.core.vocabulary import json_number as _num


def _pair(interval: tuple[float, float] | None) -> list[float | None] | None:
    return None if interval is None else [_num(interval[0]), _num(interval[1])]


def _bias(bias: MeanWithInterval | None) -> dict[str, Any] | None:
    return None if bias is None else {"value": _num(bias.value), "ci": _pair(bias.ci), "labels": bias.n}


def calibration_section(comparison: Comparison, side: str) -> dict[str, Any] | None:
    """`report["calibration"][side]`: counts, agreement (overall, per category), confusion, bias."""
    result = comparison.runs[side].calibration
    if result is None:
        return None
    out: dict[str, Any] = {}
    for key, value in result.__dict__.items():
        if key == "by_category":
            out[key] = {c: {"sentences": a.sentences, "agreement": _num(a.agreement), "kappa": _num(a.kappa)} for c, a in value.items()}
        elif key in ("faithfulness_bias", "utility_bias"):
            out[key] = _bias(value)
        else:
            out[key] = _num(value) if isinstance(value, float) else value
    path = comparison.labels[side].path
    out["labels_file"] = str(path) if path is not None else None
    return out


def _corrected_run(metric: CorrectedMetric) -> dict[str, Any] | None:
    c: Corrected | None = metric.corrected
    if c is None:
        return None
    return {
        # Under the minimum of labelled answers no value is given: its interval would not hold.
        "value": None if c.too_few else _num(c.value), "ci": None if c.too_few else _pair(c.ci),
        "too_few_to_correct": c.too_few, "minimum_answers": MIN_CORRECTED_ANSWERS, "labels": c.labels, "lambda": _num(c.lam),
        "answers": c.groups, "raw": _num(metric.raw), "label_budget": metric.budget,
        "label_budget_target": _num(metric.target_half_width), "best_half_width": _num(metric.floor_half_width),
        "partly_labelled": metric.partly_labelled,
        "stratified": metric.stratified,
        "effective_labels": None if c.too_few else _num(metric.effective_labels),
        "weak_judge": metric.weak_judge,
    }


def _plan(metric: CorrectedMetric) -> dict[str, Any] | None:
    """The label plan (Neyman allocation over the categories) for `label_budget_target`."""
    plan = metric.plan
    if plan is None:
        return None
    return {
        "target_half_width": _num(plan.target_half_width),
        "total": plan.total,
        "next": {"category": plan.next_category, "more": plan.next_more} if plan.next_category is not None else None,
        "by_category": {k: {"have": p.have, "needed": p.needed, "more": p.more} for k, p in plan.by_category.items()},
    }


def corrected_sections(comparison: Comparison) -> dict[str, dict[str, Any]]:
    """metric name → the `corrected` object: {"A", "B", "label_plan", "delta", "delta_ci"} (None where no sampled labels)."""
    out: dict[str, dict[str, Any]] = {}
    for name, corrected in comparison.corrected.items():
        entry: dict[str, Any] = {side: _corrected_run(metric) for side, metric in corrected.runs.items()}
        entry["label_plan"] = {side: _plan(metric) for side, metric in corrected.runs.items()}
        if "B" in corrected.runs:
            entry["delta"], entry["delta_ci"] = _num(corrected.delta), _pair(corrected.delta_ci)
        out[name] = entry
    return out
