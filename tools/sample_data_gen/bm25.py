"""Okapi BM25 over pre-tokenised documents (k1 = 1.2, b = 0.75, Lucene's idf)."""

from __future__ import annotations

import math
from collections import Counter


class BM25:
    """A BM25 index: `scores(query)` gives one score per document, in document order."""

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
