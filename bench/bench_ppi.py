"""Coverage of the corrected faithfulness interval (PPI++) on simulated labels, at the sizes users have.

A known truth, a judge that overrates (it calls 35 % of unsupported sentences attested and
misses 5 % of supported ones), answers of 1–6 sentences whose sentences share a quality,
a gold set of 120 answers of which 5, 10, 20 or 40 are labelled. For each size, the share
of simulations whose 95 % interval holds the truth, side by side:

- t: θ̂ ± t·√Var, the answer-clustered variance, t on the G labelled answers' degrees of
  freedom (G − 1, G − 2 with λ fitted) — ragtui's;
- bootstrap: the percentile interval of θ̂ over resamples of labelled and unlabelled
  answers (λ re-tuned in each), the other candidate (on at most 300 gold sets: it is slow);
- normal: θ̂ ± 1.96·√Var, the same estimate with the normal quantile ragtui used before.

ragtui uses the t interval and gives no corrected value under `MIN_CORRECTED_ANSWERS` (10)
labelled answers. The last line is the interval beside the naive one that takes sentences as
independent, on the 400-answer, 40-label run this bench measured first.
Run: `.venv/bin/python bench/bench_ppi.py [SIMULATIONS]` (default 2000; the bootstrap column
takes most of the time, about 20 minutes on the shared 2-core machine).
"""

from __future__ import annotations

import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragtui.core.measuring.label_values import MIN_CORRECTED_ANSWERS
from ragtui.core.measuring.ppi import ppi_mean, z_value

SIZES = (5, 10, 20, 40)
BOOTSTRAP = 200
BOOTSTRAPPED = 300  # gold sets the bootstrap column is measured on


def simulate(rng: np.random.Generator, answers: int = 120, labelled: int = 10):
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


def _resample(rng: np.random.Generator, values: tuple[np.ndarray, ...], groups: np.ndarray) -> tuple[np.ndarray, ...]:
    """Whole answers drawn with replacement (each draw a new answer number)."""
    distinct = np.unique(groups)
    drawn = rng.choice(distinct, size=distinct.size, replace=True)
    rows = [np.flatnonzero(groups == g) for g in drawn]
    index = np.concatenate(rows)
    renumbered = np.repeat(np.arange(drawn.size), [r.size for r in rows])
    return (*(v[index] for v in values), renumbered)


def bootstrap_interval(rng: np.random.Generator, y, f, g, ft, gt) -> tuple[float, float]:
    values = []
    for _ in range(BOOTSTRAP):
        yb, fb, gb = _resample(rng, (y, f), g)
        ftb, gtb = _resample(rng, (ft,), gt)
        result = ppi_mean(yb, fb, gb, ftb, gtb, bounds=(0.0, 1.0))
        if result is not None:
            values.append(result.value)
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)


def coverage_by_size(simulations: int, seed: int = 33) -> dict[int, dict[str, float]]:
    out = {}
    for labelled in SIZES:
        rng = np.random.default_rng(seed + labelled)
        covered = {"t": 0, "bootstrap": 0, "normal": 0}
        widths = {"t": 0.0, "bootstrap": 0.0}
        bootstrapped = min(simulations, BOOTSTRAPPED)
        for run in range(simulations):
            truth, (y, f, g), (ft, gt), _ = simulate(rng, labelled=labelled)
            y, f, ft = y.astype(float), f.astype(float), ft.astype(float)
            result = ppi_mean(y, f, g, ft, gt, bounds=(0.0, 1.0))
            low, high = result.ci
            covered["t"] += low <= truth <= high
            widths["t"] += high - low
            half = z_value(0.95) * math.sqrt(result.variance)
            covered["normal"] += result.value - half <= truth <= result.value + half
            if run < bootstrapped:
                low, high = bootstrap_interval(rng, y, f, g, ft, gt)
                covered["bootstrap"] += low <= truth <= high
                widths["bootstrap"] += high - low
        shares = {"t": simulations, "normal": simulations, "bootstrap": bootstrapped}
        out[labelled] = {
            **{name: count / shares[name] for name, count in covered.items()},
            "half_t": widths["t"] / simulations / 2,
            "half_bootstrap": widths["bootstrap"] / bootstrapped / 2,
        }
    return out


def naive_covers(y, f, f_tilde, lam, value, truth) -> bool:
    variance = lam**2 * f_tilde.var() / max(f_tilde.size, 1) + (y - lam * f).var() / y.size
    half = z_value(0.95) * variance**0.5
    return value - half <= truth <= value + half


def large_run(simulations: int, seed: int = 7) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    covered = naive = 0
    for _ in range(simulations):
        truth, (y, f, g), (ft, gt), _ = simulate(rng, answers=400, labelled=40)
        y, f, ft = y.astype(float), f.astype(float), ft.astype(float)
        result = ppi_mean(y, f, g, ft, gt, bounds=(0.0, 1.0))
        covered += result.ci[0] <= truth <= result.ci[1]
        naive += naive_covers(y, f, ft, result.lam, result.value, truth)
    return {"ppi": covered / simulations, "naive": naive / simulations}


def main() -> None:
    simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    start = time.perf_counter()
    figures = coverage_by_size(simulations)
    print(f"{simulations} simulated gold sets of 120 answers ({min(simulations, BOOTSTRAPPED)} for the bootstrap), the judge overrating unsupported sentences;")
    print(f"coverage of the nominal 95 % corrected interval (floor 93 %) — {platform.machine()}, {platform.python_version()}")
    print(f"{'labelled answers':>17} | {'t, ragtui':>16} | {'answer bootstrap':>16} | {'normal quantile':>15} | half-width t / bootstrap")
    for labelled, row in figures.items():
        shown = "" if labelled >= MIN_CORRECTED_ANSWERS else "  (not shown: under the minimum)"
        print(
            f"{labelled:>17} | {row['t']:>16.1%} | {row['bootstrap']:>16.1%} | {row['normal']:>15.1%} | "
            f"±{row['half_t'] * 100:.1f} / ±{row['half_bootstrap'] * 100:.1f} pts{shown}"
        )
    big = large_run(max(simulations, 500))
    print(f"400 answers, 40 labelled: t interval {big['ppi']:.1%}, sentences taken as independent {big['naive']:.1%}")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
