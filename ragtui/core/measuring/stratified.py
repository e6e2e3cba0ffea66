"""The correction per category: stratified PPI++, the label plan, and what the judge is worth.

Judges are better on short facts than on contradictions, so one λ for every answer wastes
the judge where it is good and trusts it where it is not. With labels in every category:

- stratified PPI++ (Fisch et al. 2024): each category k gets its own PPI++ value θ̂_k, with
  its own λ_k, and the corrected value is Σ_k w_k·θ̂_k, w_k the category's share of the
  units (sentences for faithfulness, answers for utility); Var = Σ_k w_k²·Var_k, read
  against t with Satterthwaite's degrees of freedom (Σ w_k²V_k)² / Σ (w_k²V_k)²/df_k.
  Used once every category holds `MIN_STRATUM_ANSWERS` labelled answers; before that the
  pooled PPI++ value stands (a category's variance from 2 answers is not one to lean on).
- the label plan (Neyman allocation): for a half-width h, n_k ∝ w_k·σ_k with σ_k the spread
  of an answer's rectified value Y − λ_k·f in category k, and n = (Σ w_k σ_k)² / ((h/z)² − U),
  U the part of the variance the unlabelled answers carry; "label 12 more in Procedural".
- the effective number of labels: labelled answers × Var(labels alone) / Var(θ̂) — how many
  labels without the judge would give the same interval; under 1.1 × the labels, the judge
  is too weak to help (`CorrectedMetric.weak_judge`).
"""

from __future__ import annotations

import math

from ragtui.core.measuring.distributions import t_quantile
from ragtui.core.measuring.label_values import Corrected, GroupSpread, LabelPlan, PlannedCategory
from ragtui.core.measuring.ppi import z_value

MIN_STRATUM_ANSWERS = 5


def _degrees_of_freedom(c: Corrected) -> int:
    return c.groups - 1 - (1 if c.lam > 0 else 0)


def stratified_estimate(
    by_category: dict[str, Corrected | None], weights: dict[str, float], *, confidence: float, bounds: tuple[float, float]
) -> Corrected | None:
    """Σ w_k θ̂_k with its interval; None unless every weighted category has enough labelled answers."""
    parts = [(weights[k], c) for k, c in by_category.items() if weights.get(k, 0) > 0]
    if len(parts) < 2 or any(c is None or c.groups < MIN_STRATUM_ANSWERS or c.variance is None for _, c in parts):
        return None
    chosen = [(w, c) for w, c in parts if c is not None and c.variance is not None]
    value = sum(w * c.value for w, c in chosen)
    pieces = [(w * w * c.variance, _degrees_of_freedom(c)) for w, c in chosen if c.variance is not None]
    variance = sum(piece for piece, _ in pieces)
    denominator = sum(piece * piece / df for piece, df in pieces if df > 0)
    df = variance * variance / denominator if denominator > 0 else math.inf
    quantile = t_quantile(confidence, df)
    half = quantile * math.sqrt(variance)
    low, high = max(value - half, bounds[0]), min(value + half, bounds[1])
    value = min(max(value, bounds[0]), bounds[1])
    return Corrected(
        value=value, ci=(low, high),
        labels=sum(c.labels for _, c in chosen), groups=sum(c.groups for _, c in chosen),
        lam=sum(w * c.lam for w, c in chosen), variance=variance, quantile=quantile,
    )


def _rectified_spread(spread: GroupSpread, lam: float) -> float:
    return math.sqrt(max(spread.people - 2 * lam * spread.covariance + lam * lam * spread.judge, 0.0))


def neyman_plan(
    spreads: dict[str, GroupSpread], lambdas: dict[str, float], weights: dict[str, float],
    have: dict[str, int], available: dict[str, int], target_half_width: float, confidence: float,
) -> LabelPlan:
    """Labelled answers per category for the target half-width, by Neyman allocation."""
    sigma = {k: weights[k] * _rectified_spread(spreads[k], lambdas.get(k, 0.0)) for k in spreads}
    unlabelled = sum(
        weights[k] ** 2 * lambdas.get(k, 0.0) ** 2 * spreads[k].unlabelled / spreads[k].unlabelled_groups
        for k in spreads if spreads[k].unlabelled_groups > 0
    )
    room = (target_half_width / z_value(confidence)) ** 2 - unlabelled
    spread_sum = sum(sigma.values())
    if room <= 0:
        needed = dict(available)
        total = None
    else:
        n = spread_sum**2 / room
        needed = {k: math.ceil(n * sigma[k] / spread_sum) if spread_sum > 0 else 0 for k in spreads}
        total = sum(needed.values()) if all(needed[k] <= available[k] for k in spreads) else None
        needed = {k: min(needed[k], available[k]) for k in spreads}
    by_category = {k: PlannedCategory(have[k], needed[k], max(0, needed[k] - have[k])) for k in sorted(spreads)}
    gaps = {k: plan.more for k, plan in by_category.items() if plan.more > 0}
    return LabelPlan(target_half_width, total, by_category, max(gaps, key=lambda k: gaps[k]) if gaps else None)


def effective_labels(corrected: Corrected, variance_alone: float) -> float | None:
    """Labelled answers × Var(labels alone) / Var(θ̂): the labels the correction is worth."""
    if corrected.variance is None or corrected.variance <= 0:
        return None
    return corrected.groups * variance_alone / corrected.variance
