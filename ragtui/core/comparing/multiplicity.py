"""p-values adjusted for testing many cells at once: Holm (default) or Benjamini–Hochberg.

The category grid asks some forty questions ("did this metric move in this category?"); at
5 % each, two "changes" are expected by chance alone. Holm's step-down adjustment keeps the
chance of any false "regressed" in the grid at 1 − confidence; Benjamini–Hochberg (config
`regression.multiple_testing: bh`) keeps the expected share of false ones among those
reported at that level instead, and finds more. Both as statsmodels' `multipletests`
computes them (a test checks it):

- Holm: sort p ascending; p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j));
- BH: p̃_(i) = min_{j ≥ i} min(1, m·p_(j) / j).
"""

from __future__ import annotations

import numpy as np


def adjust_p_values(p_values: list[float], method: str = "holm") -> list[float]:
    """The adjusted p-values, in the order given."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    elif method == "bh":
        adjusted = np.minimum.accumulate((m * ranked / np.arange(1, m + 1))[::-1])[::-1]
        adjusted = np.minimum(1.0, adjusted)
    else:
        raise ValueError(f"unknown adjustment {method!r}")
    out = np.empty(m)
    out[order] = adjusted
    return [float(value) for value in out]
