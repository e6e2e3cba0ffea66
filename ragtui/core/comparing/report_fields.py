"""The fields of one metric in the report document (docs/cli.md), shared by ragtui's own
metrics (`report.py`) and a peer tool's (`tool_report.py`)."""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.result import NO_READING, MetricComparison, Power, TargetReading
from ragtui.core.vocabulary import json_number as _num


def metric_fields(m: MetricComparison, two_runs: bool, unavailable: dict[str, frozenset[str]] | None = None) -> dict[str, Any]:
    """One metric's fields in the report: values, Δ, intervals, verdicts, targets, power, n."""
    digits = m.spec.json_digits
    out: dict[str, Any] = {"A": _num(m.a.value, digits)}
    if two_runs and m.b is not None:
        out["B"] = _num(m.b.value, digits)
        out["delta"] = _num(m.delta, digits)
        out["ci"] = [_num(m.ci[0], digits), _num(m.ci[1], digits)] if m.ci else None
        out["p_value"] = p_value(m.p_value)
    out["target"] = m.target
    out.update(target_fields(m.targets, ("A", "B") if two_runs else ("A",), digits))
    if two_runs:
        out["verdict"] = m.verdict
        out["drop_flagged"] = m.drop_flagged
        out["judge_changed"] = m.judge_changed
        out.update(power_fields(m.power))
        out["clusters"], out["design_effect"] = m.clusters, _num(m.design_effect)
    out["n"] = m.n if two_runs else m.a.n
    out["n_by_run"] = {"A": m.a.n, **({"B": m.b.n} if two_runs and m.b else {})}
    out["higher_is_better"] = m.spec.higher_is_better
    # Runs where the metric measured nothing although it had questions to measure.
    out["not_available"] = [side for side, names in (unavailable or {}).items() if m.name in names]
    return out


def target_fields(readings: dict[str, TargetReading], runs: tuple[str, ...], digits: int = 4) -> dict[str, Any]:
    """`meets_target` (meets / misses / inconclusive, or null) and `ci_by_run`, each run's own interval."""
    chosen = {run: readings.get(run, NO_READING) for run in runs}
    return {
        "meets_target": {run: r.verdict for run, r in chosen.items()},
        "ci_by_run": {run: [_num(r.ci[0], digits), _num(r.ci[1], digits)] if r.ci else None for run, r in chosen.items()},
    }


def power_fields(power: Power | None) -> dict[str, Any]:
    """`mde` (in the metric's units, like `delta`) and `n_needed` (questions for a drop of max_drop)."""
    if power is None:
        return {"mde": None, "n_needed": None}
    return {"mde": _num(power.mde), "n_needed": power.n_needed}


def p_value(value: float | None) -> float | None:
    """A p-value for the document: they can be tiny, so 4 significant digits rather than 4 decimals."""
    return None if value is None else float(f"{value:.4g}")
