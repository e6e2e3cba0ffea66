"""Δ when questions come in documents: the cluster bootstrap, a clustered paired test, the design effect.

Questions of one document move together, so the independent unit is the document. Every
quantity here works on per-cluster sums, which is what makes it cheap: a ratio Σnum/Σden
over resampled clusters is the ratio of resampled cluster sums, so `paired_bootstrap_ci`
runs unchanged on G rows instead of n.

- The interval of Δ is the percentile interval of that cluster bootstrap, *expanded* for
  few clusters (Hesterberg 2015): its tails are read at the level whose normal quantile is
  √(G/(G−1))·t_{G−1} instead of z. A plain percentile interval over 8 documents covers about
  88 % of the time where 95 % was asked (bench/bench_clusters.py).
- A 0/1 metric's test is Obuchowski's clustered McNemar (1998): Δ over its cluster-robust
  standard error, √(G/(G−1)·Σ_g (d_g − Δ·m_g)²)/Σm with d_g the cluster's sum of b − a over
  the questions measured in both runs and m_g their number — read against t_{G−1} rather
  than the normal, for the same reason.
- The design effect is the clustered variance of Δ over the independent one (both the
  linearised ratio variance): 1 for questions that behave independently, 3 when documents
  triple the variance.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ragtui.core.comparing.stats import RESAMPLES, SEED, CountDraws, paired_bootstrap_deltas
from ragtui.core.measuring.clusters import Clusters
from ragtui.core.measuring.distributions import t_quantile, t_two_sided_p


def expanded_confidence(confidence: float, clusters: int) -> float:
    """The percentile level that gives a G-cluster bootstrap interval t_{G−1}'s width."""
    if clusters < 2:
        return confidence
    quantile = math.sqrt(clusters / (clusters - 1)) * t_quantile(confidence, clusters - 1)
    return 1.0 - 2.0 * (1.0 - NormalDist().cdf(quantile))


def cluster_columns(clusters: Clusters, *columns: np.ndarray) -> list[np.ndarray]:
    """Each column summed within each cluster."""
    sums = clusters.sums(np.column_stack(columns).astype(np.float64))
    return [sums[:, i] for i in range(len(columns))]


def cluster_bootstrap_deltas(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, clusters: Clusters,
    *, resamples: int = RESAMPLES, seed: int = SEED, fast_counts: bool = False, draws: CountDraws | None = None,
) -> np.ndarray:
    """Δ over resamples of whole clusters (NaN-free)."""
    columns = cluster_columns(clusters, num_a, den_a, num_b, den_b)
    return paired_bootstrap_deltas(*columns, resamples=resamples, seed=seed, fast_counts=fast_counts, draws=draws)


def clustered_paired_p(worse_minus_better: np.ndarray, clusters: Clusters) -> float:
    """Obuchowski's clustered McNemar p for rows measured in both runs (values b − a ∈ {−1, 0, 1})."""
    if worse_minus_better.size == 0:
        return 1.0
    d, m = cluster_columns(clusters, worse_minus_better, np.ones(worse_minus_better.size))
    used = m > 0
    d, m = d[used], m[used]
    count = d.size
    delta = d.sum() / m.sum()
    if delta == 0:
        return 1.0
    if count < 2:
        return 1.0  # one document: nothing to tell its shift from chance by
    variance = count / (count - 1) * float(((d - delta * m) ** 2).sum()) / float(m.sum()) ** 2
    if variance <= 0:
        return 0.0
    return t_two_sided_p(delta / math.sqrt(variance), count - 1)


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
