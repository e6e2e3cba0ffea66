"""The paired bootstrap covers the true Δ as often as it claims; McNemar is exact."""

from __future__ import annotations

import numpy as np
import pytest

from ragtui.core.comparing.stats import mcnemar_exact_p, paired_bootstrap_ci


def test_mcnemar_matches_the_binomial_tail_computed_by_hand():
    # b = 2, c = 8: 2 · P(X ≤ 2 | n = 10, 1/2) = 2 · (1 + 10 + 45) / 1024.
    assert mcnemar_exact_p(2, 8) == pytest.approx(2 * 56 / 1024)
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(5, 5) == 1.0
    assert mcnemar_exact_p(0, 10) == pytest.approx(2 / 1024)
    # Large counts stay finite and symmetric.
    assert mcnemar_exact_p(4800, 5200) == pytest.approx(mcnemar_exact_p(5200, 4800))
    assert 0 < mcnemar_exact_p(4800, 5200) < 0.01


def test_the_interval_is_deterministic_with_its_fixed_seed():
    rng = np.random.default_rng(3)
    a, b = (rng.random(300) < 0.7).astype(float), (rng.random(300) < 0.75).astype(float)
    ones = np.ones(300)
    assert paired_bootstrap_ci(a, ones, b, ones) == paired_bootstrap_ci(a, ones, b, ones)


def _simulate_pairs(rng, n, p_a, p_b, rho=0.5):
    """Paired 0/1 outcomes with marginals p_a, p_b and positive correlation."""
    shared = rng.random(n)
    own_a, own_b = rng.random(n), rng.random(n)
    mix = rng.random(n) < rho
    a = np.where(mix, shared, own_a) < p_a
    b = np.where(mix, shared, own_b) < p_b
    return a.astype(float), b.astype(float)


def test_the_95_percent_interval_covers_a_known_delta_in_93_to_97_percent_of_400_simulations():
    rng = np.random.default_rng(20261129)
    p_a, p_b, n = 0.70, 0.76, 200
    true_delta = p_b - p_a
    covered = 0
    for _ in range(400):
        a, b = _simulate_pairs(rng, n, p_a, p_b)
        ones = np.ones(n)
        low, high = paired_bootstrap_ci(a, ones, b, ones, resamples=2_000, seed=int(rng.integers(1 << 31)))
        covered += low <= true_delta <= high
    assert 0.93 * 400 <= covered <= 0.97 * 400, covered


def test_a_pooled_ratio_is_resampled_by_question_not_by_sentence():
    # Faithfulness-like: numerators and denominators vary per question.
    rng = np.random.default_rng(5)
    den = rng.integers(1, 6, 500).astype(float)
    num_a = np.minimum(den, rng.binomial(den.astype(int), 0.85)).astype(float)
    num_b = np.minimum(den, rng.binomial(den.astype(int), 0.80)).astype(float)
    low, high = paired_bootstrap_ci(num_a, den, num_b, den)
    point = num_b.sum() / den.sum() - num_a.sum() / den.sum()
    assert low < point < high
    assert high - low < 0.1


def test_distinct_rows_are_counted_in_sorted_order_with_nan_last_and_alike():
    from ragtui.core.comparing.stats import distinct_rows

    nan = float("nan")
    values = np.array([[1, 0], [0, 1], [1, 0], [nan, 1], [0, 1], [nan, 1], [0, 0]], dtype=float)
    unique, counts = distinct_rows(values)
    assert np.array_equal(unique, np.array([[0, 0], [0, 1], [1, 0], [nan, 1]]), equal_nan=True)
    assert counts.tolist() == [1, 2, 2, 2]


def test_small_and_large_runs_group_their_rows_alike_so_the_draws_do_not_depend_on_the_size_path(monkeypatch):
    from ragtui.core.comparing import stats

    rng = np.random.default_rng(7)
    for trial in range(60):
        values = rng.integers(-1, 3, size=(int(rng.integers(1, 400)), 4)).astype(float)
        if trial % 2:
            values[rng.random(values.shape) < 0.2] = np.nan
        by_sort = stats._distinct_rows_sorted(values)
        with monkeypatch.context() as patched:
            patched.setattr(stats, "_SMALL", 0)  # the hash group-by path, whatever the size
            by_group = stats.distinct_rows(values)
        assert np.array_equal(by_sort[0], by_group[0], equal_nan=True) and by_sort[1].tolist() == by_group[1].tolist()


