"""Text and markdown lines of the calibration section, the corrected metrics and the judge noise.

Reads the report document only (`calibration`, `metrics.*.corrected`, `judge_noise`,
`metrics.*.flip_rate`); the words and
number formats are `ragtui.core.calibration_words`, shared with the app.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.calibration_words import (
    CONFUSION_TEXT,
    NO_SAMPLED,
    bias_text,
    budget_text,
    cal_interval,
    corrected_text,
    noise_text,
    plan_text,
    worth_text,
)
from ragtui.core.comparing.report_model import MetricFields, Report
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import delta_text, percent_text


def _bias(metric: str, bias: dict[str, Any] | None) -> str | None:
    return None if bias is None else bias_text(metric, bias["value"], bias["ci"], bias["labels"])


def calibration_detail_lines(c: dict[str, Any], category_names: dict[str, str] | None = None) -> list[str]:
    """The lines under a run's agreement line: labels, per category, confusion, bias.

    `category_names`: display names by category, as the report's `categories` give them.
    """
    names = category_names or {}
    where = neutralize(c.get("labels_file") or "in the run", keep_newlines=False)
    lines = [f"{c['labels']} labels ({c['labels_sampled']} from the random queue) · {where}"]
    parts = []
    for category, a in c["by_category"].items():
        if a["agreement"] is None:
            continue
        kappa = f" κ {a['kappa']:.2f}" if a["kappa"] is not None else ""
        parts.append(f"{neutralize(names.get(category, category), keep_newlines=False)} {percent_text(a['agreement'], digits=0)}{kappa} ({a['sentences']})")
    if parts:
        lines.append("by category: " + " · ".join(parts))
    if c["sentences"]:
        lines.append("judge × person: " + " · ".join(f"{CONFUSION_TEXT[k]} {v}" for k, v in c["confusion"].items()))
    if c["unmatched_labels"]:
        lines.append(f"{c['unmatched_labels']} labels outside the metrics (abstentions, judge errors, unknown sentences): not compared")
    biases = [b for b in (_bias("faithfulness", c["faithfulness_bias"]), _bias("utility", c["utility_bias"])) if b]
    if biases:
        lines.append("bias (judge − person, sampled labels): " + "; ".join(biases))
    elif c["labels_sampled"] == 0:
        lines.append(NO_SAMPLED)
    return lines


def side_value(metric: MetricFields, side: str) -> float | None:
    """A run's value of a metric ("A" or "B")."""
    return metric["A"] if side == "A" else metric.get("B")


def corrected_lines(report: Report) -> list[tuple[str, str]]:
    """(prefix, text) pairs: one per metric and run, its label plan, then the corrected Δ."""
    categories = report["categories"]

    def names(category: str) -> str:
        found = categories.get(category)
        return neutralize(str(found["name"] if found else category), keep_newlines=False)

    out: list[tuple[str, str]] = []
    for metric in ("faithfulness", "utility"):
        entry = report["metrics"][metric].get("corrected") if metric in report["metrics"] else None
        if not entry or all(entry.get(side) is None for side in report["runs"]):
            continue
        for side in report["runs"]:
            c = entry.get(side)
            raw = side_value(report["metrics"][metric], side)
            if c is None:
                out.append((f"  {metric} {side}: ", corrected_text(metric, raw, None, None, 0)))
                continue
            if c.get("too_few_to_correct"):
                out.append((f"  {metric} {side}: ", corrected_text(metric, raw, None, None, c["labels"], too_few=True)))
                continue
            text = corrected_text(metric, raw, c["value"], c["ci"], c["labels"]) + f", λ {c['lambda']:.2f}"
            budget = budget_text(metric, c["label_budget"], c["label_budget_target"], c["best_half_width"])
            text += f"; {budget}" if budget else ""
            if c.get("partly_labelled"):
                text += f"; {c['partly_labelled']} answers partly labelled, left out until complete"
            if c.get("stratified"):
                text += "; stratified by category (λ per category)"
            if c.get("effective_labels") is not None:
                text += "; " + worth_text(c["effective_labels"], c["answers"], weak=c["weak_judge"])
            out.append((f"  {metric} {side}: ", text))
        for side, plan in (entry.get("label_plan") or {}).items():
            if plan is not None and plan["total"] is not None and entry.get(side) is not None:
                following = plan["next"] or {}
                name = names(following["category"]) if following.get("category") else None
                out.append((f"  {metric} {side} plan: ", plan_text(metric, name, following.get("more", 0), plan["target_half_width"], plan["total"])))
        if entry.get("delta") is not None:
            out.append((f"  {metric} Δ: ", f"{delta_text(entry['delta'], metric_by_name(metric))}{cal_interval(metric, entry['delta_ci'], signed=True)} (corrected B − corrected A)"))
    return out


NOISE_TITLE = "Judge noise (verdicts that change when the judge is asked again):"


def noise_lines(report: Report) -> list[tuple[str, str]]:
    """(prefix, text) per run judged more than once; [] when none was."""
    runs = report.get("judge_noise") or {}
    out = []
    for side, noise in runs.items():
        if noise is None:
            out.append((f"  {side}: ", "judged once: no repetitions to compare"))
            continue
        rates = []
        for metric in ("faithfulness", "utility"):
            rate = ((report["metrics"][metric].get("flip_rate") if metric in report["metrics"] else None) or {}).get(side)
            if rate is not None:
                rates.append((metric, rate["flipped"], rate["units"]))
        out.append((f"  {side}: ", noise_text(noise["repeats"], noise["answers"], rates, noise["unstable_questions"], noise["left_out"])))
    return out
