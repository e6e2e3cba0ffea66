"""Coverage of the corrected faithfulness interval (PPI++) on simulated labels.

A known truth, a judge that overrates (it calls 35 % of unsupported sentences attested
and misses 5 % of supported ones), answers of 1–6 sentences whose sentences share a
quality: the share of simulations whose 95 % interval holds the truth should be 95 %.
Beside it, the same count for the naive interval that treats sentences as independent
(the floor this estimator must beat) and for the raw judge value (which a biased judge
never covers). Run: `.venv/bin/python bench/bench_ppi.py [SIMULATIONS]`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragtui.core.measuring.ppi import ppi_mean, z_value


def simulate(rng: np.random.Generator, answers: int = 400, labelled: int = 40):
    """(truth, labelled arrays, unlabelled arrays, raw judge mean) for one simulated run."""
    sizes = rng.integers(1, 7, size=answers)
    quality = rng.beta(2, 1, size=answers)
    groups = np.repeat(np.arange(answers), sizes)
    y = rng.random(groups.size) < quality[groups]
    flip_up = rng.random(groups.size) < 0.35
    flip_down = rng.random(groups.size) < 0.05
    f = np.where(y, ~flip_down, flip_up)
    chosen = np.zeros(answers, dtype=bool)
    chosen[rng.choice(answers, size=labelled, replace=False)] = True
    mask = chosen[groups]
    truth = y.mean()
    return truth, (y[mask], f[mask], groups[mask]), (f[~mask], groups[~mask]), f.mean()


def naive_covers(y, f, f_tilde, lam, value, truth) -> bool:
    variance = lam**2 * f_tilde.var() / max(f_tilde.size, 1) + (y - lam * f).var() / y.size
    half = z_value(0.95) * variance**0.5
    return value - half <= truth <= value + half


def coverage(simulations: int, seed: int = 7) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    covered = naive = raw = 0
    widths = []
    for _ in range(simulations):
        truth, (y, f, g), (ft, gt), raw_value = simulate(rng)
        result = ppi_mean(y, f, g, ft, gt, bounds=(0.0, 1.0))
        low, high = result.ci
        covered += low <= truth <= high
        widths.append(high - low)
        naive += naive_covers(y, f, ft, result.lam, result.value, truth)
        raw += abs(raw_value - truth) <= (high - low) / 2
    return {
        "ppi": covered / simulations,
        "naive": naive / simulations,
        "raw": raw / simulations,
        "half_width": float(np.mean(widths)) / 2,
    }


def main() -> None:
    simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    start = time.perf_counter()
    figures = coverage(simulations)
    elapsed = time.perf_counter() - start
    print(f"{simulations} simulated runs of 400 answers, 40 labelled, judge overrating unsupported sentences")
    print(f"  PPI++ interval, answers as the unit : {figures['ppi']:.1%} cover the truth (target 95 %)")
    print(f"  same, sentences taken as independent: {figures['naive']:.1%}  (the floor it must beat)")
    print(f"  raw judge value as close to the truth : {figures['raw']:.1%}  (the judge's bias)")
    print(f"  mean half-width: ±{figures['half_width'] * 100:.1f} pts · {elapsed / simulations * 1e3:.2f} ms per estimate")


if __name__ == "__main__":
    main()
