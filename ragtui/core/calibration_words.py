"""The words and number formats of calibration and judge noise, for the app and the reports alike.

`87.5 % · corrected 84.1 % (79.0…89.2), 40 sentence labels` — a corrected value always
sits beside the raw one; the bias is signed (judge − person), in points for sentences
and in score units for utility. Plain numbers in, plain text out: no Textual, no polars.
"""

from __future__ import annotations

from ragtui.core.measuring.label_values import MIN_CORRECTED_ANSWERS
from ragtui.core.measuring.metric_specs import is_score
from ragtui.core.vocabulary import MINUS

NO_SAMPLED = "no labels from the random queue yet: the bias and corrected values need them (L)"
OUTSIDE_QUEUE = "labels made outside the queue count for agreement and κ, not for the correction"
CONFUSION_TEXT = {
    "judge_yes_person_yes": "both attested",
    "judge_yes_person_no": "judge only",
    "judge_no_person_yes": "person only",
    "judge_no_person_no": "neither",
}


def cal_value(metric: str, value: float) -> str:
    """`84.1 %` for a rate, `3.78` for utility."""
    return f"{value:.2f}" if is_score(metric) else f"{value * 100:.1f} %"


def cal_signed(metric: str, value: float, *, unit: bool = True) -> str:
    """`+4.2 pts` / `−0.20` (a real minus sign)."""
    text = f"{value:+.2f}" if is_score(metric) else f"{value * 100:+.1f}" + (" pts" if unit else "")
    return text.replace("-", MINUS)


def cal_interval(metric: str, ci: tuple[float, float] | list | None, *, signed: bool = False) -> str:
    """` (79.0…89.2)`, or `` without an interval."""
    if not ci or ci[0] is None:
        return ""
    if signed:
        low, high = (cal_signed(metric, v, unit=False) for v in ci)
    else:
        low, high = (cal_value(metric, v).replace(" %", "") for v in ci)
    return f" ({low}…{high})"


def half_width_text(metric: str, value: float) -> str:
    return f"±{value:.2f}" if is_score(metric) else f"±{value * 100:.1f} pts"


def too_few_text(labels: int, *, why: bool = True) -> str:
    """`2 labels — too few to correct`: said instead of a corrected value under the minimum
    (with `why`, followed by the minimum)."""
    text = f"{labels} labels — too few to correct"
    return text + f" (it takes {MIN_CORRECTED_ANSWERS} labelled answers)" if why else text


def corrected_text(metric: str, raw: float | None, value: float | None, ci, labels: int, *, too_few: bool = False) -> str:
    """`87.5 % · corrected 84.1 % (79.0…89.2), 40 sentence labels` — or the raw value alone."""
    head = "n/a" if raw is None else cal_value(metric, raw)
    if too_few:
        return f"{head} · {too_few_text(labels)}"
    if value is None:
        return f"{head} · not corrected (no sampled labels)"
    unit = "sentence labels" if metric == "faithfulness" else "labels"
    text = f"{head} · corrected {cal_value(metric, value)}{cal_interval(metric, ci)}, {labels} {unit}"
    return text if ci else text + " (an interval needs 2 labelled answers)"


def budget_text(metric: str, budget: int | None, target: float, best: float | None) -> str | None:
    """`label ≈ 35 more answers from the queue for ±3.0 pts`."""
    wanted = half_width_text(metric, target)
    if budget is None:
        return None if best is None else f"even labelling every answer leaves {half_width_text(metric, best)}, not {wanted}"
    if budget == 0:
        return f"within {wanted}"
    return f"label ≈ {budget} more answers from the queue for {wanted}"


def plan_text(metric: str, category: str | None, more: int, target: float, total: int | None) -> str:
    """`label 12 more in Procedural to reach ±3.0 pts` (Neyman allocation over the categories)."""
    wanted = half_width_text(metric, target)
    if total is None:
        return f"{wanted} is out of reach even with every answer labelled"
    if category is None:
        return f"the labels per category already reach {wanted}"
    return f"label {more} more in {category} to reach {wanted}"


def queue_plan_text(category: str) -> str:
    """`queue: Procedural first, as the label plan asks` (the calibration queue's order)."""
    return f"queue: {category} first, as the label plan asks"


def worth_text(effective: float, labelled: int, *, weak: bool) -> str:
    """`the judge makes 12 labelled answers worth 19.4`, or the warning that it is too weak to help."""
    if weak:
        return f"the judge is too weak to help: {labelled} labelled answers are worth {effective:.1f} with it — label more"
    return f"the judge makes {labelled} labelled answers worth {effective:.1f}"


def bias_text(metric: str, value: float, ci, labels: int) -> str:
    """`faithfulness +4.2 pts (+1.0…+7.4) on 40`."""
    return f"{metric} {cal_signed(metric, value)}{cal_interval(metric, ci, signed=True)} on {labels}"


def flip_rate_text(metric: str, flipped: int, units: int) -> str:
    """`faithfulness 4.0 % flip (3 of 75 sentences)`."""
    what = "sentences" if metric == "faithfulness" else "scores"
    if not units:
        return f"{metric}: no {what} judged twice"
    return f"{metric} {flipped / units * 100:.1f} % flip ({flipped} of {units} {what})"


def noise_text(repeats: int, answers: int, rates: list[tuple[str, int, int]], unstable: int, left_out: int) -> str:
    """`3 repetitions of 40 answers: faithfulness 4.0 % flip (3 of 75 sentences); … ; 5 unstable verdicts`."""
    parts = [flip_rate_text(metric, flipped, units) for metric, flipped, units in rates]
    text = f"{repeats} repetitions of {answers} answers: " + "; ".join(parts) + f"; {unstable} unstable verdict{'s' if unstable != 1 else ''}"
    if left_out:
        text += f"; {left_out} repetitions without comparable verdicts (judge errors) left out"
    return text