@pytest.mark.parametrize("size", [300, 12_000, 40_000])
def test_a_subset_grouped_from_the_whole_has_the_rows_counts_types_and_layout_of_its_own_grouping(size):
    """`RowGroups.within(mask)` is `distinct_rows(values[mask])` down to the arrays' dtype and
    memory order, on either side of the size where distinct_rows changes path, NaN included;
    a matrix with a −0.0 in it is grouped per subset as before."""
    from ragtui.core.comparing.stats import RowGroups, distinct_rows

    rng = np.random.default_rng(size)
    for trial in range(6):
        values = rng.integers(0, 2 + trial, size=(size, 4)).astype(float)
        values[rng.random(values.shape) < 0.05 * (trial % 2)] = np.nan
        if trial == 5:
            values[::7, 0] = -0.0
        groups = RowGroups(values)
        for share in (0.1, 0.3, 0.6, 1.0):
            mask = rng.random(size) < share
            for got, own in zip((groups.within(mask), groups.whole), (distinct_rows(values[mask]), distinct_rows(values)), strict=True):
                for mine, theirs in zip(got, own, strict=True):
                    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
                    assert mine.flags["C_CONTIGUOUS"] == theirs.flags["C_CONTIGUOUS"] and mine.flags["F_CONTIGUOUS"] == theirs.flags["F_CONTIGUOUS"]
                    assert np.array_equal(mine, theirs, equal_nan=True)


def test_mcnemar_sums_only_the_terms_that_count_and_gets_the_whole_tails_value():
    """The tail's terms more than 800 below its top (in log) are exactly 0.0 once exp'd: the
    p from the terms that count is the one from every term, bit for bit."""
    import math

    def every_term(b: int, c: int) -> float:
        n, low = b + c, min(b, c)
        logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + n * math.log(0.5) for i in range(low + 1)]
        top = max(logs)
        return min(1.0, 2.0 * math.exp(top) * sum(math.exp(x - top) for x in logs))

    rng = np.random.default_rng(11)
    pairs = [(b, c) for b in range(40) for c in range(40) if b + c] + [tuple(int(x) for x in rng.integers(0, 60_000, 2)) for _ in range(60)]
    pairs += [(20_000, 20_000 + gap) for gap in (0, 1, 40, 400, 4_000)]
    for b, c in pairs:
        assert mcnemar_exact_p(b, c) == every_term(b, c), (b, c)


@pytest.mark.parametrize("distinct", [1, 5, 40, 128, 300, 1_500])
def test_the_resampled_sums_taken_in_blocks_of_rows_are_the_whole_products_bit_for_bit(distinct):
    """`counts @ unique` in blocks (each small enough for one BLAS thread) equals the whole
    product, for 0/1 values, counts and costs alike, in either memory layout."""
    from ragtui.core.comparing.stats import _resampled_sums

    rng = np.random.default_rng(distinct)
    counts = rng.multinomial(50_000, rng.dirichlet(np.ones(distinct)), size=10_000)
    for unique in (
        rng.integers(0, 2, size=(distinct, 4)).astype(float),
        rng.normal(size=(distinct, 4)),
        np.asfortranarray(rng.lognormal(size=(distinct, 4)) * 1e-5),
        rng.normal(size=(distinct, 2)) * 1e3,
    ):
        assert np.array_equal(_resampled_sums(counts, unique), counts @ unique)


def test_whole_numbers_are_grouped_without_polars_into_its_rows_counts_codes_types_and_layout():
    """`_grouped_whole_numbers` gives what the polars group-by gives, to the byte, for whole
    numbers ≥ 0 in either memory order, and declines a fraction, a negative, a NaN or a −0.0."""
    from ragtui.core.comparing.stats import _grouped_polars, _grouped_whole_numbers

    rng = np.random.default_rng(17)
    for trial in range(24):
        values = rng.integers(0, 2 + trial % 6, size=(int(rng.integers(10_001, 30_000)), 1 + trial % 4)).astype(float)
        if trial % 3 == 0:
            values[:, 0] = rng.integers(0, 300, len(values))
        if trial % 2:
            values = np.asfortranarray(values)
        mine, theirs = _grouped_whole_numbers(values), _grouped_polars(values)
        assert mine is not None
        for got, expected in zip(mine, theirs, strict=True):
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert got.flags["C_CONTIGUOUS"] == expected.flags["C_CONTIGUOUS"] and got.flags["F_CONTIGUOUS"] == expected.flags["F_CONTIGUOUS"]
            assert got.tobytes() == expected.tobytes()
    for odd in (0.5, -1.0, float("nan"), -0.0, 2.0**40):
        values = rng.integers(0, 2, size=(12_000, 4)).astype(float)
        values[3, 1] = odd
        assert _grouped_whole_numbers(values) is None, odd
