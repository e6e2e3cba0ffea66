"""The calibration parts of the report document: per-run agreement and bias, and the
`corrected` object under faithfulness and utility (docs/cli.md), from the comparison's labels."""

from __future__ import annotations

import math
from typing import Any

from ragtui.core.comparing.compare import Comparison
from ragtui.core.loading.labels import RunLabels, from_run
from ragtui.core.measuring.calibration import Calibration, calibrate
from ragtui.core.measuring.correction import CorrectedMetric, correct, corrected_delta
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.ppi import Corrected, MeanWithInterval


def _num(value: float | None, digits: int = 4) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), digits)


def _pair(interval: tuple[float, float] | None) -> list[float | None] | None:
    return None if interval is None else [_num(interval[0]), _num(interval[1])]


def _labels(comparison: Comparison, side: str, evaluation: Evaluation) -> RunLabels:
    found = comparison.labels.get(side)
    return found if found is not None else from_run(evaluation.run.name, evaluation.questions)


def _sides(comparison: Comparison) -> dict[str, Evaluation]:
    return {"A": comparison.a, **({"B": comparison.b} if comparison.b is not None else {})}


def run_calibration(comparison: Comparison, side: str) -> Calibration | None:
    evaluation = _sides(comparison)[side]
    return calibrate(evaluation.questions, _labels(comparison, side, evaluation), confidence=comparison.config.confidence)


def run_corrections(comparison: Comparison, side: str) -> dict[str, CorrectedMetric]:
    evaluation = _sides(comparison)[side]
    return correct(
        evaluation.questions, _labels(comparison, side, evaluation),
        confidence=comparison.config.confidence, max_drop=comparison.config.max_drop,
    )


def _bias(bias: MeanWithInterval | None) -> dict[str, Any] | None:
    return None if bias is None else {"value": _num(bias.value), "ci": _pair(bias.ci), "labels": bias.n}


def calibration_section(comparison: Comparison, side: str) -> dict[str, Any] | None:
    """`report["calibration"][side]`: counts, agreement (overall, per category), confusion, bias."""
    result = run_calibration(comparison, side)
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
    labels = _labels(comparison, side, _sides(comparison)[side])
    out["labels_file"] = str(labels.path) if labels.path is not None else None
    return out


def _corrected_run(metric: CorrectedMetric) -> dict[str, Any] | None:
    c: Corrected | None = metric.corrected
    if c is None:
        return None
    return {
        "value": _num(c.value), "ci": _pair(c.ci), "labels": c.labels, "lambda": _num(c.lam),
        "answers": c.groups, "raw": _num(metric.raw), "label_budget": metric.budget,
        "label_budget_target": _num(metric.target_half_width), "best_half_width": _num(metric.floor_half_width),
        "partly_labelled": metric.partly_labelled,
    }


def corrected_sections(comparison: Comparison) -> dict[str, dict[str, Any]]:
    """metric name → the `corrected` object: {"A", "B", "delta", "delta_ci"} (None where no sampled labels)."""
    per_side = {side: run_corrections(comparison, side) for side in _sides(comparison)}
    out: dict[str, dict[str, Any]] = {}
    for name in ("faithfulness", "utility"):
        entry: dict[str, Any] = {side: _corrected_run(found[name]) for side, found in per_side.items()}
        if "B" in per_side:
            delta, ci = corrected_delta(per_side["A"][name].corrected, per_side["B"][name].corrected, comparison.config.confidence)
            entry["delta"], entry["delta_ci"] = _num(delta), _pair(ci)
        out[name] = entry
    return out
