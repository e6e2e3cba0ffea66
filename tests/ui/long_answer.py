"""A comparison whose `long` question has an answer of a few hundred judged sentences.

Enough to overflow every window the screens draw (the question view's 8 + 40 sentences,
the inspector's 12, its 2,000-character answer and 4,000-character raw JSON) while a test
stays quick; bench/bench_triage.py measures the same shape at 5,000 sentences. With
`rewritten`, B's long answer rewrites ten sentences in eleven (`rewritten_text`): an
answer B rewrote throughout, too much changed to diff word by word.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ragtui.core.comparing.compare import Comparison
from ragtui.core.loading.records import write_run_jsonl
from ragtui.core.session import Inputs, load_comparison

IDS = ("short", "long")


def sentence_text(index: int) -> str:
    return f"Phrase {index + 1} de la reponse, sur l'article {index % 97} du reglement."


def rewritten_text(index: int) -> str:
    """B's sentence `index` of an answer rewritten throughout: every one but each 11th changed."""
    text = sentence_text(index)
    return text if index % 11 == 0 else text.replace("de la reponse", "de la nouvelle reponse")


def _records(sentences: int, variant: int, rewritten: bool = False) -> list[dict]:
    out = []
    for qid in IDS:
        n = sentences if qid == "long" else 3
        texts = [rewritten_text(i) if rewritten and variant and qid == "long" else sentence_text(i) for i in range(n)]
        verdicts = [{"text": t, "attested": (i + variant) % 7 != 0, "evidence": [f"g_{qid}"], "reason": f"raison {i + 1}"} for i, t in enumerate(texts)]
        retrieved = [{"id": f"g_{qid}" if r == 1 else f"p_{qid}_{r}", "text": f"Passage {r} sur le reglement.", "score": 1 - r / 40} for r in range(1, 6)]
        out.append({"id": qid, "retrieved": retrieved, "answer": " ".join(texts),
                    "judge": {"model": "test-judge", "faithfulness": {"sentences": verdicts}, "utility": {"score": 4 - variant, "reason": "ok"}}})
    return out


def long_answer_comparison(root: Path, sentences: int = 300, *, rewritten: bool = False) -> Comparison:
    root.mkdir(parents=True, exist_ok=True)
    gold = [{"id": qid, "question": f"Question {qid} ?", "gold_passages": [f"g_{qid}"], "expected_answer": "25 jours.", "category": "procedurale"} for qid in IDS]
    (root / "gold.yaml").write_text(yaml.safe_dump(gold, allow_unicode=True), encoding="utf-8")
    write_run_jsonl(root / "a.jsonl", {"name": "A", "k": 5}, _records(sentences, 0))
    write_run_jsonl(root / "b.jsonl", {"name": "B", "k": 5}, _records(sentences, 1, rewritten))
    return load_comparison(Inputs(a=root / "a.jsonl", b=root / "b.jsonl", gold=root / "gold.yaml"))
