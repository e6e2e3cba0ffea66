"""Which questions share a document: the clusters the statistics resample and pool over.

Questions written from one document share its chunking and its vocabulary, so they are not
independent draws: a change to the system tends to move them together. A question's
cluster is, in this order:

1. its `document` in the gold set;
2. else the document of its first gold passage in the corpus (`--corpus`);
3. else the first group of `clusters.passage_pattern` (ragtui.yaml) over that passage's id;
4. else none: the question is a cluster of its own (so is an unanswerable question
   without gold passages, unless the gold set names its document).

The column `cluster` holds the document (null: a cluster of its own). `cluster_index`
turns it into 0…G−1 over any selection of questions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

CLUSTER = "cluster"
# What named the clusters, in priority order, as the report and the panels say it.
BY_DOCUMENT, BY_CORPUS, BY_PATTERN = "gold document", "corpus", "passage pattern"


@dataclass(frozen=True)
class Clusters:
    """The clusters of a selection of questions: each row's cluster as 0…G−1, and G."""

    index: np.ndarray
    count: int

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Column sums of `values` (rows × c) within each cluster: (G × c)."""
        out = np.zeros((self.count, values.shape[1]))
        np.add.at(out, self.index, values)
        return out


def _sources(columns: list[str], passage_documents: dict[str, str] | None, passage_pattern: str | None) -> list[tuple[str, pl.Expr]]:
    """Each source of a question's document that this input has, in priority order."""
    sources: list[tuple[str, pl.Expr]] = []
    if "document" in columns:
        sources.append((BY_DOCUMENT, pl.col("document")))
    first_passage = pl.col("gold_passages").list.first()
    if passage_documents:
        sources.append((BY_CORPUS, first_passage.replace_strict(passage_documents, default=None, return_dtype=pl.String)))
    if passage_pattern:
        sources.append((BY_PATTERN, first_passage.str.extract(passage_pattern, 1)))
    return sources


def with_clusters(
    frame: pl.DataFrame, passage_documents: dict[str, str] | None, passage_pattern: str | None
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The frame with its `cluster` column, and the sources that named at least one question.

    No source (the usual case without a corpus or a pattern): a null column, and nothing
    downstream changes — each question is its own cluster and the independent path runs.
    """
    sources = _sources(frame.columns, passage_documents, passage_pattern)
    if not sources:
        return frame.with_columns(pl.lit(None, dtype=pl.String).alias(CLUSTER)), ()
    named = frame.select(expr.is_not_null().any().alias(name) for name, expr in sources).row(0)
    used = tuple(name for (name, _), hit in zip(sources, named, strict=True) if hit)
    return frame.with_columns(pl.coalesce([expr for _, expr in sources]).alias(CLUSTER)), used


def cluster_index(clusters: pl.Series, ids: pl.Series) -> Clusters:
    """Each row's cluster as 0…G−1 (a question without one is a cluster of its own)."""
    key = pl.DataFrame({"c": clusters, "id": ids}).select(
        pl.when(pl.col("c").is_null()).then(pl.lit("\x00") + pl.col("id")).otherwise(pl.col("c")).alias("k")
    ).get_column("k")
    index = key.rank("dense").to_numpy().astype(np.intp) - 1
    return Clusters(index, int(index.max()) + 1 if index.size else 0)
