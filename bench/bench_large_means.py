"""Δ of a many-valued mean at the size where the report switches from the bootstrap to the t interval.

From `stats.T_INTERVAL_FROM` questions on, the Δ of a mean whose values differ on nearly
every question (cost, tokens) gets the t interval of its linearisation
(`clustered.independent_change`) instead of the paired bootstrap, which would resample
10,000 × n rows. This script checks, at and just above that size, on costs as skewed as real
ones (log-normal, 10 % free answers, a few answers fifty times dearer, 1 % system errors that
leave a question out of a run's mean):

- coverage: the share of simulated comparisons whose nominal 95 % interval holds the true Δ,
  for the t interval (ragtui) and for the percentile bootstrap it replaces (2,000 resamples
  here to keep the run short), each with its Monte Carlo standard error;
- agreement: on one seeded comparison per design, how far each end of the t interval lies
  from the same end of the report's own bootstrap (10,000 resamples, the report's seed), in
  units of that end's Monte Carlo standard deviation (from 8 more bootstrap seeds). Within
  about 2, the two cannot be told apart by the bootstrap itself.

The true Δ is that of a population of 1,000,000 question pairs drawn once per design
(`default_rng(37)`); each simulated comparison draws n of them with replacement from
`default_rng(370 + n)`. Run: `.venv/bin/python bench/bench_large_means.py [T_SIMULATIONS] [BOOTSTRAP_SIMULATIONS]`
(default 2,000 and 100).
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragtui.core.comparing.clustered import independent_change
from ragtui.core.comparing.stats import RESAMPLES, SEED, T_INTERVAL_FROM, bootstrap_delta_sums, paired_values

POPULATION = 1_000_000
SIZES = (T_INTERVAL_FROM, int(T_INTERVAL_FROM * 1.2), int(T_INTERVAL_FROM * 1.6))
# (name, sd of log cost, share of answers 50× dearer in both runs, in B only, B's mean shift)
DESIGNS = (
    ("log-normal sd 1, 10 % free", 1.0, 0.0, 0.0, 0.03),
    ("+ 0.2 % fifty times dearer", 1.0, 0.002, 0.0, 0.03),
    ("sd 1.5, 0.2 % dearer, 0.1 % in B only", 1.5, 0.002, 0.001, 0.0),
)
NOMINAL = 0.95


def population(sd: float, huge: float, huge_b: float, shift: float) -> tuple[np.ndarray, ...]:
    """(num_a, den_a, num_b, den_b) of POPULATION question pairs, in dollars."""
    rng = np.random.default_rng(37)
    base = 0.0005 * rng.lognormal(-sd * sd / 2, sd, POPULATION)
    dear = rng.random(POPULATION) < huge
    cost_a = base * np.where(dear, 50.0, 1.0) * (rng.random(POPULATION) >= 0.10)
    cost_b = base * rng.lognormal(shift, 0.25, POPULATION) * np.where(dear | (rng.random(POPULATION) < huge_b), 50.0, 1.0)
    cost_b *= rng.random(POPULATION) >= 0.10
    den_a = (rng.random(POPULATION) >= 0.01).astype(np.float64)
    den_b = (rng.random(POPULATION) >= 0.01).astype(np.float64)
    return cost_a * den_a, den_a, cost_b * den_b, den_b


def delta_of(columns: tuple[np.ndarray, ...]) -> float:
    num_a, den_a, num_b, den_b = columns
    return float(num_b.sum() / den_b.sum() - num_a.sum() / den_a.sum())


def bootstrap_interval(columns: tuple[np.ndarray, ...], resamples: int, seed: int) -> tuple[float, float]:
    sums = bootstrap_delta_sums(paired_values(*columns), resamples, seed)
    deltas = sums[:, 2] / sums[:, 3] - sums[:, 0] / sums[:, 1]
    low, high = np.quantile(deltas, [(1 - NOMINAL) / 2, (1 + NOMINAL) / 2])
    return float(low), float(high)


def t_interval(columns: tuple[np.ndarray, ...]) -> tuple[float, float]:
    change = independent_change(*columns)
    assert change is not None
    return change.interval(NOMINAL)


def coverage(pop: tuple[np.ndarray, ...], truth: float, n: int, simulations: int, method) -> float:
    rng = np.random.default_rng(370 + n)
    held = 0
    for run in range(simulations):
        index = rng.integers(0, POPULATION, n)
        low, high = method(tuple(column[index] for column in pop), run)
        held += low <= truth <= high
    return held / simulations


def agreement(pop: tuple[np.ndarray, ...], n: int) -> float:
    """max over both ends of |t end − bootstrap end| / the bootstrap end's Monte Carlo sd."""
    sample = tuple(column[np.random.default_rng(3700 + n).integers(0, POPULATION, n)] for column in pop)
    report = np.array(bootstrap_interval(sample, RESAMPLES, SEED))
    others = np.array([bootstrap_interval(sample, RESAMPLES, SEED + 1 + k) for k in range(8)])
    spread = others.std(axis=0, ddof=1)
    return float(np.max(np.abs(np.array(t_interval(sample)) - report) / spread))


def main() -> None:
    t_simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    boot_simulations = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    start, cpu = time.perf_counter(), time.process_time()
    print(f"Δ of a mean cost, nominal {NOMINAL:.0%} interval; the report's t interval from {T_INTERVAL_FROM:,} questions")
    print(f"{platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"coverage over {t_simulations} simulations (t) and {boot_simulations} (bootstrap, 2,000 resamples, at {T_INTERVAL_FROM:,} only);")
    print("agreement: max |t end − bootstrap end| in Monte Carlo sds of the report's bootstrap (10,000 resamples)")
    print(f"{'design':>38} | {'n':>6} | {'t (ragtui)':>14} | {'bootstrap':>14} | agreement")
    for name, sd, huge, huge_b, shift in DESIGNS:
        pop = population(sd, huge, huge_b, shift)
        truth = delta_of(pop)
        for n in SIZES:
            t_cover = coverage(pop, truth, n, t_simulations, lambda columns, _run: t_interval(columns))
            t_se = np.sqrt(t_cover * (1 - t_cover) / t_simulations)
            boot = "—"
            if n == T_INTERVAL_FROM:
                b_cover = coverage(pop, truth, n, boot_simulations, lambda columns, run: bootstrap_interval(columns, 2000, run))
                boot = f"{b_cover:.1%} ± {np.sqrt(b_cover * (1 - b_cover) / boot_simulations):.1%}"
            print(f"{name:>38} | {n:>6,} | {t_cover:>6.1%} ± {t_se:.1%} | {boot:>14} | {agreement(pop, n):.2f}", flush=True)
    print(f"{time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU, load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
