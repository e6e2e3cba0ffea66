"""The t interval that replaces the bootstrap for a many-valued mean at thousands of questions.

From `stats.T_INTERVAL_FROM` questions on, Δ of a mean whose values differ on nearly every
question (cost, tokens) gets the t interval of its linearisation (`clustered.independent_change`)
and its dual p; below that size, and for metrics of few distinct values at any size, the
bootstrap stays. Coverage is checked by a seeded simulation at the switch size on costs as
skewed as real ones: log-normal (sd 1 on the log scale), 10 % free answers, 1 % system errors
(a question out of that run's mean), B dearer by 3 % — 400 comparisons drawn from a population
of 200,000 pairs whose Δ is the truth. Measured with these seeds: 95.0 % (bench/bench_large_means.py
prints it beside the bootstrap's, for harsher costs too).
"""

from __future__ import annotations

import numpy as np
import pytest

from ragtui.core.comparing.clustered import independent_change, independent_ratio
from ragtui.core.comparing.intervals import paired_change
from ragtui.core.comparing.stats import T_INTERVAL_FROM
from ragtui.core.measuring.metric_specs import metric_by_name

COST = metric_by_name("cost_usd")


def _costs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    base = 0.0005 * rng.lognormal(-0.5, 1.0, n)
    num_a = base * (rng.random(n) >= 0.10)
    num_b = base * rng.lognormal(0.03, 0.25, n) * (rng.random(n) >= 0.10)
    den_a = (rng.random(n) >= 0.01).astype(np.float64)
    den_b = (rng.random(n) >= 0.01).astype(np.float64)
    return num_a * den_a, den_a, num_b * den_b, den_b


def test_the_independent_interval_of_a_plain_mean_is_the_hand_computed_paired_t_interval():
    # d = b − a = 1, 2, 3, 6: mean 3, s² = (4 + 1 + 0 + 9)/3 = 14/3, se = √(14/12) = 1.0801234,
    # t_{3, 0.975} = 3.1824463: 3 ± 3.4374347.
    ones = np.ones(4)
    change = independent_change(np.zeros(4), ones, np.array([1.0, 2.0, 3.0, 6.0]), ones)
    assert change is not None and change.df == 3
    low, high = change.interval(0.95)
    assert low == pytest.approx(3 - 3.4374347, abs=1e-6)
    assert high == pytest.approx(3 + 3.4374347, abs=1e-6)


def test_one_runs_independent_interval_of_a_mean_is_the_hand_computed_t_interval():
    # One run's values 1, 2, 3, 6: mean 3, the same s and t₃ as above: 3 ± 3.4374347.
    change = independent_ratio(np.array([1.0, 2.0, 3.0, 6.0]), np.ones(4))
    assert change is not None
    assert change.interval(0.95) == pytest.approx((3 - 3.4374347, 3 + 3.4374347), abs=1e-6)


def test_from_the_switch_size_a_many_valued_mean_gets_scipys_paired_t_interval_and_p():
    from scipy import stats

    rng = np.random.default_rng(5)
    a = 0.0005 * rng.lognormal(-0.5, 1.0, T_INTERVAL_FROM)
    b = a * rng.lognormal(0.03, 0.25, T_INTERVAL_FROM)
    ones = np.ones(T_INTERVAL_FROM)
    change = paired_change(COST, (a, ones, b, ones), None, 0.95, bootstrap_p_value=True)
    expected = stats.ttest_rel(b, a)
    assert change.t_interval
    assert change.ci == pytest.approx(tuple(expected.confidence_interval(0.95)), rel=1e-9)
    assert change.p_value == pytest.approx(expected.pvalue, rel=1e-6)


def test_below_the_switch_size_and_for_few_valued_metrics_the_bootstrap_stays():
    rng = np.random.default_rng(6)
    columns = _costs(rng, T_INTERVAL_FROM - 1)
    below = paired_change(COST, columns, None, 0.95, bootstrap_p_value=True)
    assert not below.t_interval and below.ci is not None
    hits_a = (rng.random(T_INTERVAL_FROM * 2) < 0.6).astype(np.float64)
    hits_b = (rng.random(T_INTERVAL_FROM * 2) < 0.65).astype(np.float64)
    ones = np.ones(hits_a.size)
    recall = paired_change(metric_by_name("recall@5"), (hits_a, ones, hits_b, ones), None, 0.95)
    assert not recall.t_interval  # four distinct (a, b) pairs: the exact count bootstrap, and McNemar's p
    assert recall.p_value is not None


def test_the_t_interval_covers_skewed_costs_at_the_switch_size_near_the_nominal_95_percent():
    population = _costs(np.random.default_rng(37), 200_000)
    num_a, den_a, num_b, den_b = population
    truth = num_b.sum() / den_b.sum() - num_a.sum() / den_a.sum()
    rng = np.random.default_rng(370)
    held = 0
    simulations = 400
    for _ in range(simulations):
        index = rng.integers(0, num_a.size, T_INTERVAL_FROM)
        change = paired_change(COST, tuple(column[index] for column in population), None, 0.95)  # type: ignore[arg-type]
        assert change.t_interval and change.ci is not None
        held += change.ci[0] <= truth <= change.ci[1]
    # 400 draws: a Monte Carlo sd of 1.1 points around 95 %.
    assert 0.925 <= held / simulations <= 0.975


def test_from_the_switch_size_a_runs_own_interval_of_a_many_valued_mean_is_scipys_t_interval():
    from scipy import stats

    from ragtui.core.comparing.targets import ratio_interval

    values = 0.0005 * np.random.default_rng(8).lognormal(-0.5, 1.0, T_INTERVAL_FROM)
    expected = stats.t.interval(0.95, T_INTERVAL_FROM - 1, loc=values.mean(), scale=stats.sem(values))
    assert ratio_interval(values, np.ones(T_INTERVAL_FROM)) == pytest.approx(expected, rel=1e-9)
