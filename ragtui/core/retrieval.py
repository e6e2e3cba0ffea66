"""Per-question retrieval outcomes at k, computed over whole columns (METRICS.md, "Retrieval").

Duplicated ids in a retrieved list count once, at their first rank. The ranked lists
are flattened into one array of (question, rank, is-gold) and every quantity — first
gold rank, hits in the top k, rank-aware precision, DCG — is a segmented reduction over
that array (`numpy.add.reduceat` on the list offsets), never a Python loop over
questions. Definitions match trec_eval: success_k, recall_k, P_k, ndcg_cut_k,
recip_rank (a test checks them against trec_eval's own output and pytrec_eval).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

RETRIEVAL_COLUMNS = (
    "first_gold_rank",
    "hits_at_k",
    "n_gold",
    "hit_at_k",
    "context_recall_at_k",
    "precision_at_k",
    "context_precision_at_k",
    "rr_at_k",
    "ndcg_at_k",
)


def _segment_sum(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Sum of `values` over each segment; 0 for empty segments (reduceat alone gets those wrong)."""
    out = np.zeros(len(lengths), dtype=np.float64)
    nonempty = lengths > 0
    if values.size and nonempty.any():
        out[nonempty] = np.add.reduceat(values, starts[nonempty])
    return out


@dataclass(frozen=True)
class RankedRelevance:
    """Every retrieved item of every question, flattened: computed once, reused for each k."""

    n_gold: np.ndarray  # distinct gold passages per question (0 = none or unknown)
    lengths: np.ndarray  # distinct retrieved items per question
    starts: np.ndarray  # offset of each question's items in the flat arrays
    rank: np.ndarray  # 1-based rank of each item in its list
    relevant: np.ndarray  # is each item a gold passage of its question


def ranked_relevance(frame: pl.DataFrame) -> RankedRelevance:
    """Flatten `gold_passages` / `retrieved_ids` (ids are never null: the loaders check)."""
    gold = frame.get_column("gold_passages").list.unique()
    retrieved = frame.get_column("retrieved_ids").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    retrieved = retrieved.list.unique(maintain_order=True)
    lengths = retrieved.list.len().to_numpy().astype(np.int64)
    flat = retrieved.explode(empty_as_null=False, keep_nulls=False)
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    # Each retrieved item checked against its own question's gold list, all at once.
    relevant = (
        pl.DataFrame({"gold": gold.gather(owner), "item": flat})
        .select(pl.col("gold").list.contains(pl.col("item")).fill_null(False))
        .to_series()
        .to_numpy()
        .astype(bool)
    )
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64) if len(lengths) else np.zeros(0, np.int64)
    rank = np.arange(relevant.size, dtype=np.int64) - np.repeat(starts, lengths) + 1
    n_gold = gold.list.len().fill_null(0).to_numpy().astype(np.int64)
    return RankedRelevance(n_gold, lengths, starts, rank, relevant)


def retrieval_outcomes(frame: pl.DataFrame, k: int, ranked: RankedRelevance | None = None) -> pl.DataFrame:
    """Add the per-question retrieval columns for cut-off k to `frame`.

    `frame` needs `gold_passages` (list, null = unknown) and `retrieved_ids` (list).
    Rows whose gold list is null or empty get null retrieval values. Pass `ranked`
    (from `ranked_relevance(frame)`) to compute several k without flattening again.
    """
    ranked = ranked or ranked_relevance(frame)
    lengths, starts, rank, relevant = ranked.lengths, ranked.starts, ranked.rank, ranked.relevant
    in_k = rank <= k
    rel_k = relevant & in_k
    # Hits up to and including each rank, within its own list: a global running count
    # minus the count before the list starts.
    cumulative = np.cumsum(relevant)
    offset = np.where(starts > 0, cumulative[np.maximum(starts - 1, 0)], 0) if relevant.size else np.zeros(len(lengths))
    hits_upto = cumulative - np.repeat(offset, lengths)
    hits = _segment_sum(rel_k.astype(np.float64), starts, lengths)
    precision_sum = _segment_sum(np.where(rel_k, hits_upto / rank, 0.0), starts, lengths)
    dcg = _segment_sum(np.where(rel_k, 1.0 / np.log2(rank + 1.0), 0.0), starts, lengths)
    big = np.iinfo(np.int64).max
    first = np.full(len(lengths), big, dtype=np.int64)
    nonempty = lengths > 0
    if relevant.size and nonempty.any():
        first[nonempty] = np.minimum.reduceat(np.where(relevant, rank, big), starts[nonempty])
    n_gold = ranked.n_gold
    ideal = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))])
    ideal_dcg = ideal[np.minimum(n_gold, k)]
    known = n_gold > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = {
            "first_gold_rank": np.where(first == big, -1, first),
            "hits_at_k": hits.astype(np.int64),
            "n_gold": n_gold,
            "hit_at_k": (hits > 0).astype(np.float64),
            "context_recall_at_k": hits / np.maximum(n_gold, 1),
            "precision_at_k": hits / k,
            "context_precision_at_k": np.where(hits > 0, precision_sum / np.maximum(hits, 1), 0.0),
            "rr_at_k": np.where(first <= k, 1.0 / np.where(first == big, 1, first), 0.0),
            "ndcg_at_k": dcg / np.where(ideal_dcg > 0, ideal_dcg, 1.0),
        }
    table = pl.DataFrame({**values, "_known": known})
    known_col = pl.col("_known")
    found = known_col & (pl.col("first_gold_rank") > 0)
    outcome = table.select(
        pl.when(found).then(pl.col("first_gold_rank")).alias("first_gold_rank"),
        *[pl.when(known_col).then(pl.col(name)).alias(name) for name in RETRIEVAL_COLUMNS[1:] if name != "n_gold"],
        pl.col("n_gold"),
    )
    return frame.with_columns(outcome.select(RETRIEVAL_COLUMNS).get_columns())
