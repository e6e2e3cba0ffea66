"""Generate large synthetic runs (with gold fields inline) for the benchmarks.

`python bench/make_runs.py N OUTDIR` writes OUTDIR/a_N.jsonl, b_N.jsonl and the same as
Parquet: N questions, 20 retrieved passages each (id, ~120-character text, score), an
answer of 1–4 sentences with judge verdicts and a utility score. B is A with some
retrieval and faithfulness changes, so a comparison has something to find.
Deterministic (seeded); numbers only matter for timing, not for meaning. Records are
written as they are made, so 1,000,000 questions (about 1 GB a run) need little memory;
`--no-parquet` skips the Parquet copies. `gold_file` writes a JSONL gold set of a run's
questions, for the benches that open a comparison with `--gold`.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

CATEGORIES = ["factuelle_courte", "procedurale", "sans_reponse", "contradiction_connue"]
# Accented, as the French texts of real runs are: an ASCII-only corpus hid a regular
# expression that read non-ASCII text a hundred times slower (docs/performance.md).
WORDS = "salarié congé télétravail accord avenant frais barème règlement charte jours mois prime cadre".split()
META = {"generated_by": "make_runs.py 2 (accented texts)", "generator_model": "llama-3.1-70b-instruct", "judge_model": "claude-sonnet-4", "k": 5}


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(16))


def make_records(n: int, seed: int, shift: float) -> Iterator[dict]:
    rng = random.Random(seed)
    for i in range(n):
        category = CATEGORIES[i % 4]
        gold = [] if category == "sans_reponse" else [f"p{(i * 7 + j) % 50000:05d}" for j in range(1 + i % 2)]
        pool = [f"p{rng.randrange(50000):05d}" for _ in range(20)]
        if gold and rng.random() < 0.8 + shift:
            pool[rng.randrange(8)] = gold[0]
        retrieved = [{"id": pid, "text": _text(rng), "score": round(1 - r / 25, 4)} for r, pid in enumerate(pool)]
        sentences = [
            {"text": f"Phrase {s} de la réponse {i}.", "attested": rng.random() < 0.88 - shift, "evidence": [pool[0]], "reason": "overlap"}
            for s in range(1 + i % 4)
        ]
        abstain = category == "sans_reponse" and rng.random() < 0.85
        yield {
            "id": f"q{i:06d}",
            "question": f"Question {i} sur {rng.choice(WORDS)} ?",
            "category": category,
            "gold_passages": gold,
            "retrieved": retrieved,
            "answer": "Je ne trouve pas cette information." if abstain else " ".join(s["text"] for s in sentences),
            "judge": {
                "model": "claude-sonnet-4",
                "faithfulness": {"sentences": sentences},
                "utility": {"score": rng.randint(2, 5), "reason": "synthetic"},
                "error": None,
            },
            "latency_ms": rng.randint(300, 3000),
            "cost_usd": round(rng.random() / 1000, 6),
        }


def _made_with(jsonl: Path, meta: dict) -> bool:
    """Whether `jsonl` exists and was written by this version of the generator (its
    metadata line): files of an older version are written again, not timed as if new."""
    try:
        with jsonl.open(encoding="utf-8") as handle:
            return json.loads(handle.readline()) == {"run": meta}
    except (OSError, ValueError):
        return False


def write(n: int, out: Path, parquet: bool = True) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for label, seed, shift in (("a", 1, 0.0), ("b", 2, 0.02)):
        jsonl = out / f"{label}_{n}.jsonl"
        paths[f"{label}_jsonl"] = jsonl
        paths[f"{label}_parquet"] = out / f"{label}_{n}.parquet"
        meta = {"name": f"bench-{label}", **META}
        written = not _made_with(jsonl, meta)
        if written:
            partial = jsonl.with_suffix(".partial")
            with partial.open("w", encoding="utf-8") as handle:
                handle.write(json.dumps({"run": meta}) + "\n")
                for record in make_records(n, seed, shift):
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            partial.replace(jsonl)  # an interrupted run leaves no truncated file to time
        if parquet and (written or not paths[f"{label}_parquet"].exists()):
            import polars as pl

            # Streaming: the records after the metadata line, never the whole file in memory.
            body = pl.scan_ndjson(jsonl, infer_schema_length=10_000).slice(1).drop("run")
            body.sink_parquet(paths[f"{label}_parquet"], metadata={"ragtui.run": json.dumps(meta)})
    return paths


def gold_file(run: Path, gold: Path) -> Path:
    """A JSONL gold set of the run's questions (id, question, category, gold passages, an
    expected answer), written once."""
    if gold.exists() and gold.stat().st_mtime >= run.stat().st_mtime:
        return gold
    partial = gold.with_suffix(".partial")
    with run.open(encoding="utf-8") as source, partial.open("w", encoding="utf-8") as out:
        next(source)  # the metadata line
        for line in source:
            record = json.loads(line)
            kept = {name: record[name] for name in ("id", "question", "category", "gold_passages")}
            out.write(json.dumps({**kept, "expected_answer": f"Réponse attendue {record['id']}"}, ensure_ascii=False) + "\n")
    partial.replace(gold)
    return gold


if __name__ == "__main__":
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    write(int(args[0]), Path(args[1]), parquet="--no-parquet" not in sys.argv)
