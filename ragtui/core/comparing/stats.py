"""Uncertainty of a difference between two runs: paired bootstrap, its p, and exact McNemar.

The bootstrap resamples questions (pairs), never runs separately, and is exact but
fast: questions with identical per-question values are interchangeable, so drawing n
questions with replacement is the same as drawing multinomial counts over the distinct
value tuples. Most metrics have a handful of distinct tuples (a recall hit is 0 or 1 in
each run), so 10,000 resamples cost the same at n = 100 and at n = 100,000. When the
tuples are many, plain index resampling in chunks is used instead: 10,000 × n draws, some
0.2 s per thousand questions (18–27 s at 100,000). From `T_INTERVAL_FROM` questions on, such
a Δ (a mean of cost or tokens, different on every question) gets the t interval of its
linearisation instead (`clustered.independent_change`, chosen by `intervals.paired_change`):
there the two agree to within the bootstrap's own Monte Carlo error on moderately skewed
costs, and cover alike where a few huge costs skew the bootstrap's (bench/bench_large_means.py).
"""

from __future__ import annotations

import math

import numpy as np

RESAMPLES = 10_000
SEED = 20_261_120
_CHUNK = 250
_WHOLE_NUMBER_KEYS = 1 << 20  # combinations of whole numbers `_grouped_whole_numbers` counts in one array
_SMALL = 10_000  # rows under which `distinct_rows` sorts in numpy rather than grouping in polars (measured faster)
# Questions from which a Δ whose bootstrap would resample rows (`resamples_rows`) gets the t
# interval instead: far above the 50–200 of a gold set (module docstring, docs/decisions.md).
T_INTERVAL_FROM = 5_000
# OpenBLAS computes a product of at most this many multiply-adds (m·n·k) in the calling
# thread, and its kernels' tiles divide `_BLOCK_ALIGN` rows. A sum over more than one panel
# of the right-hand side's rows (256 with the Haswell kernels numpy's wheel picks on x86;
# `_ONE_PANEL` leaves a margin) is split into panels differently by several threads than by one.
_ONE_THREAD_PRODUCT = 4 * 65_536
_BLOCK_ALIGN = 64
_ONE_PANEL = 128
# A log term this far below the largest is exp'd to exactly 0.0 (exp underflows below −745.2).
_NEGLIGIBLE = 800.0


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def resamples_rows(n: int, distinct: int) -> bool:
    """Whether the bootstrap of n rows with `distinct` distinct ones draws row indices (10,000 × n)
    rather than counts over the distinct rows (10,000 × distinct, whatever n)."""
    return distinct * 4 > n and distinct > 64


def paired_values(num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray) -> np.ndarray:
    """The n × 4 rows a paired bootstrap of Δ resamples."""
    return np.column_stack([num_a, den_a, num_b, den_b]).astype(np.float64)


def distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and their counts, in a fixed (sorted) order so the draws are reproducible.

    A hash group-by: `np.unique(axis=0)` sorts rows as opaque records and is ten times slower.
    Under ten thousand rows, building the frame costs more than grouping: numpy sorts
    them instead, into the same rows in the same order. Above, whole numbers that take few
    values are counted without a frame (`_grouped_whole_numbers`), into what polars gives.
    """
    if len(values) <= _SMALL:
        return _distinct_rows_sorted(values)
    counted = _grouped_whole_numbers(values)
    if counted is not None:
        return counted[0], counted[1]
    import polars as pl

    frame = pl.DataFrame(values, schema=[f"c{i}" for i in range(values.shape[1])], orient="row")
    # One lazy query: half the CPU of the eager group-by and sort, the same groups in the same order.
    grouped = frame.lazy().group_by(frame.columns).len().sort(frame.columns).collect()
    return grouped.drop("len").to_numpy(), grouped.get_column("len").to_numpy()


def _distinct_rows_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`distinct_rows` by a sort: rows in ascending order column by column, NaN last and
    all NaN alike (as polars groups and sorts them)."""
    rows, counts, _ = _grouped_sorted(values)
    return rows, counts


