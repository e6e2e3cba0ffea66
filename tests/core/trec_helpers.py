"""Build ragtui inputs from TREC qrels + run data, ranked as trec_eval ranks."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from ragtui.core.loading.config import Config
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.runs import load_run
from ragtui.core.measuring.evaluate import evaluate


def rank_like_trec_eval(rows: list[tuple[str, float]]) -> list[str]:
    """trec_eval ignores the rank column: sim descending, then docno descending."""
    return [doc for doc, _ in sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)]


def evaluation_from_trec(qrels: dict[str, dict[str, int]], run: dict[str, list[tuple[str, float]]], k: int, tmp: Path):
    gold = [
        {"id": q, "question": q, "gold_passages": sorted(d for d, rel in docs.items() if rel > 0)}
        for q, docs in sorted(qrels.items())
    ]
    (tmp / "gold.jsonl").write_text("\n".join(json.dumps(g) for g in gold) + "\n")
    records = [{"id": q, "retrieved": rank_like_trec_eval(rows)} for q, rows in sorted(run.items())]
    (tmp / "run.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return evaluate(load_run(tmp / "run.jsonl"), load_gold(tmp / "gold.jsonl"), Config(k=k), k=k)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            qid, _, doc, rel = line.split()
            qrels[qid][doc] = int(rel)
    return qrels


def read_results(path: Path) -> dict[str, list[tuple[str, float]]]:
    run: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.strip():
            qid, _, doc, _, sim, _ = line.split()
            run[qid].append((doc, float(sim)))
    return run
