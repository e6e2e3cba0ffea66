"""The two retrieval pipelines the sample compares, run for real over the corpus.

A — baseline, chunking v1: consecutive passages of one document are packed into chunks
of at most 3 passages and 200 words; BM25 ranks the chunks on their text alone. Each
chunk is reported as the ids of the passages it holds, in document order, all with the
chunk's score, so the ranked list speaks the gold set's passage ids.

B — candidate, chunking v2: one passage per chunk, indexed with its section title; BM25
proposes 30 candidates, plus every passage that contains one of the query's acronyms
verbatim; a rerank step scores them again, rewarding section-title overlap and exact
acronym matches (the cases v1 misses: "CET", "RTT", "PEE").
"""

from __future__ import annotations

from dataclasses import dataclass

from ragtui.sample_data.example_system import BM25

from .corpus import Passage
from .text import acronyms, tokens, word_count

V1_MAX_PASSAGES = 3
V1_MAX_WORDS = 200
V2_CANDIDATES = 30
# Rerank weights: BM25 still counts most; the title and the acronyms break its blind spots.
W_BM25, W_TITLE, W_ACRONYM = 0.50, 0.25, 0.25


@dataclass(frozen=True)
class Hit:
    """One ranked item of a run's `retrieved` list."""

    id: str
    score: float


def chunk_v1(passages: list[Passage]) -> list[tuple[Passage, ...]]:
    """Greedy v1 chunks: consecutive passages of one document, within both budgets."""
    chunks: list[tuple[Passage, ...]] = []
    current: list[Passage] = []
    for passage in passages:
        words = sum(word_count(p.text) for p in current) + word_count(passage.text)
        if current and (passage.document != current[0].document or len(current) == V1_MAX_PASSAGES or words > V1_MAX_WORDS):
            chunks.append(tuple(current))
            current = []
        current.append(passage)
    if current:
        chunks.append(tuple(current))
    return chunks


def _ranked(scores: list[float], keys: list[str]) -> list[int]:
    """Indexes by descending score; ties broken by key so the order never wavers."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], keys[i]))


class BaselineRetriever:
    """Pipeline A: BM25 over v1 chunks, expanded to passage ids."""

    def __init__(self, passages: list[Passage]) -> None:
        self.chunks = chunk_v1(passages)
        self.index = BM25([tokens(" ".join(p.text for p in chunk)) for chunk in self.chunks])
        self.keys = [chunk[0].id for chunk in self.chunks]

    def retrieve(self, question: str, depth: int = 20) -> list[Hit]:
        """The first `depth` passage ids, chunk by chunk (the last chunk may be cut)."""
        scores = self.index.scores(tokens(question))
        hits: list[Hit] = []
        for i in _ranked(scores, self.keys):
            for passage in self.chunks[i]:
                hits.append(Hit(passage.id, round(scores[i], 4)))
            if len(hits) >= depth:
                break
        return hits[:depth]


class CandidateRetriever:
    """Pipeline B: BM25 over single passages (with titles), then a deterministic rerank."""

    def __init__(self, passages: list[Passage]) -> None:
        self.index = BM25([tokens(p.section + " " + p.text) for p in passages])
        self.keys = [p.id for p in passages]
        self.title_terms = [set(tokens(p.section)) for p in passages]
        self.text_acronyms = [acronyms(p.text) for p in passages]
        self.title_acronyms = [acronyms(p.section) for p in passages]

    def retrieve(self, question: str, depth: int = 20) -> list[Hit]:
        """The `depth` best passages after reranking, scores in [0, 1]."""
        query_terms = set(tokens(question))
        query_acronyms = acronyms(question)
        scores = self.index.scores(tokens(question))
        pool = set(_ranked(scores, self.keys)[:V2_CANDIDATES])
        pool |= {i for i, found in enumerate(self.text_acronyms) if query_acronyms & found}
        best = max(scores) or 1.0
        reranked = {}
        for i in pool:
            title = len(query_terms & self.title_terms[i]) / len(query_terms) if query_terms else 0.0
            acronym = self._acronym_match(query_acronyms, i)
            reranked[i] = W_BM25 * scores[i] / best + W_TITLE * title + W_ACRONYM * acronym
        order = sorted(reranked, key=lambda i: (-reranked[i], self.keys[i]))[:depth]
        return [Hit(self.keys[i], round(reranked[i], 4)) for i in order]

    def _acronym_match(self, query_acronyms: set[str], i: int) -> float:
        """Share of the query's acronyms found verbatim: half for the text, half for the title."""
        if not query_acronyms:
            return 0.0
        in_text = len(query_acronyms & self.text_acronyms[i])
        in_title = len(query_acronyms & self.title_acronyms[i])
        return (in_text + in_title) / (2 * len(query_acronyms))
