"""Corrected faithfulness and utility: the judge's value put right by the sampled labels.

Only labels drawn from the random calibration queue (`sampled`) enter the correction:
they are a random sample of the run's answers, so `ppi_mean` (PPI++) is unbiased on them.
Faithfulness counts an answer as labelled once every one of its judged sentences carries
a sampled label (its sentences are the units, the answer the independent group); an
answer labelled only in part stays with the unlabelled ones until it is complete, and is
counted. Utility's unit is the answer.

Each metric's value is stratified by category once every category holds enough labelled
answers (`stratified.py`: λ per category), with a label plan for the narrowest interval and
the number of labels the correction is worth.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ragtui.core.loading.labels import RunLabels
from ragtui.core.measuring.calibration import sentence_units, utility_units
from ragtui.core.measuring.label_values import CorrectedMetric
from ragtui.core.measuring.ppi import (
    MIN_LABELLED_GROUPS,
    Corrected,
    GroupSpread,
    group_residuals,
    label_budget,
    ppi_mean,
    projected_half_widths,
    ratio_variance,
    z_value,
)
from ragtui.core.measuring.stratified import effective_labels, neyman_plan, stratified_estimate

BOUNDS = {"faithfulness": (0.0, 1.0), "utility": (1.0, 5.0)}
# Utility is on a 1–5 scale: "±3 points" is the same share of its range as for a rate.
SCALE = {"faithfulness": 1.0, "utility": 4.0}


def _split(units: pl.DataFrame, labelled: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(units with a person's value `human`, units without) — `labelled` is id(, sentence), human."""
    keys = [c for c in ("id", "sentence") if c in labelled.columns]
    if labelled.height == 0:  # no sampled label (most runs): no join of every unit with nothing
        joined = units.with_columns(pl.lit(None, dtype=labelled.schema["human"]).alias("human"))
        return joined.clear(), joined
    joined = units.join(labelled, on=keys, how="left", maintain_order="left")  # the units' order: the sums add in it
    return joined.filter(pl.col("human").is_not_null()), joined.filter(pl.col("human").is_null())


def _answers(frame: pl.DataFrame) -> np.ndarray:
    """Each unit's answer as a number (equal ids, equal numbers): ppi groups by it. A
    million answers' sentence ids as an array of Python strings took ~0.5 s to build, and
    as long again to rank; polars ranks them in place."""
    return frame.get_column("id").rank("dense").to_numpy()


def _estimate(with_label: pl.DataFrame, without: pl.DataFrame, metric: str, confidence: float) -> Corrected | None:
    def arrays(frame: pl.DataFrame, column: str) -> np.ndarray:
        return frame.get_column(column).cast(pl.Float64).to_numpy()

    return ppi_mean(
        arrays(with_label, "human"),
        arrays(with_label, "judge"),
        _answers(with_label),
        arrays(without, "judge"),
        _answers(without),
        confidence=confidence,
        bounds=BOUNDS[metric],
    )


def _sampled_faithfulness(units: pl.DataFrame, labels: RunLabels) -> tuple[pl.DataFrame, int]:
    """Sampled sentence labels of the answers labelled in full, and how many are partly labelled."""
    frame = labels.sentence_frame().filter(pl.col("sampled")).select("id", "sentence", "human")
    if frame.height == 0:
        return frame, 0
    on_units = units.join(frame, on=["id", "sentence"], how="inner")
    sizes = units.group_by("id").len("size")
    done = on_units.group_by("id").len("have").join(sizes, on="id")
    complete = done.filter(pl.col("have") == pl.col("size")).select("id")
    return frame.join(complete, on="id", how="semi"), done.height - complete.height


def _judge_as_people(units: pl.DataFrame) -> GroupSpread | None:
    """Before two answers are labelled: people assumed to vary as the judge does, and the
    judge assumed of no help (covariance 0) — a budget that errs on the side of more labels."""
    if units.height == 0:
        return None
    values = units.get_column("judge").cast(pl.Float64).to_numpy()
    residuals = group_residuals(values, _answers(units))
    variance = float((residuals**2).sum() / max(residuals.size - 1, 1))
    return GroupSpread(variance, variance, 0.0, variance, 0, int(residuals.size))


def _variance_alone(with_label: pl.DataFrame) -> float:
    """Var of the people's mean alone, answers as the unit: what the labels give without the judge."""
    return ratio_variance(with_label.get_column("human").cast(pl.Float64).to_numpy(), _answers(with_label))[0]


