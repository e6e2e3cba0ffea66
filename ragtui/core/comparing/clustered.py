"""Δ when questions come in documents: a small-sample clustered t interval, its test, the design effect.

Questions of one document move together, so the independent unit is the document. Δ is
linearised — u_i = (num_b,i − R_b·den_b,i)/D_b − (num_a,i − R_a·den_a,i)/D_a, with R = Σnum/Σden
and D = Σden — and every quantity here works on the documents' sums U_g = Σ_{i∈g} u_i:

- The interval of Δ is Δ̂ ± t_ν·√V. V is Bell and McCaffrey's CR2 variance (2002),
  V = Σ_g U_g² / (1 − h_g), h_g the document's share of the questions (of the denominators,
  averaged over A and B, for a ratio such as faithfulness): a large document's sum is
  shrunk towards 0 by its own weight in Δ̂, and 1/(1 − h_g) undoes that. ν is the
  Satterthwaite degrees of freedom of V, (tr B)² / tr(B²), with
  B_gh = a_g·a_h·(δ_gh·s_g − h_h·s_g − h_g·s_h + h_g·h_h·Σs), a_g = 1/√(1 − h_g), and the
  working variance of each document its own spread, s_g = Σ_{i∈g} u_i². With G documents
  alike ν = G − 1; when a few documents carry the change (and its noise) ν falls towards
  the number of those that do, and the interval widens. The percentile bootstrap over
  documents, even expanded for few of them, covered 92–93.6 % of 95 % at 8–30 documents,
  and ν from a model where documents are alike (G − 1 for equal sizes) about 93 %: a
  document whose answers barely change both pulls Δ̂ towards 0 and shrinks √V, so the
  misses fell on one side. This ν covers 95–97 % there (bench/bench_clusters.py).
- The p-value is that interval's dual, 2·P(T_ν > |Δ̂|/√V). For a 0/1 metric it is
  Obuchowski's clustered McNemar (1998) with the same corrections, over the questions
  measured in both runs: d_g the document's sum of b − a, m_g their number, U_g = (d_g −
  Δ̂·m_g)/Σm and h_g = m_g/Σm.
- The design effect is the clustered variance of Δ over the independent one (both the
  plain linearised variances, G/(G−1)·Σ U_g² over n/(n−1)·Σ u_i²): 1 for questions that
  behave independently, 3 when documents triple the variance.

Without documents the same linearisation gives the large-sample interval of Δ for a mean
of many distinct values (cost, tokens at thousands of questions, `stats.T_INTERVAL_FROM`):
each question its own cluster, V = n/(n−1)·Σ u_i² — for a plain mean the paired t interval
on the per-question differences, s_d/√n — and ν = n − 1 (`independent_change`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ragtui.core.measuring.clusters import Clusters
from ragtui.core.measuring.distributions import t_quantile, t_two_sided_p


def expanded_confidence(confidence: float, clusters: int) -> float:
    """The percentile level that gives a G-cluster bootstrap interval t_{G−1}'s width (a run's own interval, targets.py)."""
    if clusters < 2:
        return confidence
    quantile = math.sqrt(clusters / (clusters - 1)) * t_quantile(confidence, clusters - 1)
    return 1.0 - 2.0 * (1.0 - NormalDist().cdf(quantile))


def cluster_columns(clusters: Clusters, *columns: np.ndarray) -> list[np.ndarray]:
    """Each column summed within each cluster."""
    sums = clusters.sums(np.column_stack(columns).astype(np.float64))
    return [sums[:, i] for i in range(len(columns))]


@dataclass(frozen=True)
class LinearisedChange:
    """Δ̂ with the variance of its linearisation and the degrees of freedom of a t interval:
    CR2 and Bell–McCaffrey's with documents, n/(n−1)·Σu² and n − 1 without."""

    delta: float
    variance: float
    df: float

    def interval(self, confidence: float) -> tuple[float, float]:
        half = t_quantile(confidence, self.df) * math.sqrt(self.variance)
        return self.delta - half, self.delta + half

    @property
    def p_value(self) -> float:
        """Two-sided p of Δ = 0, the interval's dual."""
        if self.delta == 0:
            return 1.0
        if self.variance <= 0:
            return 0.0
        return t_two_sided_p(abs(self.delta) / math.sqrt(self.variance), self.df)


def satterthwaite_df(leverage: np.ndarray, spread: np.ndarray) -> float:
    """(tr B)² / tr(B²) for the CR2 variance, each cluster's working variance its `spread` (module docstring)."""
    scale = 1.0 / np.sqrt(1.0 - leverage)
    b = np.outer(scale, scale) * (
        np.diag(spread) - np.outer(spread, leverage) - np.outer(leverage, spread) + np.outer(leverage, leverage) * spread.sum()
    )
    square = float((b * b).sum())
    return float(np.trace(b)) ** 2 / square if square > 0 else math.inf


