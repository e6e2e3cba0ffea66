"""A small offline RAG system over the bundled corpus, to try `ragtui run` on.

Retrieval is the BM25 the sample's baseline run came from: consecutive passages of one
document packed into chunks (at most 3 passages, 200 words), ranked by Okapi BM25
(k1 1.2, b 0.75) over a light French tokeniser, each chunk expanded to its passage ids.
Generation is extractive: the sentence of the top passages that shares the most words
with the question, or the fallback phrase when none shares enough. No network, no model:

    ragtui run sample_data/gold.yaml --system sample_data/example_system.py:answer -o my.jsonl

Copy this file to start your own: `answer(question, k)` returns the ranked passages and
the answer; `chercher` and `repondre` are the same two stages for
`--retriever FILE:chercher --generator FILE:repondre`.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).resolve().parent / "corpus"
FALLBACK = "Je ne trouve pas cette information."
CHUNK_PASSAGES, CHUNK_WORDS = 3, 200
MIN_SHARED_TERMS, MIN_SHARED_SHARE = 2, 0.5  # fewer question terms in the best sentence: abstain

STOPWORDS = frozenset(
    """
    a ai aie ait as au aux avec avez avoir avons c ca ce ceci cela ces cet cette chaque
    combien comme comment d dans de des doit dois dont du elle elles en est et etre eu faire
    fait faut il ils j je l la le les leur leurs lui m ma mais me mes moi mon n ne ni nos
    notre nous on ont ou par pas peut peux pour puis qu quand que quel quelle quelles quels
    qui s sa sans se ses si son sont sur t ta te tes toi ton tous tout toute toutes tu un une
    vos votre vous y
    """.split()
)
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")


def fold(text: str) -> str:
    """Lower-case `text` and strip its accents (é → e)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def stem(word: str) -> str:
    """A light French stemmer: plural and -er endings, then a final e (short words and numbers kept)."""
    if len(word) < 5 or word.isdigit():
        return word
    if word.endswith("aux"):
        return word[:-3] + "al"
    if word[-1] in "sx":
        word = word[:-1]
    if word.endswith("er"):
        word = word[:-1]
    if word.endswith("e"):
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """The BM25 terms of `text`, in order (duplicates kept)."""
    return [stem(w) for w in _WORD.findall(fold(text)) if w not in STOPWORDS]


class BM25:
    """Okapi BM25 with Lucene's idf: `scores(query)` gives one score per document, in order."""

    def __init__(self, documents: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.term_counts = [Counter(doc) for doc in documents]
        self.lengths = [len(doc) for doc in documents]
        self.avg_length = sum(self.lengths) / len(documents)
        document_frequency: Counter[str] = Counter()
        for counts in self.term_counts:
            document_frequency.update(counts.keys())
        n = len(documents)
        # Lucene's idf never goes negative, so a term in most documents still counts a little.
        self.idf = {term: math.log(1 + (n - df + 0.5) / (df + 0.5)) for term, df in document_frequency.items()}

    def scores(self, query: list[str]) -> list[float]:
        """BM25 score of every document for the query terms (each distinct term once)."""
        terms = sorted(set(query))
        result = []
        for counts, length in zip(self.term_counts, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_length)
            total = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    total += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            result.append(total)
        return result


def load_passages(directory: Path = CORPUS) -> list[dict[str, str]]:
    """Every passage of every document, documents in name order: `{id, document, text}`."""
    passages = []
    for path in sorted(directory.glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for item in document["passages"]:
            passages.append({"id": item["id"], "document": document["document"], "text": item["text"].strip()})
    return passages


def chunks_of(passages: list[dict[str, str]]) -> list[list[dict[str, str]]]:
    """Consecutive passages of one document, within both budgets (the baseline's chunking)."""
    chunks: list[list[dict[str, str]]] = []
    current: list[dict[str, str]] = []
    for passage in passages:
        words = sum(len(p["text"].split()) for p in current) + len(passage["text"].split())
        if current and (passage["document"] != current[0]["document"] or len(current) == CHUNK_PASSAGES or words > CHUNK_WORDS):
            chunks.append(current)
            current = []
        current.append(passage)
    if current:
        chunks.append(current)
    return chunks


@functools.cache
def _index() -> tuple[list[list[dict[str, str]]], BM25]:
    chunks = chunks_of(load_passages())
    return chunks, BM25([tokens(" ".join(p["text"] for p in chunk)) for chunk in chunks])


def chercher(question: str, k: int) -> list[dict[str, Any]]:
    """The k best passages: chunks by BM25 score (ties by first passage id), expanded to passages."""
    chunks, index = _index()
    scores = index.scores(tokens(question))
    order = sorted(range(len(chunks)), key=lambda i: (-scores[i], chunks[i][0]["id"]))
    found: list[dict[str, Any]] = []
    for i in order:
        for passage in chunks[i]:
            found.append({"id": passage["id"], "text": passage["text"], "score": round(scores[i], 4)})
        if len(found) >= k:
            break
    return found[:k]


def repondre(question: str, passages: list[dict[str, Any]]) -> dict[str, Any]:
    """The passages' sentence sharing the most question terms, or the fallback phrase.

    Tokens are counted as words (question and passages in, answer out); the cost is 0:
    nothing is paid for.
    """
    wanted = set(tokens(question))
    best, best_shared = None, 0
    for passage in passages:
        for sentence in _SENTENCE.split(passage.get("text", "")):
            shared = len(wanted & set(tokens(sentence)))
            if shared > best_shared:
                best, best_shared = sentence.strip(), shared
    enough = best_shared >= max(MIN_SHARED_TERMS, MIN_SHARED_SHARE * len(wanted))
    answer = best if best is not None and enough else FALLBACK
    words_in = len(question.split()) + sum(len(p.get("text", "").split()) for p in passages)
    return {"answer": answer, "tokens_in": words_in, "tokens_out": len(answer.split()), "cost_usd": 0.0}


def answer(question: str, k: int) -> dict[str, Any]:
    """Both stages: `{"passages", "answer", "tokens_in", "tokens_out", "cost_usd"}`."""
    passages = chercher(question, k)
    return {"passages": passages, **repondre(question, passages)}