def _grouped_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_distinct_rows_sorted`, and each row's place among the distinct rows."""
    if len(values) == 0:
        return values.reshape(0, values.shape[1]), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.intp)
    order = np.lexsort(values.T[::-1])
    ordered = values[order]
    same = (ordered[1:] == ordered[:-1]) | (np.isnan(ordered[1:]) & np.isnan(ordered[:-1]))
    new_row = ~same.all(axis=1)
    starts = np.concatenate(([0], np.flatnonzero(new_row) + 1))
    counts = np.diff(np.append(starts, len(ordered)))
    codes = np.empty(len(values), dtype=np.intp)
    codes[order] = np.concatenate(([0], np.cumsum(new_row)))
    return ordered[starts], counts, codes


def _grouped_whole_numbers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """`_grouped_polars` of whole numbers ≥ 0 (0/1 outcomes, sentence counts, 1–5 scores) whose
    rows take few values, without a frame or a sort: each row read as one number in mixed
    radix, whose order is the rows' column by column, counted by one `bincount`. The rows
    come back laid out and typed as polars gives them. None for anything else (a fraction,
    a negative, NaN, −0.0, too many combinations): polars groups those."""
    with np.errstate(invalid="ignore"):  # a NaN or a huge value casts to anything: the check below drops it
        whole = values.astype(np.int64)
    if not (whole == values).all() or int(whole.min()) < 0 or bool(np.signbit(values).any()):
        return None
    spans = whole.max(axis=0) + 1
    combinations = 1
    for span in spans.tolist():
        combinations *= span
        if combinations > _WHOLE_NUMBER_KEYS:
            return None
    radix = np.ones(len(spans), dtype=np.int64)
    for column in range(len(spans) - 2, -1, -1):
        radix[column] = radix[column + 1] * spans[column + 1]
    keys = whole @ radix
    every = np.bincount(keys, minlength=combinations)
    present = np.flatnonzero(every)
    place = np.zeros(combinations, dtype=np.intp)
    place[present] = np.arange(len(present))
    rows = np.empty((len(present), values.shape[1]), order="F")
    for column in range(values.shape[1]):
        rows[:, column] = present // radix[column] % spans[column]
    return rows, every[present].astype(np.uint32), place[keys]


def _grouped_polars(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`distinct_rows`' group-by, and each row's place among the distinct rows."""
    import polars as pl

    frame = pl.DataFrame(values, schema=[f"c{i}" for i in range(values.shape[1])], orient="row")
    grouped = frame.lazy().with_row_index("row").group_by(frame.columns).agg("row").sort(frame.columns).collect()
    members = grouped.get_column("row")
    counts = members.list.len().to_numpy()
    codes = np.empty(len(values), dtype=np.intp)
    codes[members.explode().to_numpy()] = np.repeat(np.arange(len(counts)), counts)
    return grouped.drop("row").to_numpy(), counts, codes


class RowGroups:
    """`distinct_rows` of a matrix and of any subset of its rows, the matrix grouped once.

    A subset's distinct rows are the whole's that it holds, in the same order (the sort is
    one total order), each counted over the subset: one `bincount` of each row's group
    instead of a group-by per subset — a metric's rows are grouped once for the headline
    interval and every cell of the category grid. Each subset's arrays are laid out and
    typed as `distinct_rows` gives them (its polars path: column-major, counts as UInt32),
    so the products drawn from them are the same to the bit. A matrix holding a −0.0 groups
    each subset afresh: a group's row is its first member's, which a subset may not hold.
    """

    def __init__(self, values: np.ndarray) -> None:
        self._values = values
        self._codes: np.ndarray | None = None
        if bool(np.any((values == 0) & np.signbit(values))):
            self.whole = distinct_rows(values)
            return
        if len(values) <= _SMALL:
            rows, counts, self._codes = _grouped_sorted(values)
        else:
            rows, counts, self._codes = _grouped_whole_numbers(values) or _grouped_polars(values)
        self.whole = (rows, counts)

    def within(self, subset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`distinct_rows(values[subset])` (a boolean mask, or ascending row indices), from the whole's groups."""
        if self._codes is None:
            return distinct_rows(self._values[subset])
        rows = self.whole[0]
        counts = np.bincount(self._codes[subset], minlength=len(rows))
        held = counts > 0
        if int(counts.sum()) <= _SMALL:
            return np.ascontiguousarray(rows[held]), counts[held]
        return np.asfortranarray(rows[held]), counts[held].astype(np.uint32)


def multinomial_counts(rng: np.random.Generator, n: int, shares: np.ndarray, size: int) -> np.ndarray:
    """Multinomial(n, shares) counts, `size` draws at once: one vectorised binomial per category,
    each conditional on the categories before it. The same distribution as
    `Generator.multinomial`, which loops over every draw and category in turn: 0.5 s for
    10,000 draws over 64 categories, against 0.02 s here."""
    out = np.empty((size, shares.size), dtype=np.int64)
    remaining = np.full(size, n, dtype=np.int64)
    left = 1.0
    for j, share in enumerate(shares[:-1]):
        chance = min(1.0, max(0.0, share / left)) if left > 0 else 0.0
        drawn = rng.binomial(remaining, chance)
        out[:, j] = drawn
        remaining -= drawn
        left -= share
    out[:, -1] = remaining
    return out


class CountDraws:
    """The resampled counts of bootstraps that share them, drawn once.

    Over distinct rows, a bootstrap's draws depend only on the number of rows, each distinct
    row's count, the number of resamples, the seed and the sampler: not on the rows' values.
    A category of n questions whose latency, cost and tokens differ on every question has the
    same counts (n ones) in all three cells, and a 0/1 metric often shares its counts with
    another; those cells reuse one draw, so their intervals are the very numbers drawn alone.
    One is made for a family of intervals (the category grid) and dropped with it.
    """

    def __init__(self) -> None:
        self._drawn: dict[tuple[int, bytes, int, int, bool], np.ndarray] = {}

    def counts(self, n: int, counts: np.ndarray, resamples: int, seed: int, *, fast_counts: bool) -> np.ndarray:
        """(resamples × distinct rows) counts, each row summing to n."""
        key = (n, counts.tobytes(), resamples, seed, fast_counts)
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = self._drawn[key] = _draw_counts(n, counts, resamples, seed, fast_counts=fast_counts)
        return drawn


def _draw_counts(n: int, counts: np.ndarray, resamples: int, seed: int, *, fast_counts: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if fast_counts:
        return multinomial_counts(rng, n, counts / n, resamples)
    return rng.multinomial(n, counts / n, size=resamples)


def _resampled_sums(counts: np.ndarray, unique: np.ndarray) -> np.ndarray:
    """`counts @ unique`, the same bits, in blocks of rows small enough for OpenBLAS to compute
    each in this thread.

    The whole product of 10,000 resamples over 7 or more distinct rows is large enough for
    OpenBLAS to share it with its other threads, which then spin waiting for the next one:
    at 2 × 100,000 questions that spinning cost more CPU than the products. Each resample's
    sum is the same whoever computes it while the distinct rows fit one of OpenBLAS's
    panels (`_ONE_PANEL`, blocks of whole kernel tiles: `_BLOCK_ALIGN` rows); past that,
    threads split the sum over the rows differently from one thread, so the whole product
    is left to OpenBLAS as before.
    """
    distinct, columns = unique.shape
    rows = max(_BLOCK_ALIGN, _ONE_THREAD_PRODUCT // max(1, distinct * columns) // _BLOCK_ALIGN * _BLOCK_ALIGN)
    if distinct > _ONE_PANEL or rows >= len(counts):
        return counts @ unique
    out = np.empty((len(counts), unique.shape[1]))
    for start in range(0, len(counts), rows):
        np.matmul(counts[start:start + rows], unique, out=out[start:start + rows])
    return out


def counted_sums(
    n: int, distinct: tuple[np.ndarray, np.ndarray], resamples: int = RESAMPLES, seed: int = SEED, *, fast_counts: bool = False,
    draws: CountDraws | None = None,
) -> np.ndarray:
    """`bootstrap_delta_sums` of n rows whose `distinct_rows` are `distinct`, drawn as counts
    over them (where `resamples_rows` is false): the rows themselves are not needed."""
    unique, counts = distinct
    drawn = draws.counts(n, counts, resamples, seed, fast_counts=fast_counts) if draws is not None else _draw_counts(n, counts, resamples, seed, fast_counts=fast_counts)
    return _resampled_sums(drawn, unique)


def bootstrap_delta_sums(
    values: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED, *, fast_counts: bool = False,
    draws: CountDraws | None = None, distinct: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Column sums of `values` (n × c) over `resamples` resamples of its rows: (resamples × c).

    `fast_counts` draws the counts with `multinomial_counts` (the category grid's many cells);
    without it numpy's own sampler draws them, so the headline intervals published before
    stay the same draws. `draws` shares the counts with other bootstraps drawn the same way.
    `distinct`: `distinct_rows(values)` when the caller already has it.
    """
    n = values.shape[0]
    unique, counts = distinct_rows(values) if distinct is None else distinct
    if not resamples_rows(n, len(unique)):
        return counted_sums(n, (unique, counts), resamples, seed, fast_counts=fast_counts, draws=draws)
    rng = np.random.default_rng(seed)
    # A column of ones (a mean's denominators) sums to the resample's size: n, exactly.
    ones = np.all(values == 1.0, axis=0)
    varying = np.ascontiguousarray(values[:, ~ones])
    sums = np.full((resamples, values.shape[1]), float(n))
    for start in range(0, resamples, _CHUNK):
        stop = min(start + _CHUNK, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        # Gathered question-major and summed over the first axis, numpy adds the n rows one
        # after another, as it does along axis 1 of `varying[idx]`: the same sums bit for
        # bit, in under half the time (contiguous rows instead of a strided reduction).
        sums[start:stop, ~ones] = varying[idx.T].sum(axis=0)
    return sums


def paired_bootstrap_deltas(
    num_a: np.ndarray,
    den_a: np.ndarray,
    num_b: np.ndarray,
    den_b: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    fast_counts: bool = False,
    draws: CountDraws | None = None,
    values: np.ndarray | None = None,
    distinct: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Δ = Σnum_b/Σden_b − Σnum_a/Σden_a over paired resamples, those that define both ratios.

    `values` and `distinct`: `paired_values` of the columns and its `distinct_rows`, when the
    caller has them (with `distinct` alone, the rows are stacked only if they are resampled)."""
    if len(num_a) == 0:
        return np.zeros(0)
    if distinct is not None and not resamples_rows(len(num_a), len(distinct[0])):
        sums = counted_sums(len(num_a), distinct, resamples, seed, fast_counts=fast_counts, draws=draws)
    else:
        if values is None:
            values = paired_values(num_a, den_a, num_b, den_b)
        sums = bootstrap_delta_sums(values, resamples, seed, fast_counts=fast_counts, draws=draws, distinct=distinct)
    delta = _ratio(sums[:, 2], sums[:, 3]) - _ratio(sums[:, 0], sums[:, 1])
    return delta[~np.isnan(delta)]


def percentile_interval(deltas: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """The percentile interval of resampled values; None when there are none."""
    if deltas.size == 0:
        return None
    alpha = 1.0 - confidence
    low, high = np.quantile(deltas, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def bootstrap_p(deltas: np.ndarray) -> float | None:
    """Two-sided p of Δ = 0, dual to the percentile interval: twice the smaller share of
    resamples on either side of 0 (each side counting 0), with the +1 that keeps it above 0."""
    if deltas.size == 0:
        return None
    below, above = int((deltas <= 0).sum()), int((deltas >= 0).sum())
    return min(1.0, 2.0 * (1 + min(below, above)) / (deltas.size + 1))


def paired_bootstrap_ci(
    num_a: np.ndarray,
    den_a: np.ndarray,
    num_b: np.ndarray,
    den_b: np.ndarray,
    *,
    confidence: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """Percentile interval of Δ = Σnum_b/Σden_b − Σnum_a/Σden_a over paired resamples.

    Returns None when there is nothing to resample or no resample defines both ratios.
    """
    deltas = paired_bootstrap_deltas(num_a, den_a, num_b, den_b, resamples=resamples, seed=seed)
    return percentile_interval(deltas, confidence)


def mcnemar_exact_p(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c.

    Under H0 the b + c discordant pairs split as Binomial(b + c, 1/2); the p-value is
    twice the smaller tail, capped at 1. Computed in log space so it holds for large n.
    """
    n = b + c
    if n == 0:
        return 1.0
    low = min(b, c)
    log_half_n = n * math.log(0.5)
    log_n_factorial = math.lgamma(n + 1)

    def log_term(i: int) -> float:
        return log_n_factorial - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n

    # The terms grow with i up to n/2, so the tail's top is its last. Those more than
    # _NEGLIGIBLE below it are exactly 0.0 once exp'd, and adding 0.0 changes no sum: the
    # sum starts at the first term that counts (a binary search), with the same value.
    top_term = log_term(low)
    first, last = 0, low
    while first < last:
        middle = (first + last) // 2
        if log_term(middle) < top_term - _NEGLIGIBLE:
            first = middle + 1
        else:
            last = middle
    logs = [log_term(i) for i in range(first, low + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(x - top) for x in logs)
    return min(1.0, 2.0 * tail)
