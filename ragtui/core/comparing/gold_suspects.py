"""Questions whose failure looks like a gold problem rather than the system's.

A question is listed when it is answerable, fails in both runs, both runs rank the same
passage first and that passage is not gold, and the judge found every sentence of each
run's answer attested by its passages: the system answers well from a passage the gold
set does not name. The gold passage is then likely stale or incomplete (fix it in the
question view with `g`).
"""

from __future__ import annotations

import polars as pl

from ragtui.core.comparing.result import Comparison


def _first_and_attested(frame: pl.LazyFrame, *kept: str) -> pl.LazyFrame:
    return frame.select(
        "id",
        *kept,
        pl.col("retrieved_ids").list.first().alias("first"),
        (pl.col("judged") & (pl.col("n_attested") == pl.col("n_sentences"))).fill_null(False).alias("attested"),
    )


def likely_gold_problems(comparison: Comparison) -> list[dict[str, str]]:
    """`[{"id", "passage"}]`: each suspect question and the non-gold passage both runs rank first."""
    if comparison.b is None:
        return []
    a = comparison.a.questions
    needed = {"answerable", "failed", "gold_passages", "retrieved_ids", "judged", "n_attested", "n_sentences"}
    if not needed <= set(a.columns) or not needed <= set(comparison.b.questions.columns):
        return []
    # Lazily, so each filter reads only the columns used here, not the runs' dozens of others.
    a_lazy, b_lazy = a.lazy(), comparison.b.questions.lazy()
    left = a_lazy.filter(pl.col("answerable") & pl.col("failed")).pipe(_first_and_attested, "gold_passages")
    right = b_lazy.filter(pl.col("failed")).pipe(_first_and_attested)
    # In A's order, the report's: a join left to choose its order follows its inputs' chunks,
    # which differ between a first open and a reopen from the run cache.
    both = left.join(right, on="id", suffix="_b", maintain_order="left")
    suspects = both.filter(
        pl.col("first").is_not_null()
        & (pl.col("first") == pl.col("first_b"))
        & ~pl.col("gold_passages").list.contains(pl.col("first")).fill_null(False)
        & pl.col("attested")
        & pl.col("attested_b")
    ).select("id", "first").collect()
    return [{"id": qid, "passage": passage} for qid, passage in suspects.iter_rows()]
