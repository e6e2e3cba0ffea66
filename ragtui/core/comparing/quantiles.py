"""Intervals for a quantile metric (latency p50, p95): the paired bootstrap of Δ, and one run's own.

A quantile is not a ratio Σnum/Σden, so `stats.paired_bootstrap_ci` does not apply. The
resampling unit is the same: questions, drawn with replacement, A and B together (a
question slow in A is often slow in B: pairing keeps that). Each resample's quantile is
taken over the questions that measure it on each side (den > 0: a system error has no
latency to count), by linear interpolation as `numpy.quantile` does; the interval is the
percentile one.

Work is bounded: a resample costs n values, so above `MAX_ROWS` questions an m-out-of-n
bootstrap draws `MAX_ROWS` per resample and rescales the spread of Δ around its point
value by √(m/n) — a quantile's sampling error shrinks as 1/√n, and at that size the
interval is a few milliseconds wide anyway. Coverage at the sizes users have (n = 30 to
300) is checked by a seeded simulation in tests/core/test_quantile_intervals.py.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ragtui.core.comparing.stats import SEED, bootstrap_p

RESAMPLES = 1_000  # 25 draws in each tail of a 95 % interval; each costs a partial sort of m values
MAX_ROWS = 2_000
_CHUNK = 200


def _resampled_quantiles(values: np.ndarray, members: np.ndarray, q: float | tuple[float, ...], index: np.ndarray) -> np.ndarray:
    """The q-quantile of each resample (one row of `index`), over its member rows; NaN where none.

    With several q, one row of quantiles per q: the same numbers as one call per q (each
    resample is sorted once, and each q interpolated from it as numpy's linear method does).
    Each resample is sorted whole, where `np.quantile` would partition it at every order
    statistic the q need: numpy's sort of 2,000 values takes a third less time than that
    partition, and puts the same values at those places.
    """
    if bool(np.any((values == 0) & np.signbit(values) & members)):
        return _partitioned_quantiles(values, members, q, index)
    if members.all():  # the common case: no NaN to skip
        picked = values[index]
        picked.sort(axis=1)  # in place: `np.sort` would copy the gathered resamples first
        return _sorted_rows_quantiles(picked, np.full(len(index), index.shape[1]), q)
    # `np.nanquantile(picked, q, axis=1)` takes the quantile of each row on its own, a Python
    # call per resample: each row's first m values once sorted (NaN sorts last) are its m
    # members, in order, and are interpolated for every row at once.
    inside = members[index]
    sizes = inside.sum(axis=1)
    ordered = np.where(inside, values[index], np.nan)
    ordered.sort(axis=1)
    out = np.full(np.shape(q) + (len(index),), np.nan)  # a resample without a member: counted out by the callers
    held = np.flatnonzero(sizes > 0)
    out[..., held] = _sorted_rows_quantiles(ordered[held], sizes[held], q)
    return out


def _partitioned_quantiles(values: np.ndarray, members: np.ndarray, q: float | tuple[float, ...], index: np.ndarray) -> np.ndarray:
    """`_resampled_quantiles` by numpy's own partition, for values holding a −0.0: −0.0 and
    0.0 are equal to a sort, and which of them lands on an order statistic depends on the
    algorithm, so the partition that always picked it still does."""
    if members.all():
        return np.quantile(values[index], q, axis=1, overwrite_input=True)
    inside = members[index]
    sizes = inside.sum(axis=1)
    ordered = np.sort(np.where(inside, values[index], np.nan), axis=1)
    out = np.full(np.shape(q) + (len(index),), np.nan)
    for size in np.unique(sizes[sizes > 0]):
        rows = sizes == size
        out[..., rows] = np.quantile(ordered[rows, :size], q, axis=1, overwrite_input=True)
    return out


def _sorted_rows_quantiles(ordered: np.ndarray, sizes: np.ndarray, q: float | tuple[float, ...]) -> np.ndarray:
    """`np.quantile(ordered[r, :sizes[r]], q)` of each row r, whose first sizes[r] ≥ 1 values
    are sorted: numpy's linear method step by step (its virtual index, neighbours, weight
    and `_lerp`), the same operations on the same numbers, for all rows at once."""
    quantiles = np.asarray(q, dtype=np.float64)[..., np.newaxis]  # one row of results per q
    last = sizes - 1
    virtual = last * quantiles
    previous = np.floor(virtual).astype(np.intp)
    # At or past the last value numpy takes it on both sides, and weighs it from index −1.
    above = virtual >= last
    previous[above] = -1
    gamma = virtual - previous
    rows = np.arange(len(ordered))
    low = ordered[rows, np.where(above, last, previous)]
    high = ordered[rows, np.where(above, last, previous + 1)]
    diff = high - low
    interpolated = np.where(gamma >= 0.5, high - diff * (1 - gamma), low + diff * gamma)
    # A NaN among a row's members sorts to its end and makes its quantile NaN, as numpy's does.
    highest = ordered[rows, last]
    return np.where(np.isnan(highest), highest, interpolated)


def _draws(n: int, seed: int) -> tuple[np.random.Generator, int, float]:
    """The generator, the rows per resample (m) and the factor √(m/n) rescaling the spread."""
    rows = min(n, MAX_ROWS)
    return np.random.default_rng(seed), rows, float(np.sqrt(rows / n))


Drawn = tuple[float, np.ndarray, float]


def _paired_draws(
    values_a: np.ndarray, members_a: np.ndarray, values_b: np.ndarray, members_b: np.ndarray, quantiles: tuple[float, ...],
    resamples: int, seed: int,
) -> dict[float, Drawn | None]:
    """`paired_quantile_deltas` for each of `quantiles`, from the same resamples: the draws
    depend on n and the seed, not on q, so each q gets the numbers it would get alone."""
    n = len(values_a)
    if n == 0 or not members_a.any() or not members_b.any():
        return dict.fromkeys(quantiles)
    rng, rows, shrink = _draws(n, seed)
    chunks = []
    for start in range(0, resamples, _CHUNK):
        index = rng.integers(0, n, size=(min(_CHUNK, resamples - start), rows))
        chunks.append(_resampled_quantiles(values_b, members_b, quantiles, index) - _resampled_quantiles(values_a, members_a, quantiles, index))
    resampled = np.concatenate(chunks, axis=1)
    out: dict[float, Drawn | None] = {}
    for q, delta in zip(quantiles, resampled, strict=True):
        delta = delta[~np.isnan(delta)]
        point = float(np.quantile(values_b[members_b], q) - np.quantile(values_a[members_a], q))
        out[q] = (point, delta, shrink) if delta.size else None
    return out


class QuantileDraws:
    """The resampled Δ of paired quantile bootstraps over the same questions, drawn once.

    Latency p50 and p95 over the same questions resample the same rows (same n, same seed):
    asked for one q, this takes every q of `quantiles` from those resamples — one partition
    of each resample serves them all — and keeps the others until they are asked for, so
    each interval is the very numbers drawn alone. One is made for a family of intervals
    (the headline metrics, the category grid) and dropped with it.
    """

    def __init__(self, quantiles: Iterable[float]) -> None:
        self._quantiles = tuple(sorted(set(quantiles)))
        self._drawn: dict[tuple[bytes, bytes, bytes, bytes, int, int], dict[float, Drawn | None]] = {}

    def deltas(
        self, values_a: np.ndarray, members_a: np.ndarray, values_b: np.ndarray, members_b: np.ndarray, q: float,
        resamples: int, seed: int,
    ) -> Drawn | None:
        key = (values_a.tobytes(), members_a.tobytes(), values_b.tobytes(), members_b.tobytes(), resamples, seed)
        drawn = self._drawn.get(key)
        if drawn is None or q not in drawn:
            quantiles = self._quantiles if q in self._quantiles else (q,)
            drawn = self._drawn[key] = (drawn or {}) | _paired_draws(values_a, members_a, values_b, members_b, quantiles, resamples, seed)
        return drawn[q]


def paired_quantile_deltas(
    values_a: np.ndarray,
    members_a: np.ndarray,
    values_b: np.ndarray,
    members_b: np.ndarray,
    q: float,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    draws: QuantileDraws | None = None,
) -> Drawn | None:
    """Δ = quantile_q(B) − quantile_q(A) on the questions, its resampled values (those with a
    member on both sides) and √(m/n), the factor that rescales their spread around it.

    None when a side has no member question, or no resample holds one on both sides.
    `draws` shares the resamples with the other quantiles of the same questions.
    """
    if draws is not None:
        return draws.deltas(values_a, members_a, values_b, members_b, q, resamples, seed)
    return _paired_draws(values_a, members_a, values_b, members_b, (q,), resamples, seed)[q]


def _rescaled_interval(point: float, delta: np.ndarray, shrink: float, confidence: float) -> tuple[float, float]:
    alpha = 1.0 - confidence
    low, high = np.quantile(delta, [alpha / 2, 1 - alpha / 2])
    return point + (float(low) - point) * shrink, point + (float(high) - point) * shrink


def paired_quantile_ci(
    values_a: np.ndarray,
    members_a: np.ndarray,
    values_b: np.ndarray,
    members_b: np.ndarray,
    q: float,
    *,
    confidence: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    draws: QuantileDraws | None = None,
) -> tuple[float, float] | None:
    """Percentile interval of Δ = quantile_q(B) − quantile_q(A), resampling paired questions.

    None when a side has no member question, or no resample holds one on both sides.
    """
    drawn = paired_quantile_deltas(values_a, members_a, values_b, members_b, q, resamples=resamples, seed=seed, draws=draws)
    return None if drawn is None else _rescaled_interval(*drawn, confidence)


def paired_quantile_change(
    values_a: np.ndarray, members_a: np.ndarray, values_b: np.ndarray, members_b: np.ndarray, q: float, *, confidence: float = 0.95,
    draws: QuantileDraws | None = None,
) -> tuple[tuple[float, float] | None, float | None]:
    """`paired_quantile_ci` and its dual p (`stats.bootstrap_p` of the rescaled resamples):
    a category cell of latency p50 or p95, which the grid's family adjusts with the others."""
    drawn = paired_quantile_deltas(values_a, members_a, values_b, members_b, q, draws=draws)
    if drawn is None:
        return None, None
    point, delta, shrink = drawn
    return _rescaled_interval(point, delta, shrink, confidence), bootstrap_p(point + (delta - point) * shrink)


def quantile_interval(
    values: np.ndarray, members: np.ndarray, q: float, *, confidence: float = 0.95, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of one run's q-quantile over its member questions."""
    kept = values[members]
    n = len(kept)
    if n == 0:
        return None
    point = float(np.quantile(kept, q))
    rng, rows, shrink = _draws(n, seed)
    everyone = np.ones(n, dtype=bool)
    estimates = []
    for start in range(0, resamples, _CHUNK):
        index = rng.integers(0, n, size=(min(_CHUNK, resamples - start), rows))
        estimates.append(_resampled_quantiles(kept, everyone, q, index))
    return _rescaled_interval(point, np.concatenate(estimates), shrink, confidence)
