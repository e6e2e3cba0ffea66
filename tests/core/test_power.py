"""Power of a comparison: `mde` and `n_needed` by hand, and detection ≈ 80 % at n_needed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragtui.core.comparing.power import binary_power, metric_power, ratio_power
from ragtui.core.comparing.stats import paired_bootstrap_ci

Z95, Z80 = 1.959964, 0.841621


def _pairs(n10: int, n01: int, n11: int, n00: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([1] * n10 + [0] * n01 + [1] * n11 + [0] * n00, dtype=float)
    b = np.array([0] * n10 + [1] * n01 + [1] * n11 + [0] * n00, dtype=float)
    return a, b


def test_n_needed_for_a_0_1_metric_follows_the_paired_proportions_formula():
    # 10 % discordance (6 worse, 4 better in 100): n = (1.96 √0.1 + 0.8416 √(0.1 − 0.03²))² / 0.03² = 869.7.
    a, b = _pairs(6, 4, 80, 10)
    power = binary_power(a, b, drop=0.03, confidence=0.95)
    expected = (Z95 * math.sqrt(0.1) + Z80 * math.sqrt(0.1 - 0.0009)) ** 2 / 0.0009
    assert power.n_needed == math.ceil(expected) == 870
    assert power.n == 100
    # The smallest detectable drop at n = 100 is the drop whose n_needed is 100.
    d = power.mde
    assert (Z95 * math.sqrt(0.1) + Z80 * math.sqrt(0.1 - d * d)) ** 2 / (d * d) == pytest.approx(100, rel=1e-6)


def test_identical_runs_still_need_questions_a_drop_implies_discordance():
    # No discordance observed: a true 3-point drop means ≥ 3 % discordant pairs, so ψ = 0.03.
    a, b = _pairs(0, 0, 90, 10)
    power = binary_power(a, b, drop=0.03, confidence=0.95)
    assert power.n_needed == math.ceil((Z95 * math.sqrt(0.03) + Z80 * math.sqrt(0.03 - 0.0009)) ** 2 / 0.0009) == 260


def test_mde_of_a_paired_mean_is_z_sum_times_the_sd_of_differences_over_root_n():
    rng = np.random.default_rng(7)
    a = rng.integers(1, 6, 200).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 200), 1, 5)
    ones = np.ones(200)
    power = ratio_power(a, ones, b, ones, drop=0.12, span=4.0, confidence=0.95)
    sigma = np.std(b - a, ddof=1)
    assert power.mde == pytest.approx((Z95 + Z80) * sigma / math.sqrt(200), rel=1e-5)
    assert power.n_needed == math.ceil(((Z95 + Z80) * sigma / 0.12) ** 2)


def test_a_pooled_ratio_weighs_each_question_by_its_denominator():
    # Two questions of 1 and 3 sentences: a question's share of Σnum/Σden moves with its size.
    num_a, den_a = np.array([1.0, 3.0, 2.0]), np.array([1.0, 3.0, 2.0])
    num_b, den_b = np.array([1.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0])
    power = ratio_power(num_a, den_a, num_b, den_b, drop=0.03, span=1.0, confidence=0.95)
    # R_a = 1, R_b = 4/6; shares (num − R·den)/mean(den): A all 0, B (1/3, −1, 2/3)/2.
    shares = np.array([1 / 3, -1.0, 2 / 3]) / 2
    sigma = np.std(shares, ddof=1)
    assert power.n_needed == math.ceil(((Z95 + Z80) * sigma / 0.03) ** 2)


def test_runs_that_never_differ_on_a_continuous_metric_give_no_power_figures():
    values = np.array([0.5, 0.7, 0.9])
    ones = np.ones(3)
    power = ratio_power(values, ones, values, ones, drop=0.03, span=1.0, confidence=0.95)
    assert power.mde is None and power.n_needed is None


def test_a_0_1_metric_counts_only_questions_measured_in_both_runs():
    a, b = _pairs(6, 4, 80, 10)
    den_a = np.ones(100)
    den_b = np.ones(100)
    den_b[:5] = 0  # five questions not measured in B (e.g. no answer to judge)
    power = metric_power(True, a, den_a, b, den_b, drop=0.03, span=1.0, confidence=0.95)
    assert power.n == 95


def test_at_n_needed_a_true_drop_is_detected_about_80_percent_of_the_time():
    # A 10-point drop on a 0/1 metric with 20 % discordance (p10 = 0.15, p01 = 0.05): n_needed
    # from the true cell probabilities, then 400 seeded simulated comparisons at that n,
    # each decided as the app decides (the paired interval wholly below 0).
    rng = np.random.default_rng(20261132)
    cells = np.array([0.15, 0.05, 0.65, 0.15])  # (1,0), (0,1), (1,1), (0,0)
    big_a, big_b = _pairs(*(cells * 100_000).astype(int))
    n = binary_power(big_a, big_b, drop=0.10, confidence=0.95).n_needed
    assert 100 < n < 200
    detected = 0
    for _ in range(400):
        counts = rng.multinomial(n, cells)
        a, b = _pairs(*counts)
        ones = np.ones(n)
        _, high = paired_bootstrap_ci(a, ones, b, ones, resamples=1_000, seed=int(rng.integers(1 << 31)))
        detected += high < 0
    assert 0.72 * 400 <= detected <= 0.88 * 400, detected
