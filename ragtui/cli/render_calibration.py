"""Text and markdown lines of the calibration section and the corrected metrics.

Reads the report document only (`calibration`, `metrics.*.corrected`); one number format
for a corrected value, `corrected_text`, shared by both views.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.sanitize import neutralize

CONFUSION_TEXT = {
    "judge_yes_person_yes": "both attested",
    "judge_yes_person_no": "judge only",
    "judge_no_person_yes": "person only",
    "judge_no_person_no": "neither",
}
NO_SAMPLED = "no labels from the random queue yet: bias and corrected values need them (L in the app)"


def _value(metric: str, value: float) -> str:
    return f"{value:.2f}" if metric == "utility" else f"{value * 100:.1f} %"


def _signed(metric: str, value: float) -> str:
    text = f"{value:+.2f}" if metric == "utility" else f"{value * 100:+.1f} pts"
    return text.replace("-", "−")


def _interval(metric: str, ci: list | None, *, signed: bool = False) -> str:
    if not ci:
        return ""
    if signed:
        low, high = (_signed(metric, v).replace(" pts", "") for v in ci)
    else:
        low, high = (_value(metric, v).replace(" %", "") for v in ci)
    return f" ({low}…{high})"


def corrected_text(metric: str, raw: float | None, corrected: dict[str, Any] | None) -> str:
    """`87.5 % · corrected 84.1 % (79.0…89.2), 40 labels` — or the raw value alone."""
    head = "n/a" if raw is None else _value(metric, raw)
    if corrected is None:
        return f"{head} · not corrected (no sampled labels)"
    unit = "sentence labels" if metric == "faithfulness" else "labels"
    text = f"{head} · corrected {_value(metric, corrected['value'])}{_interval(metric, corrected['ci'])}, {corrected['labels']} {unit}"
    if corrected["ci"] is None:
        text += " (an interval needs 2 labelled answers)"
    return text


def _half(metric: str, value: float) -> str:
    return f"±{value:.2f}" if metric == "utility" else f"±{value * 100:.1f} pts"


def budget_text(metric: str, corrected: dict[str, Any] | None) -> str | None:
    """`label ≈ 35 more answers for ±3 pts` — where the corrected value is."""
    if corrected is None:
        return None
    budget = corrected.get("label_budget")
    target = _half(metric, corrected["label_budget_target"])
    if budget is None:
        best = corrected.get("best_half_width")
        return f"even labelling every answer leaves {_half(metric, best)}, not under {target}" if best is not None else None
    if budget == 0:
        return f"within {target}"
    return f"label ≈ {budget} more answers from the queue for {target}"


def _bias_text(metric: str, bias: dict[str, Any] | None) -> str | None:
    if bias is None:
        return None
    return f"{metric} {_signed(metric, bias['value'])}{_interval(metric, bias['ci'], signed=True)} on {bias['labels']}"


def calibration_detail_lines(c: dict[str, Any], category_names: dict[str, str] | None = None) -> list[str]:
    """The lines under a run's agreement line: labels, per category, confusion, bias.

    `category_names`: display names by category, as the report's `categories` give them.
    """
    names = category_names or {}
    lines = [f"{c['labels']} labels ({c['labels_sampled']} from the random queue) · {neutralize(c.get('labels_file') or 'in the run', keep_newlines=False)}"]
    if c["by_category"]:
        parts = []
        for category, a in c["by_category"].items():
            if a["agreement"] is None:
                continue
            kappa = f" κ {a['kappa']:.2f}" if a["kappa"] is not None else ""
            parts.append(f"{neutralize(names.get(category, category), keep_newlines=False)} {a['agreement']:.0%}{kappa} ({a['sentences']})")
        if parts:
            lines.append("by category: " + " · ".join(parts))
    if c["sentences"]:
        lines.append("judge × person: " + " · ".join(f"{CONFUSION_TEXT[k]} {v}" for k, v in c["confusion"].items()))
    if c["unmatched_labels"]:
        lines.append(f"{c['unmatched_labels']} labels outside the metrics (abstentions, judge errors, unknown sentences): not compared")
    biases = [b for b in (_bias_text("faithfulness", c["faithfulness_bias"]), _bias_text("utility", c["utility_bias"])) if b]
    if biases:
        lines.append("bias (judge − person, sampled labels): " + "; ".join(biases))
    elif c["labels_sampled"] == 0:
        lines.append(NO_SAMPLED)
    return lines


def corrected_lines(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(prefix, text) pairs: one per metric and run, then the corrected Δ."""
    out: list[tuple[str, str]] = []
    for metric in ("faithfulness", "utility"):
        entry = report["metrics"].get(metric, {}).get("corrected")
        if not entry or all(entry.get(side) is None for side in report["runs"]):
            continue
        for side in report["runs"]:
            corrected = entry.get(side)
            text = corrected_text(metric, report["metrics"][metric].get(side), corrected)
            if corrected is not None:
                text += f", λ {corrected['lambda']:.2f}"
                budget = budget_text(metric, corrected)
                text += f"; {budget}" if budget else ""
                if corrected.get("partly_labelled"):
                    text += f"; {corrected['partly_labelled']} answers partly labelled, left out until complete"
            out.append((f"  {metric} {side}: ", text))
        if entry.get("delta") is not None:
            out.append((f"  {metric} Δ: ", f"{_signed(metric, entry['delta'])}{_interval(metric, entry['delta_ci'], signed=True)} (corrected B − corrected A)"))
    return out
