"""The correction per category: stratified PPI++, the label plan, and what the judge is worth."""

from __future__ import annotations

import numpy as np
import pytest

from ragtui.core.measuring.label_values import GroupSpread
from ragtui.core.measuring.ppi import ppi_mean, ratio_variance
from ragtui.core.measuring.stratified import MIN_STRATUM_ANSWERS, effective_labels, neyman_plan, stratified_estimate

# Four categories: the judge is near perfect on short facts, poor on contradictions.
CATEGORIES = {"short": (60, 0.02), "procedural": (40, 0.10), "contradiction": (25, 0.40), "none": (25, 0.15)}


def _category(rng: np.random.Generator, answers: int, judge_error: float, labelled: int):
    sizes = rng.integers(1, 5, size=answers)
    groups = np.repeat(np.arange(answers), sizes)
    quality = rng.beta(3, 1, size=answers)[groups]
    y = (rng.random(groups.size) < quality).astype(float)
    f = np.where(rng.random(groups.size) < judge_error, 1.0, y)  # errs towards "attested"
    chosen = np.zeros(answers, dtype=bool)
    chosen[rng.choice(answers, size=labelled, replace=False)] = True
    mask = chosen[groups]
    return y, (y[mask], f[mask], groups[mask]), (f[~mask], groups[~mask])


def _gold_set(rng: np.random.Generator, labelled: int):
    truth_num = truth_den = 0.0
    estimates, weights = {}, {}
    total = 0
    parts = {}
    for name, (answers, error) in CATEGORIES.items():
        y, with_label, without = _category(rng, answers, error, labelled)
        parts[name] = (y, with_label, without)
        total += y.size
    for name, (y, (yl, fl, gl), (fu, gu)) in parts.items():
        truth_num += y.sum()
        truth_den += y.size
        weights[name] = y.size / total
        estimates[name] = ppi_mean(yl, fl, gl, fu, gu, bounds=(0.0, 1.0))
    return truth_num / truth_den, estimates, weights


def test_stratified_ppi_covers_at_nominal_with_ten_labelled_answers_per_category():
    rng = np.random.default_rng(3402)
    runs, covered = 1000, 0
    for _ in range(runs):
        truth, estimates, weights = _gold_set(rng, labelled=10)
        result = stratified_estimate(estimates, weights, confidence=0.95, bounds=(0.0, 1.0))
        assert result is not None
        covered += result.ci[0] <= truth <= result.ci[1]
    assert covered / runs >= 0.93


def test_stratified_value_is_the_weighted_sum_of_the_categories_and_needs_labels_in_each():
    rng = np.random.default_rng(1)
    _, estimates, weights = _gold_set(rng, labelled=MIN_STRATUM_ANSWERS)
    result = stratified_estimate(estimates, weights, confidence=0.95, bounds=(0.0, 1.0))
    assert result is not None
    assert result.value == pytest.approx(sum(weights[k] * estimates[k].value for k in estimates))
    assert result.variance == pytest.approx(sum(weights[k] ** 2 * estimates[k].variance for k in estimates))
    assert result.groups == MIN_STRATUM_ANSWERS * len(CATEGORIES)
    _, fewer, weights = _gold_set(rng, labelled=MIN_STRATUM_ANSWERS - 1)
    assert stratified_estimate(fewer, weights, confidence=0.95, bounds=(0.0, 1.0)) is None


def test_the_label_plan_sends_labels_where_the_judge_is_weak_and_the_category_large():
    # Same size, same people; the judge helps in "a" (covariance high) and not in "b".
    helped = GroupSpread(people=0.2, judge=0.2, covariance=0.19, unlabelled=0.2, labelled_groups=10, unlabelled_groups=90)
    alone = GroupSpread(people=0.2, judge=0.2, covariance=0.0, unlabelled=0.2, labelled_groups=10, unlabelled_groups=90)
    plan = neyman_plan(
        {"a": helped, "b": alone}, {"a": 0.9, "b": 0.0}, {"a": 0.5, "b": 0.5},
        have={"a": 10, "b": 10}, available={"a": 1000, "b": 1000}, target_half_width=0.06, confidence=0.95,
    )
    assert plan.next_category == "b"
    assert plan.by_category["b"].needed > plan.by_category["a"].needed
    # Neyman: n_k ∝ w_k σ_k, σ_a = √(0.2 − 2·0.9·0.19 + 0.81·0.2) = √0.02, σ_b = √0.2.
    share = plan.by_category["b"].needed / (plan.by_category["a"].needed + plan.by_category["b"].needed)
    assert share == pytest.approx(0.2**0.5 / (0.2**0.5 + 0.02**0.5), abs=0.03)
    unreachable = neyman_plan(
        {"b": alone}, {"b": 0.0}, {"b": 1.0}, have={"b": 10}, available={"b": 20}, target_half_width=0.01, confidence=0.95,
    )
    assert unreachable.total is None


def test_a_judge_that_knows_nothing_is_worth_no_more_than_its_labels_and_is_called_too_weak():
    from ragtui.core.measuring.label_values import CorrectedMetric

    rng = np.random.default_rng(8)
    groups = np.arange(200)
    y = (rng.random(200) < 0.7).astype(float)
    noise = (rng.random(200) < 0.5).astype(float)  # the judge flips coins
    labelled = groups < 30
    result = ppi_mean(y[labelled], noise[labelled], groups[labelled], noise[~labelled], groups[~labelled])
    alone, _ = ratio_variance(y[labelled], groups[labelled])
    worth = effective_labels(result, alone)
    assert worth is not None and worth <= 30 * 1.05
    metric = CorrectedMetric("faithfulness", 0.5, result, None, 0.03, effective_labels=worth)
    assert metric.weak_judge
    # A good judge: the same labels count for much more.
    good = np.where(rng.random(200) < 0.95, y, 1 - y)
    strong = ppi_mean(y[labelled], good[labelled], groups[labelled], good[~labelled], groups[~labelled])
    assert effective_labels(strong, alone) > 2 * 30
