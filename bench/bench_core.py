"""Core benchmark: ragtui's metrics beside pytrec_eval and a plain Python loop, and the
end-to-end `ragtui report A B --gold G --format json` beside polars alone reading the files
(G: a JSONL gold set of the same questions).

Prints figures; asserts nothing (speed is measured, not asserted in tests).
Usage: python bench/bench_core.py [--sizes 1000,10000,100000] [--out bench/out]
Goals (issue #2): at 100k, metrics ≥ 5× faster than pytrec_eval; report on two JSONL
runs ≤ 2.5× polars reading both; peak memory < 2 GB.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO))  # this checkout's ragtui, not an installed one (children: PYTHONPATH below)
from headlines import record  # noqa: E402
from make_runs import gold_file, write  # noqa: E402

from ragtui.core.loading.config import Config  # noqa: E402
from ragtui.core.loading.runs import load_run  # noqa: E402
from ragtui.core.measuring.evaluate import evaluate  # noqa: E402
from ragtui.core.measuring.metrics import summarize  # noqa: E402
from ragtui.core.measuring.retrieval import ranked_relevance, retrieval_outcomes  # noqa: E402

MEASURES = {"success.5,10", "recall.5,10", "P.5,10", "ndcg_cut.5,10", "recip_rank"}


def ragtui_metrics(frame: pl.DataFrame) -> float:
    """success, recall, P, ndcg_cut at 5 and 10 and recip_rank, per question and averaged."""
    frame = frame.select("gold_passages", "retrieved_ids")  # the same input pytrec_eval gets
    start = time.perf_counter()
    ranked = ranked_relevance(frame)  # located once, like pytrec_eval's one evaluate() call
    for k in (5, 10):
        outcomes = retrieval_outcomes(frame, k, ranked)
        answerable = pl.col("n_gold") > 0
        outcomes.select(
            pl.col("hit_at_k", "context_recall_at_k", "precision_at_k", "ndcg_at_k").filter(answerable).mean(),
            (1.0 / pl.col("first_gold_rank")).fill_null(0.0).filter(answerable).mean().alias("recip_rank"),
        )
    return time.perf_counter() - start


def ragtui_full_evaluation(run) -> float:
    """Everything ragtui computes per question (answers, abstention, failure kinds) at k = 5."""
    start = time.perf_counter()
    summarize(evaluate(run, None, Config()))
    return time.perf_counter() - start


def pytrec_metrics(frame: pl.DataFrame) -> float | None:
    try:
        import pytrec_eval
    except ImportError:
        return None
    rows = frame.select("id", "gold_passages", "retrieved_ids").filter(pl.col("gold_passages").list.len() > 0)
    qrels = {q: {d: 1 for d in gold} for q, gold, _ in rows.iter_rows()}
    # Scores strictly decreasing by rank so pytrec_eval keeps ragtui's order.
    runs = {q: {d: float(100 - r) for r, d in enumerate(dict.fromkeys(ret))} for q, _, ret in rows.iter_rows()}
    start = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    evaluator.evaluate(runs)
    return time.perf_counter() - start


def python_loop(frame: pl.DataFrame) -> float:
    rows = frame.select("gold_passages", "retrieved_ids").rows()
    start = time.perf_counter()
    totals: dict[str, float] = {}
    for k in (5, 10):
        for gold, retrieved in rows:
            if not gold:
                continue
            gold_set = set(gold)
            ranked = list(dict.fromkeys(retrieved))
            top = ranked[:k]
            hits = [d in gold_set for d in top]
            n_hits = sum(hits)
            dcg = sum(1 / math.log2(i + 2) for i, h in enumerate(hits) if h)
            ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold_set), k)))
            first = next((i + 1 for i, d in enumerate(ranked) if d in gold_set), None)
            for name, value in (
                ("success", n_hits > 0), ("recall", n_hits / len(gold_set)), ("P", n_hits / k),
                ("ndcg", dcg / ideal), ("rr", 1 / first if first else 0.0),
            ):
                totals[name] = totals.get(name, 0.0) + value
    return time.perf_counter() - start


def timed_process(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a child process."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(argv)} (status {status})")
    return elapsed, usage.ru_maxrss / 1024


def end_to_end(p: dict[str, Path], n: int, gold: Path) -> None:
    """`ragtui report --gold` beside polars alone, each in a fresh process (peak RSS is its own)."""
    python = sys.executable
    paths = [str(p["a_jsonl"]), str(p["b_jsonl"])]
    read_both = (
        "import io, polars as pl\n"
        f"for path in {paths!r}:\n"
        "    data = open(path, 'rb').read()\n"
        "    pl.read_ndjson(io.BytesIO(data[data.index(b'\\n') + 1:]))\n"
    )
    polars_time, polars_mem = min(timed_process([python, "-c", read_both]) for _ in range(2))
    print(f"At {n:,} questions (two runs, 20 passages each), best of 2:")
    print(f"  {'polars alone reading both JSONL files:':<51} {polars_time:6.2f} s, peak {polars_mem:6.0f} MB")
    for kind in ("jsonl", "parquet"):
        argv = [python, "-m", "ragtui", "report", str(p[f"a_{kind}"]), str(p[f"b_{kind}"]), "--gold", str(gold), "--format", "json"]
        elapsed, mem = min(timed_process(argv) for _ in range(2))
        note = f" ({elapsed / polars_time:.2f}× polars reading the JSONL)" if kind == "jsonl" else ""
        print(f"  ragtui report A B --gold G --format json ({kind:7}): {elapsed:6.2f} s, peak {mem:6.0f} MB{note}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "out"))
    args = parser.parse_args()
    out = Path(args.out)
    sizes = [int(s) for s in args.sizes.split(",")]
    # Generate in a child process, so this one stays small: a child forked from a large
    # parent would report the parent's memory as its own peak.
    for n in sizes:
        subprocess.run([sys.executable, str(Path(__file__).with_name("make_runs.py")), str(n), str(out)], check=True)
    paths = {n: write(n, out) for n in sizes}
    largest = max(sizes)
    end_to_end(paths[largest], largest, gold_file(paths[largest]["a_jsonl"], out / f"gold_{largest}.jsonl"))
    print("Retrieval metrics (success/recall/P/ndcg_cut at 5 and 10, recip_rank), best of 3:")
    print(f"{'questions':>10} {'ragtui':>9} {'pytrec_eval':>12} {'python loop':>12} {'ragtui vs pytrec':>17} {'all ragtui metrics':>19}")
    for n in sizes:
        run = load_run(paths[n]["a_jsonl"])
        ours = min(ragtui_metrics(run.frame) for _ in range(3))
        theirs = min((pytrec_metrics(run.frame) or 0.0) for _ in range(3)) or None
        loop = min(python_loop(run.frame) for _ in range(3))
        full = min(ragtui_full_evaluation(run) for _ in range(3))
        ratio = f"{theirs / ours:.1f}× faster" if theirs else "n/a"
        theirs_text = f"{theirs:.3f}s" if theirs else "missing"
        print(f"{n:>10} {ours:>8.3f}s {theirs_text:>12} {loop:>11.3f}s {ratio:>17} {full:>18.3f}s")
        if n == largest:
            record("retrieval", size=n, figure=ours, reference=theirs, detail=f"{ratio} than pytrec_eval" if theirs else "")
    print("(pytrec_eval: its evaluate() only, after its input dicts were built; all ragtui metrics: every")
    print(" per-question outcome of docs/metrics.md at k = 5 — answers, abstention, failure kinds — and their means)")


if __name__ == "__main__":
    main()
