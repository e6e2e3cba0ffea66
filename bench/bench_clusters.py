"""Coverage of Δ's interval when questions share documents: independent against clustered.

Gold sets of 50–200 questions written from 8–30 documents; both the level of a 0/1 metric
and its change between A and B vary by document (a probit model: a document effect of sd 1
on the level, of sd 0.25 or 0.5 on the change, question noise correlated between the runs). For each
design, the share of simulations whose nominal 95 % interval holds the true Δ, side by side:

- independent: the paired bootstrap over questions (ragtui without documents);
- cluster percentile: the bootstrap over documents, plain percentile interval;
- expanded percentile: the same, expanded for few documents (√(G/(G−1))·t_{G−1});
- clustered (ragtui): Δ̂ ± t_ν·√V, the CR2 variance with its Satterthwaite ν
  (comparing/clustered.py);
- and the clustered paired test's rejection rate when the mean change is 0 (its level, 5 %).

Seeds: each design's simulations draw from `default_rng(34 + documents + questions)`, run r's
bootstraps from seed r; the true Δ is the mean over 4,000 draws from `default_rng(1)`.
The floor is 93 %. Run: `.venv/bin/python bench/bench_clusters.py [SIMULATIONS]` (default 400).
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragtui.core.comparing.clustered import cluster_columns, clustered_change, clustered_paired_p, expanded_confidence
from ragtui.core.comparing.stats import paired_bootstrap_ci, paired_bootstrap_deltas, percentile_interval
from ragtui.core.measuring.clusters import Clusters

# (documents, questions, sd of the documents' change): a change that differs a little, or a
# lot, from one document to the next.
DESIGNS = ((8, 50, 0.5), (8, 120, 0.25), (8, 120, 0.5), (15, 120, 0.5), (15, 200, 0.5), (30, 200, 0.5))
RESAMPLES = 2000


def simulate(rng: np.random.Generator, documents: int, questions: int, mean_shift: float = -0.3, spread: float = 0.5):
    sizes = rng.multinomial(questions - documents, np.ones(documents) / documents) + 1
    index = np.repeat(np.arange(documents), sizes)
    level = rng.normal(1.0, 1.0, documents)[index]
    shift = rng.normal(mean_shift, spread, documents)[index]
    noise_a = rng.normal(0, 0.7, questions)
    noise_b = 0.5 * noise_a + rng.normal(0, 0.6, questions)
    a = (level + noise_a > 0).astype(np.float64)
    b = (level + shift + noise_b > 0).astype(np.float64)
    return a, b, Clusters(index, documents)


def true_delta(documents: int, questions: int, spread: float, draws: int = 4000) -> float:
    rng = np.random.default_rng(1)
    return float(np.mean([b.mean() - a.mean() for a, b, _ in (simulate(rng, documents, questions, spread=spread) for _ in range(draws))]))


def coverage(documents: int, questions: int, spread: float, simulations: int) -> dict[str, float]:
    truth = true_delta(documents, questions, spread)
    rng = np.random.default_rng(34 + documents + questions)
    ones = np.ones(questions)
    counts = {"independent": 0, "percentile": 0, "expanded": 0, "clustered": 0, "level": 0}
    for run in range(simulations):
        a, b, clusters = simulate(rng, documents, questions, spread=spread)
        low, high = paired_bootstrap_ci(a, ones, b, ones, resamples=RESAMPLES, seed=run)
        counts["independent"] += low <= truth <= high
        deltas = paired_bootstrap_deltas(*cluster_columns(clusters, a, ones, b, ones), resamples=RESAMPLES, seed=run)
        low, high = percentile_interval(deltas, 0.95)
        counts["percentile"] += low <= truth <= high
        low, high = percentile_interval(deltas, expanded_confidence(0.95, documents))
        counts["expanded"] += low <= truth <= high
        change = clustered_change(a, ones, b, ones, clusters)
        low, high = change.interval(0.95) if change is not None else (-1.0, 1.0)
        counts["clustered"] += low <= truth <= high
        null_a, null_b, null_clusters = simulate(rng, documents, questions, mean_shift=0.0, spread=spread)
        counts["level"] += clustered_paired_p(null_b - null_a, null_clusters) < 0.05
    return {name: count / simulations for name, count in counts.items()}


def main() -> None:
    simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    start = time.perf_counter()
    print(f"{simulations} simulated gold sets per design; nominal 95 % interval of Δ recall (floor 93 %)")
    print(f"{platform.machine()}, Python {platform.python_version()}")
    print(f"{'documents × questions, sd':>26} | {'independent':>11} | {'cluster pct':>11} | {'expanded pct':>12} | {'CR2 t (ragtui)':>14} | test level (5 %)")
    for documents, questions, spread in DESIGNS:
        row = coverage(documents, questions, spread, simulations)
        print(
            f"{f'{documents} × {questions}, {spread:g}':>26} | {row['independent']:>11.1%} | {row['percentile']:>11.1%} | "
            f"{row['expanded']:>12.1%} | {row['clustered']:>14.1%} | {row['level']:.1%}"
        )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
