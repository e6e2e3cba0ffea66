"""What the judge-directed detector costs a comparison, beside a floor measured in the same run.

For each size: the detector over every answer and retrieved passage of one run
(`run_flags`, as the report and the app call it), beside polars searching the same
columns for one plain word (the floor: one pass over the same text, no regex work),
and beside the whole `load_comparison` of two runs (what the user waits for).

Prints figures; asserts nothing (speed is measured, not asserted in tests).
Usage: python bench/bench_judge_directed.py [--sizes 10000,100000] [--out bench/out]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's ragtui, not an installed one
from make_runs import write  # noqa: E402

from ragtui.core.judge_directed import run_flags  # noqa: E402
from ragtui.core.loading.inputs import Inputs  # noqa: E402
from ragtui.core.session import load_comparison  # noqa: E402


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _floor(questions: pl.DataFrame) -> None:
    """One literal search over the same answers and passages (no detector)."""
    questions.select(
        pl.col("answer").str.contains("juge", literal=True).sum(),
        pl.col("retrieved_texts").list.eval(pl.element().str.contains("juge", literal=True)).list.any().sum(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--out", default="bench/out")
    args = parser.parse_args()
    print(f"machine: {os.uname().nodename}, {os.cpu_count()} CPUs, polars {pl.__version__}")
    for n in (int(s) for s in args.sizes.split(",")):
        paths = write(n, Path(args.out))
        comparison = load_comparison(Inputs(a=paths["a_jsonl"], b=paths["b_jsonl"]))
        questions = comparison.a.questions
        passages = questions.get_column("retrieved_texts").list.len().sum()
        detector = _best(partial(run_flags, questions))
        floor = _best(partial(_floor, questions))
        whole = _best(partial(load_comparison, Inputs(a=paths["a_jsonl"], b=paths["b_jsonl"])), repeat=1)
        headless = _best(partial(load_comparison, Inputs(a=paths["a_jsonl"], b=paths["b_jsonl"], detail=False)), repeat=1)
        print(
            f"n={n:>7}: {passages} passages · detector {detector:.3f} s per run · literal-search floor {floor:.3f} s "
            f"({detector / floor:.1f}×) · load_comparison of two runs {whole:.2f} s (app), {headless:.2f} s (report); "
            f"detector share ≈ {2 * detector / whole:.0%} of the app's load"
        )


if __name__ == "__main__":
    main()
