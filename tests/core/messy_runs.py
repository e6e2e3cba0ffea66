"""Small builders for messy runs: questions missing, judge errors, different judges.

Each test spells out its own records; these helpers only keep them short.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from ragtui.core.comparing.compare import Comparison
from ragtui.core.loading.inputs import Inputs
from ragtui.core.session import load_comparison

FALLBACK = "Je ne trouve pas cette information"


def judge(verdicts: list[bool] | None, utility: int | None = 4, *, model: str = "claude-sonnet-4", error: str | None = None) -> dict:
    """A judge object: sentence verdicts (None: no faithfulness block), a utility score, an error."""
    out: dict = {"model": model, "error": error}
    if verdicts is not None:
        out["faithfulness"] = {"sentences": [{"text": f"S{i}.", "attested": v, "evidence": [], "reason": "r"} for i, v in enumerate(verdicts, 1)]}
    out["utility"] = {"score": utility, "reason": "u"}
    return out


def record(qid: str, *, hit: bool = True, answer: str | None = "S1.", verdicts: list[bool] | None = (True,), utility: int | None = 4,
           category: str | None = None, gold: list[str] | None = None, judge_model: str = "claude-sonnet-4", **extra) -> dict:
    """One run record whose gold passage is `g-<qid>` (retrieved first when `hit`)."""
    rec: dict = {"id": qid, "question": f"{qid} ?", "retrieved": [f"g-{qid}" if hit else "other", "filler"], "answer": answer}
    if answer is not None and answer != FALLBACK:
        rec["judge"] = judge(list(verdicts) if verdicts is not None else None, utility, model=judge_model)
    elif answer == FALLBACK:
        rec["judge"] = judge(None, utility, model=judge_model)
    if category is not None:
        rec["category"] = category
    if gold is not None:
        rec["gold_passages"] = gold
    rec.update(extra)
    return rec


def write_run(path: Path, records: list[dict], **meta) -> Path:
    lines = [json.dumps({"run": {"name": path.stem, **meta}})] + [json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_gold(path: Path, items: list[tuple[str, str]]) -> Path:
    """Gold questions from (id, category); answerable ones have the gold passage `g-<id>`."""
    gold = [
        {"id": qid, "question": f"{qid} ?", "gold_passages": [] if category == "sans_reponse" else [f"g-{qid}"], "category": category}
        for qid, category in items
    ]
    path.write_text(yaml.safe_dump(gold), encoding="utf-8")
    return path


def compare_files(a: Path, b: Path | None = None, gold: Path | None = None, k: int | None = None, config: Path | None = None) -> Comparison:
    return load_comparison(Inputs(a=a, b=b, gold=gold, k=k, config=config, detail=False))