def _cr2(totals: np.ndarray, leverage: np.ndarray, spread: np.ndarray, delta: float) -> LinearisedChange | None:
    """From the clusters' sums of the linearised Δ, their leverages (which sum to 1) and spreads
    (sums of its squares); None under two clusters."""
    used = leverage > 0
    totals, leverage, spread = totals[used], leverage[used], spread[used]
    if leverage.size < 2:
        return None  # one document: nothing to tell its shift from chance by
    variance = float((totals**2 / (1.0 - leverage)).sum())
    return LinearisedChange(delta, variance, satterthwaite_df(leverage, spread))


def clustered_change(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, clusters: Clusters
) -> LinearisedChange | None:
    """Δ = Σnum_b/Σden_b − Σnum_a/Σden_a with its CR2 variance; None when a run measured nothing or one document holds it all."""
    lin = linearised_delta(num_a, den_a, num_b, den_b)
    if lin is None:
        return None
    delta, linearised, share = lin
    totals, leverage, spread = cluster_columns(clusters, linearised, share, linearised**2)
    return _cr2(totals, leverage, spread, delta)


def linearised_delta(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray] | None:
    """Δ̂ = Σnum_b/Σden_b − Σnum_a/Σden_a, each question's term u_i of its linearisation and
    its share of the denominators (averaged over A and B); None when a run measured nothing."""
    total_a, total_b = float(den_a.sum()), float(den_b.sum())
    if total_a <= 0 or total_b <= 0:
        return None
    ratio_a, ratio_b = float(num_a.sum()) / total_a, float(num_b.sum()) / total_b
    linearised = (num_b - ratio_b * den_b) / total_b - (num_a - ratio_a * den_a) / total_a
    share = (den_a / total_a + den_b / total_b) / 2.0
    return ratio_b - ratio_a, linearised, share


def independent_change(num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray) -> LinearisedChange | None:
    """Δ̂ with the independent linearised variance n/(n−1)·Σu_i² and n − 1 degrees of freedom:
    for a plain mean (every den 1) the paired t interval on the differences b_i − a_i.
    None when a run measured nothing or there are fewer than two questions."""
    n = num_a.size
    lin = linearised_delta(num_a, den_a, num_b, den_b)
    if lin is None or n < 2:
        return None
    delta, linearised, _ = lin
    return LinearisedChange(delta, n / (n - 1) * _sum_of_squares(linearised), n - 1)


def _sum_of_squares(values: np.ndarray) -> float:
    """Σv², summed by numpy itself: a BLAS dot product of more than 10,000 terms woke
    OpenBLAS's other threads (about 0.25 CPU s of their spinning in a report at 2 × 100,000),
    and its last bits depended on how many there were."""
    return float(np.einsum("i,i->", values, values))


def clustered_paired_p(worse_minus_better: np.ndarray, clusters: Clusters) -> float:
    """Obuchowski's clustered McNemar p, CR2-corrected, for rows measured in both runs (values b − a ∈ {−1, 0, 1})."""
    if worse_minus_better.size == 0:
        return 1.0
    total = float(worse_minus_better.size)
    delta = float(worse_minus_better.sum()) / total
    linearised = (worse_minus_better - delta) / total
    totals, m, spread = cluster_columns(clusters, linearised, np.ones(worse_minus_better.size), linearised**2)
    change = _cr2(totals, m / total, spread, delta)
    return 1.0 if change is None else change.p_value


def independent_ratio(num: np.ndarray, den: np.ndarray) -> LinearisedChange | None:
    """One run's Σnum/Σden with the same independent linearised variance and n − 1 degrees of
    freedom (a run's own interval of a many-valued mean, targets.py); None under two questions or with nothing measured."""
    n = num.size
    total = float(den.sum())
    if total <= 0 or n < 2:
        return None
    linearised = _linearised(num, den)
    return LinearisedChange(float(num.sum()) / total, n / (n - 1) * _sum_of_squares(linearised), n - 1)


def _linearised(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    total = den.sum()
    if total <= 0:
        return np.zeros(num.size)
    return (num - num.sum() / total * den) / total


def design_effect(num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, clusters: Clusters) -> float | None:
    """Clustered variance of Δ over the independent one; None where either is undefined."""
    either = (den_a > 0) | (den_b > 0)
    u = (_linearised(num_b, den_b) - _linearised(num_a, den_a))[either]
    n = u.size
    if n < 2:
        return None
    index = clusters.index[either]
    per_cluster = np.bincount(index, weights=u, minlength=clusters.count)
    count = int((np.bincount(index, minlength=clusters.count) > 0).sum())
    independent = n / (n - 1) * float((u**2).sum())
    if count < 2 or independent <= 0:
        return None
    return count / (count - 1) * float((per_cluster**2).sum()) / independent


def clusters_in(mask: np.ndarray, clusters: Clusters) -> int:
    """How many clusters hold at least one of the rows in `mask`."""
    return int(np.unique(clusters.index[mask]).size)
