"""Power of a comparison: the smallest drop it could detect, and the questions a drop needs.

"No clear change" at n = 90 can mean "nothing moved" or "too few questions to see it".
For each compared metric this module answers two questions, at 80 % power and the
configured confidence (a drop is detected when the two-sided interval of Δ lies wholly
below 0, as the verdict rule says):

- `mde`: the smallest true drop this comparison would detect 80 % of the time;
- `n_needed`: the questions needed to detect a drop of `max_drop` (3 points by default).

Both come from what the comparison observed. For a 0/1 outcome per question (recall,
abstention) the variance of a paired difference is set by the discordant pairs: with
ψ the share of questions where A and B disagree, n = (z_α √ψ + z_β √(ψ − δ²))² / δ²
(the paired-proportions sample size behind McNemar's test). A true drop δ implies at
least δ discordance, so ψ is never taken below δ: identical runs still need questions.
Otherwise (pooled ratios such as faithfulness, means such as utility) the paired
variance is that of each question's contribution to Δ (the ratio's linearisation), and
n = ((z_α + z_β) σ / δ)². n counts questions of the metric's population, like its `n`.
"""

from __future__ import annotations

import math

import numpy as np

from ragtui.core.comparing.result import Power
from ragtui.core.comparing.targets import two_sided_z

POWER = 0.80
_Z_POWER = 0.8416212335729143  # NormalDist().inv_cdf(POWER), computed once


def _discordance_n(delta: float, discordance: float, z_alpha: float) -> float:
    psi = max(discordance, delta)
    return (z_alpha * math.sqrt(psi) + _Z_POWER * math.sqrt(max(psi - delta * delta, 0.0))) ** 2 / (delta * delta)


def smallest_binary_drop(n: int, discordance: float, confidence: float) -> float | None:
    """The smallest drop of a 0/1 metric that n paired questions, of which a share
    `discordance` change outcome between the runs, detect 80 % of the time; None when not
    even a drop from 100 % to 0 % would be."""
    z_alpha = two_sided_z(confidence)
    if n == 0 or _discordance_n(1.0, discordance, z_alpha) > n:
        return None
    # The questions a drop needs fall as the drop grows: bisect for the one n affords.
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if _discordance_n(mid, discordance, z_alpha) <= n else (mid, high)
    return high


def binary_power(a: np.ndarray, b: np.ndarray, *, drop: float, confidence: float) -> Power:
    """Power from the paired discordance of 0/1 outcomes (questions measured in both runs)."""
    n = len(a)
    if n == 0:
        return Power(None, None, drop, 0)
    discordance = float(np.mean(a != b))
    # max_drop 0 (any drop flagged) asks for a drop of nothing: no n detects it.
    n_needed = math.ceil(_discordance_n(drop, discordance, two_sided_z(confidence))) if drop > 0 else None
    return Power(smallest_binary_drop(n, discordance, confidence), n_needed, drop, n)


def ratio_power(num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, *, drop: float, span: float, confidence: float) -> Power:
    """Power of Δ = Σnum_b/Σden_b − Σnum_a/Σden_a from the paired variance of each question's share.

    `span` is the metric's range (1 for a rate, 4 for utility): a detectable drop beyond it is none.
    """
    n = len(num_a)
    if n < 2 or den_a.sum() <= 0 or den_b.sum() <= 0:
        return Power(None, None, drop, n)
    # Linearised ratio: question i moves Σnum/Σden by (num_i − R·den_i) / Σden.
    share_a = (num_a - num_a.sum() / den_a.sum() * den_a) / den_a.mean()
    share_b = (num_b - num_b.sum() / den_b.sum() * den_b) / den_b.mean()
    sigma = float(np.std(share_b - share_a, ddof=1))
    if not sigma > 1e-12:
        return Power(None, None, drop, n)
    z = two_sided_z(confidence) + _Z_POWER
    mde = z * sigma / math.sqrt(n)
    return Power(mde if mde <= span else None, math.ceil((z * sigma / drop) ** 2) if drop > 0 else None, drop, n)


def metric_power(
    binary: bool,
    num_a: np.ndarray,
    den_a: np.ndarray,
    num_b: np.ndarray,
    den_b: np.ndarray,
    *,
    drop: float,
    span: float,
    confidence: float,
) -> Power:
    """Power of one compared metric from its paired per-question (num, den) columns.

    A 0/1 metric uses the questions measured in both runs (the pairs McNemar counts);
    another uses every question of its population in either run (the rows its Δ pools).
    """
    if binary:
        both = (den_a > 0) & (den_b > 0)
        return binary_power(num_a[both], num_b[both], drop=drop, confidence=confidence)
    either = (den_a > 0) | (den_b > 0)
    return ratio_power(num_a[either], den_a[either], num_b[either], den_b[either], drop=drop, span=span, confidence=confidence)
