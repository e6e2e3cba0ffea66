"""Per-question retrieval outcomes at k, as column expressions (METRICS.md, "Retrieval").

Duplicated ids in a retrieved list count once, at their first rank. The ranked lists
are exploded into one row per (question, rank) so every quantity — first gold rank,
hits in the top k, rank-aware precision, DCG — is a grouped column operation, never a
Python loop over questions. Definitions match trec_eval: success_k, recall_k, P_k,
ndcg_cut_k, recip_rank (a test checks them against trec_eval's own output).
"""

from __future__ import annotations

import math

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


def _ideal_dcg(k: int) -> list[float]:
    """IDCG for m = 0..k relevant passages (binary gains)."""
    table, total = [0.0], 0.0
    for i in range(1, k + 1):
        total += 1.0 / math.log2(i + 1)
        table.append(total)
    return table


def retrieval_outcomes(frame: pl.DataFrame, k: int) -> pl.DataFrame:
    """Add the per-question retrieval columns for cut-off k to `frame`.

    `frame` needs `gold_passages` (list, null = unknown) and `retrieved_ids` (list).
    Rows whose gold list is null or empty get null retrieval values.
    """
    base = frame.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("_row"),
        pl.col("gold_passages").list.unique().alias("_gold"),
        pl.col("retrieved_ids").fill_null(pl.lit([], dtype=pl.List(pl.String))).list.unique(maintain_order=True).alias("_ret"),
    )
    ranked = (
        base.explode("_ret")
        .filter(pl.col("_ret").is_not_null())
        .with_columns(rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("_row"))
        .with_columns(rel=pl.col("_gold").list.contains(pl.col("_ret")).fill_null(False))
        .with_columns(hits_upto=pl.col("rel").cast(pl.Int64).cum_sum().over("_row"))
    )
    in_k = pl.col("rank") <= k
    rel_k = pl.col("rel") & in_k
    per_row = ranked.group_by("_row").agg(
        pl.col("rank").filter(pl.col("rel")).min().alias("first_gold_rank"),
        rel_k.sum().cast(pl.Int64).alias("hits_at_k"),
        (pl.col("hits_upto") / pl.col("rank")).filter(rel_k).sum().alias("_prec_sum"),
        (1.0 / (pl.col("rank") + 1).cast(pl.Float64).log(2)).filter(rel_k).sum().alias("_dcg"),
    )
    ideal = _ideal_dcg(k)
    known = pl.col("_gold").list.len() > 0
    joined = base.join(per_row, on="_row", how="left").with_columns(
        pl.col("hits_at_k").fill_null(0),
        pl.col("_prec_sum").fill_null(0.0),
        pl.col("_dcg").fill_null(0.0),
        n_gold=pl.col("_gold").list.len().cast(pl.Int64),
    )
    hits = pl.col("hits_at_k")
    ideal_dcg = pl.col("n_gold").clip(upper_bound=k).replace_strict(list(range(k + 1)), ideal, return_dtype=pl.Float64)
    outcome = joined.sort("_row").select(
        pl.when(known).then(pl.col("first_gold_rank")).alias("first_gold_rank"),
        pl.when(known).then(hits).alias("hits_at_k"),
        pl.col("n_gold"),
        pl.when(known).then((hits > 0).cast(pl.Float64)).alias("hit_at_k"),
        pl.when(known).then(hits / pl.col("n_gold")).alias("context_recall_at_k"),
        pl.when(known).then(hits / k).alias("precision_at_k"),
        pl.when(known).then(pl.when(hits > 0).then(pl.col("_prec_sum") / hits).otherwise(0.0)).alias("context_precision_at_k"),
        pl.when(known)
        .then(pl.when(pl.col("first_gold_rank") <= k).then(1.0 / pl.col("first_gold_rank")).otherwise(0.0))
        .alias("rr_at_k"),
        pl.when(known).then(pl.col("_dcg") / ideal_dcg).alias("ndcg_at_k"),
    )
    return pl.concat([frame, outcome.select(RETRIEVAL_COLUMNS)], how="horizontal")
