"""The words and number formats of calibration and judge noise, for the app and the reports alike.

`87.5% · corrected 84.1% (79.0…89.2%), 40 sentence labels` — a corrected value always
sits beside the raw one; the bias is signed (judge − person), in points for sentences
and in score units for utility. The numbers are `ragtui.core.vocabulary`'s formats, the
scale the metric's spec. Plain numbers in, plain text out: no Textual, no polars.
"""

from __future__ import annotations

from ragtui.core.measuring.label_values import MIN_CORRECTED_ANSWERS
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import ci_text, delta_text, half_width_text, interval_text, percent_text, value_text

NO_SAMPLED = "no labels from the random queue yet: the bias and corrected values need them (L)"
OUTSIDE_QUEUE = "labels made outside the queue count for agreement and κ, not for the correction"
CONFUSION_TEXT = {
    "judge_yes_person_yes": "both attested",
    "judge_yes_person_no": "judge only",
    "judge_no_person_yes": "person only",
    "judge_no_person_no": "neither",
}


def cal_interval(metric: str, ci: tuple[float, float] | list | None, *, signed: bool = False) -> str:
    """` (79.0…89.2%)` (a value's interval), ` (−1.0…+7.4)` (`signed`: a Δ's or a bias's), or ``
    without an interval: `vocabulary.interval_text` and `ci_text` in parentheses."""
    spec = metric_by_name(metric)
    text = ci_text(ci, spec) if signed else interval_text(ci, spec)
    return "" if text == "n/a" else f" ({text})"


def too_few_text(labels: int, *, why: bool = True) -> str:
    """`2 labels — too few to correct`: said instead of a corrected value under the minimum
    (with `why`, followed by the minimum)."""
    text = f"{labels} labels — too few to correct"
    return text + f" (it takes {MIN_CORRECTED_ANSWERS} labelled answers)" if why else text


def corrected_text(metric: str, raw: float | None, value: float | None, ci, labels: int, *, too_few: bool = False) -> str:
    """`87.5% · corrected 84.1% (79.0…89.2%), 40 sentence labels` — or the raw value alone."""
    spec = metric_by_name(metric)
    head = value_text(raw, spec)
    if too_few:
        return f"{head} · {too_few_text(labels)}"
    if value is None:
        return f"{head} · not corrected (no sampled labels)"
    unit = "sentence labels" if metric == "faithfulness" else "labels"
    text = f"{head} · corrected {value_text(value, spec)}{cal_interval(metric, ci)}, {labels} {unit}"
    return text if ci else text + " (an interval needs 2 labelled answers)"


def budget_text(metric: str, budget: int | None, target: float, best: float | None) -> str | None:
    """`label ≈ 35 more answers from the queue for ±3.0 pts`."""
    spec = metric_by_name(metric)
    wanted = half_width_text(target, spec)
    if budget is None:
        return None if best is None else f"even labelling every answer leaves {half_width_text(best, spec)}, not {wanted}"
    if budget == 0:
        return f"within {wanted}"
    return f"label ≈ {budget} more answers from the queue for {wanted}"


def plan_text(metric: str, category: str | None, more: int, target: float, total: int | None) -> str:
    """`label 12 more in Procedural to reach ±3.0 pts` (Neyman allocation over the categories)."""
    wanted = half_width_text(target, metric_by_name(metric))
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
    return f"{metric} {delta_text(value, metric_by_name(metric))}{cal_interval(metric, ci, signed=True)} on {labels}"


def flip_rate_text(metric: str, flipped: int, units: int) -> str:
    """`faithfulness 4.0% flip (3 of 75 sentences)`."""
    what = "sentences" if metric == "faithfulness" else "scores"
    if not units:
        return f"{metric}: no {what} judged twice"
    return f"{metric} {percent_text(flipped / units)} flip ({flipped} of {units} {what})"


def noise_text(repeats: int, answers: int, rates: list[tuple[str, int, int]], unstable: int, left_out: int) -> str:
    """`3 repetitions of 40 answers: faithfulness 4.0% flip (3 of 75 sentences); … ; 5 unstable verdicts`."""
    parts = [flip_rate_text(metric, flipped, units) for metric, flipped, units in rates]
    text = f"{repeats} repetitions of {answers} answers: " + "; ".join(parts) + f"; {unstable} unstable verdict{'s' if unstable != 1 else ''}"
    if left_out:
        text += f"; {left_out} repetitions without comparable verdicts (judge errors) left out"
    return text
