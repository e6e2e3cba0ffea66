"""The PPI++ estimator behind the corrected metrics: its checks and its coverage."""

from __future__ import annotations

import numpy as np
import pytest

from ragtui.core.measuring.ppi import (
    GroupSpread,
    clustered_mean,
    label_budget,
    power_tuned_lambda,
    ppi_mean,
    ratio_variance,
)


def test_every_unit_labelled_gives_the_peoples_mean():
    y = np.array([1, 0, 1, 1, 0, 1], dtype=float)
    f = np.array([1, 1, 1, 1, 1, 0], dtype=float)
    groups = np.array([0, 0, 1, 2, 2, 3])
    result = ppi_mean(y, f, groups, np.array([]), np.array([]))
    assert result.lam == 0.0
    assert result.value == pytest.approx(4 / 6)


def test_a_judge_that_always_agrees_gives_the_raw_value():
    rng = np.random.default_rng(3)
    f_all = (rng.random(300) < 0.7).astype(float)
    groups_all = np.repeat(np.arange(100), 3)
    labelled = groups_all < 20  # 20 answers of 3 sentences labelled, the judge right on each
    result = ppi_mean(f_all[labelled], f_all[labelled], groups_all[labelled], f_all[~labelled], groups_all[~labelled])
    assert result.lam == pytest.approx(240 / 300)  # N / (N + n): PPI++'s weight for a perfect judge
    assert result.value == pytest.approx(f_all.mean())


def test_lambda_is_clipped_to_zero_for_a_judge_that_contradicts_people():
    y = np.array([1, 0, 1, 0, 1, 0], dtype=float)
    assert power_tuned_lambda(y, 1 - y, unlabelled=100) == 0.0


def test_lambda_is_zero_when_the_judge_gives_one_value_on_the_labels():
    assert power_tuned_lambda(np.array([1.0, 0.0, 1.0]), np.ones(3), unlabelled=50) == 0.0


def test_cluster_variance_counts_an_answers_sentences_as_one_draw():
    # Two answers of 4 identical sentences: 2 independent draws, not 8.
    values = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=float)
    variance, groups = ratio_variance(values, np.array([0, 0, 0, 0, 1, 1, 1, 1]))
    assert groups == 2
    # G/(G−1) · Σ(s_g − θ m_g)² / (Σm)² = 2 · (2² + 2²) / 64 = 0.25, vs 0.25/8 if independent.
    assert variance == pytest.approx(0.25)


def test_no_interval_under_two_labelled_answers():
    result = ppi_mean(np.array([1.0, 0.0]), np.array([1.0, 1.0]), np.array([7, 7]), np.array([1.0, 0.0]), np.array([1, 2]))
    assert result.ci is None and result.groups == 1


def test_interval_is_clipped_to_the_metrics_range():
    y = np.ones(5)
    result = ppi_mean(y, y, np.arange(5), np.array([1.0, 1.0, 0.0]), np.array([10, 11, 12]), bounds=(0.0, 1.0))
    assert result.ci[1] <= 1.0 and result.value <= 1.0


def _simulated_run(rng: np.random.Generator, answers: int = 300, labelled: int = 40):
    sizes = rng.integers(1, 7, size=answers)
    quality = rng.beta(2, 1, size=answers)  # sentences of one answer share its quality
    groups = np.repeat(np.arange(answers), sizes)
    y = (rng.random(groups.size) < quality[groups]).astype(float)
    # A judge that overrates: it calls 35 % of unsupported sentences attested, misses 5 %.
    f = np.where(y == 1, rng.random(groups.size) >= 0.05, rng.random(groups.size) < 0.35).astype(float)
    chosen = np.zeros(answers, dtype=bool)
    chosen[rng.choice(answers, size=labelled, replace=False)] = True
    mask = chosen[groups]
    return y.mean(), f.mean(), (y[mask], f[mask], groups[mask]), (f[~mask], groups[~mask])


def test_interval_covers_the_truth_93_to_97_percent_with_a_biased_judge():
    rng = np.random.default_rng(2026)
    simulations, covered, raw_off = 1000, 0, 0
    for _ in range(simulations):
        truth, raw, (y, f, g), (f_tilde, g_tilde) = _simulated_run(rng)
        result = ppi_mean(y, f, g, f_tilde, g_tilde, bounds=(0.0, 1.0))
        covered += result.ci[0] <= truth <= result.ci[1]
        raw_off += raw - truth > 0.05
    assert 0.93 <= covered / simulations <= 0.97
    assert raw_off / simulations > 0.9  # the judge is biased by more than 5 points: raw is off


def test_bias_is_the_mean_of_judge_minus_person_with_an_interval():
    result = clustered_mean(np.array([1.0, 0.0, 0.0, 1.0, 0.0]), np.array([1, 1, 2, 3, 4]))
    assert result.value == pytest.approx(0.4) and result.n == 5
    assert result.ci[0] < 0.4 < result.ci[1]


def test_label_budget_is_zero_once_tight_and_grows_with_the_spread():
    tight = GroupSpread(people=0.01, judge=0.01, covariance=0.01, unlabelled=0.01, labelled_groups=400, unlabelled_groups=600)
    assert label_budget(tight, 0.03) == 0
    loose = GroupSpread(people=0.2, judge=0.2, covariance=0.1, unlabelled=0.2, labelled_groups=30, unlabelled_groups=2000)
    looser = GroupSpread(people=0.4, judge=0.4, covariance=0.2, unlabelled=0.4, labelled_groups=30, unlabelled_groups=2000)
    assert 0 < label_budget(loose, 0.03) < label_budget(looser, 0.03)
    # With 50 answers in all, ±3 points is out of reach at that spread.
    small = GroupSpread(people=0.2, judge=0.2, covariance=0.1, unlabelled=0.2, labelled_groups=10, unlabelled_groups=40)
    assert label_budget(small, 0.03) is None


def test_label_budget_brings_the_projected_interval_under_the_target():
    spread = GroupSpread(people=0.2, judge=0.2, covariance=0.0, unlabelled=0.2, labelled_groups=10, unlabelled_groups=5000)
    more = label_budget(spread, 0.03)
    # The judge is of no help (covariance 0): λ = 0, half-width 1.96·sqrt(0.2 / L).
    assert 1.959964 * (0.2 / (10 + more)) ** 0.5 <= 0.03 < 1.959964 * (0.2 / (9 + more)) ** 0.5


def test_question_ids_are_numbered_in_the_order_numpy_sorts_them():
    from ragtui.core.measuring.ppi import _group_ids

    ids = np.array(["q10", "q9", "Q1", "é2", "e2", "q10", "z", "ß", "q9", "", "日本"], dtype=object)
    expected = np.unique(ids, return_inverse=True)[1].reshape(-1)
    # sorted: "" Q1 e2 q10 q9 z ß (U+00DF) é2 (U+00E9) 日本
    assert _group_ids(ids).tolist() == expected.tolist() == [3, 4, 1, 7, 2, 3, 5, 6, 4, 0, 8]
    assert _group_ids(np.array([7, 3, 7])).tolist() == [1, 0, 1]
