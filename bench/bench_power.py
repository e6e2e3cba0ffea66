"""Power bench: does a comparison of `n_needed` questions detect a true 3-point drop 80 % of the time?

For a 0/1 metric (recall-like) and for faithfulness (a pooled ratio of attested sentences),
a known population with a true drop is set up; `n_needed` and `mde` are computed exactly as
the report computes them (`ragtui.core.comparing.power.metric_power`, from a large pilot
drawn from that population), then many seeded comparisons of that size are drawn and each
is decided as the app decides a regression: the paired bootstrap interval of Δ lies wholly
below 0. The share detected is the achieved power, printed beside the nominal 80 % with its
Monte Carlo standard error. The same check follows for `mde` at n = 120 (the sample's size):
a population whose true drop is the mde, 120 questions, detected about 80 % of the time.

Prints figures; asserts nothing.
Usage: python bench/bench_power.py [--reps 1000] [--resamples 2000] [--seed 20261130]
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from headlines import record  # noqa: E402 - beside this script

from ragtui.core.comparing.power import POWER, metric_power  # noqa: E402
from ragtui.core.comparing.stats import paired_bootstrap_ci  # noqa: E402

CONFIDENCE = 0.95
PILOT = 200_000


class Binary:
    """Paired 0/1 outcomes: A succeeds with `rate`, A and B disagree on `discordance` of questions."""

    def __init__(self, rate: float, discordance: float, drop: float) -> None:
        worse, better = (discordance + drop) / 2, (discordance - drop) / 2
        # (A=1,B=0), (A=0,B=1), (A=1,B=1), (A=0,B=0)
        self.cells = np.array([worse, better, rate - worse, 1 - rate - better])
        self.label = f"0/1 metric: A {rate:.0%}, discordance {discordance:.0%}, true drop {drop * 100:g} pts"

    def draw(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        kind = rng.choice(4, size=n, p=self.cells)
        a = ((kind == 0) | (kind == 2)).astype(float)
        b = ((kind == 1) | (kind == 2)).astype(float)
        ones = np.ones(n)
        return a, ones, b, ones


class Faithfulness:
    """Sentences per question 1 + Poisson(2); each question its own attestation rate ~ Beta.

    B keeps A's sentences; an attested sentence loses its attestation with probability f, an
    unattested one gains it with probability `gain`; f is set so B's pooled rate is exactly
    `drop` below A's in expectation. The question-level rates make A and B correlated, and
    the sentence counts make faithfulness a ratio, not a mean.
    """

    def __init__(self, alpha: float, beta: float, drop: float, gain: float = 0.3) -> None:
        self.alpha, self.beta, self.gain = alpha, beta, gain
        rate = alpha / (alpha + beta)
        self.lose = (drop + (1 - rate) * gain) / rate
        self.label = f"faithfulness: A {rate:.1%} of sentences, true drop {drop * 100:g} pts"

    def draw(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        sentences = 1 + rng.poisson(2.0, n)
        attested_a = rng.binomial(sentences, rng.beta(self.alpha, self.beta, n))
        kept = rng.binomial(attested_a, 1 - self.lose)
        gained = rng.binomial(sentences - attested_a, self.gain)
        den = sentences.astype(float)
        return attested_a.astype(float), den, (kept + gained).astype(float), den


def achieved_power(population, n: int, reps: int, resamples: int, rng: np.random.Generator) -> float:
    detected = 0
    for _ in range(reps):
        num_a, den_a, num_b, den_b = population.draw(rng, n)
        ci = paired_bootstrap_ci(num_a, den_a, num_b, den_b, confidence=CONFIDENCE, resamples=resamples, seed=int(rng.integers(1 << 31)))
        detected += ci is not None and ci[1] < 0  # the app's rule: the interval lies below 0
    return detected / reps


def pilot_power(population, binary: bool, rng: np.random.Generator, size: int = PILOT):
    """`metric_power` on a pilot of PILOT questions, as the report computes it from observed runs.

    Returns a function drop → Power, so `n_needed` can be asked for any drop.
    """
    pilot = population.draw(rng, size)
    return lambda drop: metric_power(binary, *pilot, drop=drop, span=1.0, confidence=CONFIDENCE)


def drop_detectable_at(remake, binary: bool, n: int, rng: np.random.Generator) -> float:
    """The drop d whose `n_needed`, computed on a pilot of the population with true drop d, is n.

    The pilot of each candidate d carries that d's own variance (a bigger drop moves more
    sentences, so the paired variance grows with it), as an observed comparison would.
    """
    low, high = 1e-3, 0.5
    for _ in range(30):
        mid = (low + high) / 2
        needed = pilot_power(remake(mid), binary, rng, size=50_000)(mid).n_needed
        low, high = (low, mid) if needed <= n else (mid, high)
    return high


def standard_error(power: float, reps: int) -> float:
    """The Monte Carlo standard error of a share detected over `reps` comparisons."""
    return math.sqrt(power * (1 - power) / reps)


def line(label: str, n: int, power: float, reps: int, seconds: float) -> None:
    se = standard_error(power, reps)
    print(f"  {label:<36} n = {n:>5,}  achieved {power:6.1%} ± {se:.1%}  (nominal {POWER:.0%}; {reps} runs, {seconds:.1f} s)")


def cpu_name() -> str:
    try:
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="simulated comparisons per figure")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per comparison (the app uses 10,000)")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"machine: {cpu_name()} ({platform.machine()}) · Python {platform.python_version()} · numpy {np.__version__} · seed {args.seed}")
    print(f"detection: paired bootstrap {CONFIDENCE:.0%} interval of Δ wholly below 0 ({args.resamples} resamples)\n")
    max_drop = 0.03
    cases = [
        (Binary(0.85, 0.10, max_drop), True, lambda drop: Binary(0.85, max(0.10, drop), drop)),
        (Faithfulness(8.0, 1.1, max_drop), False, lambda drop: Faithfulness(8.0, 1.1, drop)),
    ]
    for population, binary, remake in cases:
        print(population.label)
        power_for = pilot_power(population, binary, rng)
        n_needed = power_for(max_drop).n_needed
        start = time.perf_counter()
        achieved = achieved_power(population, n_needed, args.reps, args.resamples, rng)
        line(f"at n_needed for {max_drop * 100:g} pts", n_needed, achieved, args.reps, time.perf_counter() - start)
        record("power_binary" if binary else "power_faithfulness", figure=achieved, reference=POWER,
               detail=f"± {standard_error(achieved, args.reps):.1%} over {args.reps:,} seeded comparisons of {n_needed:,}")
        # The mde of a smaller comparison, checked on a population whose true drop is that mde.
        n_small = 120  # the bundled sample's size
        mde = drop_detectable_at(remake, binary, n_small, rng)
        start = time.perf_counter()
        achieved = achieved_power(remake(mde), n_small, args.reps, args.resamples, rng)
        line(f"at n = {n_small}, true drop = mde {mde * 100:.1f} pts", n_small, achieved, args.reps, time.perf_counter() - start)
        print()


if __name__ == "__main__":
    main()