def _correct_one(metric: str, units: pl.DataFrame, labelled: pl.DataFrame, partly: int,
                 confidence: float, max_drop: float) -> CorrectedMetric:
    raw = float(units.get_column("judge").cast(pl.Float64).to_numpy().mean()) if units.height else None
    with_label, without = _split(units, labelled)
    pooled = _estimate(with_label, without, metric, confidence) if with_label.height else None
    by_category: dict[str, Corrected | None] = {}
    weights: dict[str, float] = {}
    spreads: dict[str, GroupSpread] = {}
    have: dict[str, int] = {}
    available: dict[str, int] = {}
    alone: dict[str, float] = {}
    for (category,), group in units.group_by("category", maintain_order=True):
        part_with, part_without = _split(group, labelled)
        found = _estimate(part_with, part_without, metric, confidence) if part_with.height else None
        name = str(category)
        by_category[name] = found
        weights[name] = group.height / units.height
        fallback = _judge_as_people(group)
        spread = found.spread if found is not None and found.groups >= MIN_LABELLED_GROUPS and found.spread is not None else fallback
        if spread is not None:
            spreads[name] = spread
        have[name] = found.groups if found is not None else 0
        available[name] = int(group.get_column("id").n_unique())
        alone[name] = _variance_alone(part_with) if part_with.height else 0.0
    stratified = stratified_estimate(by_category, weights, confidence=confidence, bounds=BOUNDS[metric])
    corrected = stratified if stratified is not None else pooled
    target = max_drop * SCALE[metric]
    spread = pooled.spread if pooled is not None and pooled.groups >= MIN_LABELLED_GROUPS else _judge_as_people(units)
    budget = label_budget(spread, target, confidence=confidence) if spread is not None else None
    floor = float(projected_half_widths(spread, confidence)[-1]) if spread is not None else None
    lambdas = {k: c.lam for k, c in by_category.items() if c is not None}
    plan = neyman_plan(spreads, lambdas, weights, have, available, target, confidence) if spreads else None
    worth = None
    if corrected is not None and not corrected.too_few:
        variance_alone = sum(weights[k] ** 2 * alone[k] for k in alone) if stratified is not None else _variance_alone(with_label)
        worth = effective_labels(corrected, variance_alone)
    return CorrectedMetric(
        metric, raw, corrected, budget, target, floor, partly, dict(sorted(by_category.items())),
        stratified=stratified is not None, plan=plan, effective_labels=worth,
    )


def corrects_anything(labels: RunLabels) -> bool:
    """Whether `correct` can give a corrected value: only sampled labels enter it, so
    without one every value's `corrected` is None (its label plan is still worked out)."""
    return labels.count(sampled_only=True) > 0


def correct(questions: pl.DataFrame, labels: RunLabels, *, confidence: float = 0.95,
            max_drop: float = 0.03) -> dict[str, CorrectedMetric]:
    """Corrected faithfulness and utility of one run (an Evaluation's frame and its labels)."""
    sentences = sentence_units(questions)
    sampled_sentences, partly = _sampled_faithfulness(sentences, labels)
    utility = utility_units(questions)
    sampled_utility = labels.utility_frame().filter(pl.col("sampled")).select("id", "human")
    return {
        "faithfulness": _correct_one("faithfulness", sentences, sampled_sentences, partly, confidence, max_drop),
        "utility": _correct_one("utility", utility, sampled_utility, 0, confidence, max_drop),
    }


def corrected_delta(a: Corrected | None, b: Corrected | None, confidence: float = 0.95) -> tuple[float | None, tuple[float, float] | None]:
    """Δ = corrected B − corrected A, its interval from both runs' variances (independent samples).

    Each run's variance enters with its own t quantile, √(t_A²·Var_A + t_B²·Var_B): the
    interval of Δ is never narrower than either run's own.
    """
    if a is None or b is None or a.too_few or b.too_few:
        return None, None
    delta = b.value - a.value
    if a.variance is None or b.variance is None:
        return delta, None
    quantile_a = a.quantile if a.quantile is not None else z_value(confidence)
    quantile_b = b.quantile if b.quantile is not None else z_value(confidence)
    half = math.sqrt(quantile_a**2 * a.variance + quantile_b**2 * b.variance)
    return delta, (delta - half, delta + half)
