"""Prediction-powered inference (PPI++, Angelopoulos et al. 2023) for a judged mean.

With person labels Y and judge values f on the n labelled units, and judge values f̃ on
the N units without a label:

    θ̂ = λ·mean(f̃) + mean(Y − λ·f)

The judge's values carry the N unlabelled units; the labelled ones remove its bias.

Units come in groups that are not independent (the sentences of one answer share its
passages and its generation): the variance of each mean is the cluster-robust variance
of a ratio estimator with the group (the answer) as the independent unit. A unit is a
sentence for faithfulness (groups: answers) and an answer for utility (one per group).

λ minimises the reported variance, Var(θ̂) = λ²·V(f̃) + c·V(Y − λf): with a_g and b_g
the labelled groups' linearised values of Y and f (`group_residuals`),
V(Y − λf) = Σ(a_g − λ b_g)² / (G(G−1)) and c = (G−1)/(G−2), so
λ = (c·Σ a_g b_g / (G(G−1))) / (V(f̃) + c·Σ b_g² / (G(G−1))), clipped to [0, 1] and kept
only where it beats λ = 0 (c = 1 there) — PPI++'s power tuning with the answer as the unit
(a useless judge gets λ = 0, the people's mean; with every unit labelled, λ = 0).

The interval is θ̂ ± t·√Var(θ̂) with t_{G−1}'s quantile, G the labelled answers: the
variance rests on G independent draws, and with ten of them the normal quantile covered
84 % where 95 % was asked (bench/bench_ppi.py compares it with a bootstrap of answers).
A fitted λ (> 0) costs one more degree of freedom: t_{G−2}, and V(Y − λf) scaled by
(G−1)/(G−2) — λ then minimises that variance, the one reported, exactly. Under
`MIN_CORRECTED_ANSWERS` labelled answers no corrected value is given at all
(`Corrected.too_few`): the views say "n labels — too few to correct".
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ragtui.core.measuring.distributions import t_quantile
from ragtui.core.measuring.label_values import MIN_CORRECTED_ANSWERS, Corrected, GroupSpread, MeanWithInterval

MIN_LABELLED_GROUPS = 2  # below this no variance can be estimated: no interval
__all__ = ["MIN_CORRECTED_ANSWERS", "MIN_LABELLED_GROUPS", "Corrected", "GroupSpread", "ppi_mean"]


def z_value(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def interval_quantile(confidence: float, labelled_groups: int) -> float:
    """t_{G−1}'s two-sided quantile: the corrected interval rests on G labelled answers."""
    return t_quantile(confidence, labelled_groups - 1) if labelled_groups >= 2 else math.inf


def _group_ids(groups: np.ndarray) -> np.ndarray:
    """Groups as 0…G−1 in their sorted order, whatever they were (ids, ints).

    Question ids come as an array of Python strings, which `np.unique` sorts by comparing
    objects: 2.7 s for the 3,000,000 sentences of a million answers. polars ranks them in
    the same order (UTF-8 bytes sort as code points do) in a tenth of that.
    """
    if groups.dtype.kind in "OUS":
        import polars as pl

        return pl.Series(groups, dtype=pl.String).rank("dense").to_numpy().astype(np.intp) - 1
    return np.unique(groups, return_inverse=True)[1].reshape(-1)


def ratio_variance(values: np.ndarray, groups: np.ndarray) -> tuple[float, int]:
    """Cluster-robust variance of mean(values) over groups, and the number of groups.

    The linearised ratio estimator: with s_g the sum of values and m_g the count in
    group g, and θ the pooled mean, Var = G/(G−1) · Σ (s_g − θ·m_g)² / (Σ m_g)².
    """
    if values.size == 0:
        return 0.0, 0
    index = _group_ids(groups)
    sums = np.bincount(index, weights=values)
    sizes = np.bincount(index).astype(np.float64)
    count = sums.size
    if count < 2:
        return 0.0, count
    theta = values.mean()
    residual = sums - theta * sizes
    return float(count / (count - 1) * (residual**2).sum() / sizes.sum() ** 2), count


