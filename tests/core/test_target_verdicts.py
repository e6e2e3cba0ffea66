"""Each run against its target: Wilson or bootstrap interval, and meets / misses / inconclusive."""

from __future__ import annotations

import numpy as np
import pytest

from ragtui.core.comparing.targets import (
    INCONCLUSIVE,
    MEETS,
    MISSES,
    ratio_interval,
    target_verdict,
    wilson_interval,
)


def test_wilson_interval_matches_the_score_interval_computed_by_hand():
    # 28/40 at 95 %: centre (0.7 + 1.96²/80) / (1 + 1.96²/40) = 0.6825, half-width 0.1368.
    assert wilson_interval(28, 40) == pytest.approx((0.5457, 0.8193), abs=1e-4)
    # Near the edges it stays inside 0…1 and is not empty: 0/10 still allows up to 27.8 %.
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_a_verdict_needs_the_whole_interval_on_one_side_of_the_target():
    assert target_verdict((0.81, 0.90), 0.80, higher_is_better=True) == MEETS
    assert target_verdict((0.80, 0.90), 0.80, higher_is_better=True) == MEETS  # "≥ 80 %" holds at 80 %
    assert target_verdict((0.70, 0.79), 0.80, higher_is_better=True) == MISSES
    assert target_verdict((0.78, 0.92), 0.80, higher_is_better=True) == INCONCLUSIVE
    # Lower is better (false abstention ≤ 5 %): the good side is below.
    assert target_verdict((0.01, 0.04), 0.05, higher_is_better=False) == MEETS
    assert target_verdict((0.06, 0.09), 0.05, higher_is_better=False) == MISSES
    assert target_verdict((0.03, 0.07), 0.05, higher_is_better=False) == INCONCLUSIVE
    assert target_verdict(None, 0.80, higher_is_better=True) is None
    assert target_verdict((0.1, 0.2), None, higher_is_better=True) is None


def test_on_the_sample_b_recall_at_5_is_inconclusive_against_80_percent(sample_comparison):
    recall = sample_comparison.metrics["recall@5"]
    assert recall.b.value == pytest.approx(78 / 90) and recall.target == 0.80
    reading = recall.target_reading("B")
    # 86.7 % looks above 80 %, but Wilson at n = 90 reaches 78.1 %: not enough questions to say.
    assert reading.verdict == INCONCLUSIVE
    assert reading.ci == pytest.approx(wilson_interval(78, 90)) and reading.ci[0] == pytest.approx(0.7813, abs=1e-4)


def test_a_small_category_is_inconclusive_where_the_whole_set_is_not(sample_comparison):
    # Known contradictions: 10/14 found by B; Wilson 45.4…88.3 % straddles 80 %.
    cell = sample_comparison.categories["contradiction_connue"].metrics["recall@5"]
    assert cell.b.value == pytest.approx(10 / 14)
    assert cell.target_reading("B").verdict == INCONCLUSIVE
    assert cell.target_reading("B").ci == pytest.approx(wilson_interval(10, 14))
    # Short factual, 44/48 found: Wilson 80.4…96.7 % lies above 80 %: meets.
    short = sample_comparison.categories["factuelle_courte"].metrics["recall@5"]
    assert short.target_reading("B").verdict == MEETS


def test_faithfulness_and_utility_intervals_are_bootstrapped_over_questions(sample_comparison):
    faithfulness = sample_comparison.metrics["faithfulness"]
    low, high = faithfulness.target_reading("B").ci
    assert low < faithfulness.b.value < high
    utility = sample_comparison.metrics["utility"]
    low, high = utility.target_reading("A").ci
    assert 1 <= low < utility.a.value < high <= 5
    # Metrics without a target get no interval and no verdict.
    assert sample_comparison.metrics["mrr@5"].target_reading("B").verdict is None


def test_wilson_covers_the_true_proportion_in_94_to_97_percent_of_2000_simulations():
    rng = np.random.default_rng(20261130)
    p, n = 0.85, 90
    covered = 0
    for _ in range(2000):
        low, high = wilson_interval(int(rng.binomial(n, p)), n)
        covered += low <= p <= high
    assert 0.94 * 2000 <= covered <= 0.975 * 2000, covered


def test_the_run_bootstrap_covers_a_pooled_ratio_in_93_to_97_percent_of_300_simulations():
    # Faithfulness-like: 1–6 sentences per question, each question with its own attestation rate;
    # the pooled ratio's true value is E[sentences × rate] / E[sentences] = mean rate = 8 / 9.5.
    rng = np.random.default_rng(20261131)
    truth, covered = 8 / 9.5, 0
    for _ in range(300):
        den = 1 + rng.poisson(2.0, 150)
        num = rng.binomial(den, rng.beta(8, 1.5, 150))
        low, high = ratio_interval(num.astype(float), den.astype(float), resamples=2_000, seed=int(rng.integers(1 << 31)))
        covered += low <= truth <= high
    assert 0.93 * 300 <= covered <= 0.97 * 300, covered


@pytest.mark.parametrize("size", [90, 24_000])
def test_a_run_grouped_once_gives_each_category_the_interval_it_gets_grouped_alone(size):
    """`measured_groups` hands `ratio_interval` the distinct measured rows of the run and of
    each category (questions with den 0 left out), so each interval is the one computed alone."""
    from ragtui.core.comparing.targets import measured_groups, ratio_interval

    rng = np.random.default_rng(size)
    den = rng.integers(0, 5, size).astype(float)
    num = np.minimum(den, rng.integers(0, 5, size)).astype(float)
    groups = measured_groups(num, den)
    assert ratio_interval(num, den, distinct=lambda: groups(None)) == ratio_interval(num, den)
    for share in (0.15, 0.5):
        rows = np.flatnonzero(rng.random(size) < share)
        alone = ratio_interval(num[rows], den[rows])
        assert alone is not None
        assert ratio_interval(num[rows], den[rows], distinct=lambda rows=rows: groups(rows)) == alone