def group_residuals(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each group's linearised contribution to the pooled mean, scaled so that their
    variance over groups divided by the number of groups is `ratio_variance`."""
    if values.size == 0:
        return np.zeros(0)
    index = _group_ids(groups)
    sums = np.bincount(index, weights=values)
    sizes = np.bincount(index).astype(np.float64)
    return (sums - values.mean() * sizes) * sums.size / sizes.sum()


def _spread(y: np.ndarray, f: np.ndarray, groups: np.ndarray, f_tilde: np.ndarray, groups_tilde: np.ndarray) -> GroupSpread:
    a, b = group_residuals(y, groups), group_residuals(f, groups)
    u = group_residuals(f_tilde, groups_tilde)
    labelled_ddof, unlabelled_ddof = max(a.size - 1, 1), max(u.size - 1, 1)
    return GroupSpread(
        people=float((a**2).sum() / labelled_ddof),
        judge=float((b**2).sum() / labelled_ddof),
        covariance=float((a * b).sum() / labelled_ddof),
        unlabelled=float((u**2).sum() / unlabelled_ddof) if u.size > 1 else 0.0,
        labelled_groups=int(a.size),
        unlabelled_groups=int(u.size),
    )


def _fitted_factor(count: int) -> float:
    """(G−1)/(G−2): λ fitted on the G labelled answers leaves G − 2 degrees of freedom to
    their variance, as a regression's slope does to its residuals."""
    return (count - 1) / (count - 2) if count > 2 else math.inf


def reported_variance(lam: float, a: np.ndarray, b: np.ndarray, var_unlabelled: float) -> float:
    """Var(θ̂) at λ as the interval reports it: λ²·V(f̃) + V(Y − λf), the latter scaled by
    (G−1)/(G−2) when λ is fitted (λ > 0). `a`, `b`: the labelled groups' residuals."""
    count = a.size
    labelled = float(((a - lam * b) ** 2).sum()) / (count * (count - 1)) if count > 1 else 0.0
    if lam == 0:
        return labelled
    return lam**2 * var_unlabelled + _fitted_factor(count) * labelled


def power_tuned_lambda(y: np.ndarray, f: np.ndarray, groups: np.ndarray, var_unlabelled: float, unlabelled: int) -> float:
    """The λ in [0, 1] that minimises the reported (answer-clustered) variance.

    0 when nothing is unlabelled, under three labelled answers (no degree of freedom left
    to fit it), or when f does not vary — or when fitting it costs more than it saves.
    """
    if unlabelled == 0:
        return 0.0
    a, b = group_residuals(y, groups), group_residuals(f, groups)
    count = a.size
    if count < 3:
        return 0.0
    scale = count * (count - 1) / _fitted_factor(count)
    judge = float((b**2).sum()) / scale
    if judge + var_unlabelled <= 0:
        return 0.0
    lam = min(1.0, max(0.0, float((a * b).sum()) / scale / (var_unlabelled + judge)))
    if lam > 0 and reported_variance(lam, a, b, var_unlabelled) >= reported_variance(0.0, a, b, var_unlabelled):
        return 0.0
    return lam


def ppi_mean(
    y: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    f_unlabelled: np.ndarray,
    groups_unlabelled: np.ndarray,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> Corrected | None:
    """The PPI++ estimate of the mean of Y over labelled and unlabelled units; None without labels.

    Args:
        y, f, groups: person value, judge value and group (answer) of each labelled unit.
        f_unlabelled, groups_unlabelled: judge value and group of each unit without a label.
        confidence: of the normal interval.
        bounds: the metric's range; the interval is clipped to it (the value never leaves it).
    """
    y, f = np.asarray(y, dtype=np.float64), np.asarray(f, dtype=np.float64)
    f_tilde = np.asarray(f_unlabelled, dtype=np.float64)
    if y.size == 0:
        return None
    groups, groups_tilde = np.asarray(groups), np.asarray(groups_unlabelled)
    var_unlabelled, _ = ratio_variance(f_tilde, groups_tilde)
    lam = power_tuned_lambda(y, f, groups, var_unlabelled, f_tilde.size)
    rectifier = y - lam * f
    value = float(rectifier.mean() + (lam * f_tilde.mean() if f_tilde.size else 0.0))
    var_labelled, count = ratio_variance(rectifier, groups)
    spread = _spread(y, f, groups, f_tilde, groups_tilde)
    if bounds is not None:
        value = min(max(value, bounds[0]), bounds[1])
    if count < MIN_LABELLED_GROUPS:
        return Corrected(value, None, int(y.size), count, lam, None, spread)
    variance = lam**2 * var_unlabelled + (var_labelled * _fitted_factor(count) if lam > 0 else var_labelled)
    quantile = interval_quantile(confidence, count - (1 if lam > 0 else 0))
    half = quantile * math.sqrt(variance)
    low, high = value - half, value + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Corrected(value, (low, high), int(y.size), count, lam, variance, spread, quantile)


def clustered_mean(values: np.ndarray, groups: np.ndarray, *, confidence: float = 0.95) -> MeanWithInterval | None:
    """A mean with its cluster-robust normal interval (the judge's bias on the labels)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return None
    variance, count = ratio_variance(values, np.asarray(groups))
    value = float(values.mean())
    if count < MIN_LABELLED_GROUPS:
        return MeanWithInterval(value, None, int(values.size))
    half = z_value(confidence) * math.sqrt(variance)
    return MeanWithInterval(value, (value - half, value + half), int(values.size))


def projected_half_widths(spread: GroupSpread, confidence: float = 0.95) -> np.ndarray:
    """The interval's half-width with 0, 1, 2, … more labelled groups (up to all of them).

    With L labelled and U unlabelled groups out of G, the variance of θ̂ is about
    λ²·σ²(f̃)/U + σ²(Y − λf)/L; λ is re-tuned for each L, as the estimator would.
    """
    total = spread.labelled_groups + spread.unlabelled_groups
    labelled = np.arange(max(spread.labelled_groups, 1), total + 1, dtype=np.float64)
    unlabelled = total - labelled
    with np.errstate(divide="ignore", invalid="ignore"):
        share_u = np.where(unlabelled > 0, spread.unlabelled / np.maximum(unlabelled, 1), np.inf)
        lam = np.where(
            unlabelled > 0,
            (spread.covariance / labelled) / (share_u + spread.judge / labelled),
            0.0,
        )
    lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
    variance = np.where(unlabelled > 0, lam**2 * np.nan_to_num(share_u, posinf=0.0), 0.0)
    variance = variance + (spread.people - 2 * lam * spread.covariance + lam**2 * spread.judge) / labelled
    return z_value(confidence) * np.sqrt(np.maximum(variance, 0.0))


def label_budget(spread: GroupSpread, target_half_width: float, *, confidence: float = 0.95) -> int | None:
    """How many more labelled groups (answers) bring the interval's half-width under the target.

    0 when it already is; None when even labelling every answer would not.
    """
    widths = projected_half_widths(spread, confidence)
    reached = np.nonzero(widths <= target_half_width)[0]
    if reached.size == 0:
        return None
    have = max(spread.labelled_groups, 1)
    needed = have + int(reached[0])
    return max(needed, MIN_LABELLED_GROUPS) - spread.labelled_groups
