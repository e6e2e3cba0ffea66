"""The one documented schema every run and gold set is loaded into (docs/schema.md).

A run becomes a polars frame with one row per question and exactly the columns of
RUN_SCHEMA, whatever file it came from (JSONL, JSON, YAML, Parquet or a peer tool's
format). The retrieved list is kept as three parallel lists so the metrics are list
expressions over whole columns. `*_json` columns hold the original objects, so the
verdict inspector can show everything the judge said, unknown fields included.
"""

from __future__ import annotations

from typing import TypeVar

import polars as pl

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)

SENTENCE = pl.Struct(
    {"text": pl.String, "attested": pl.Boolean, "evidence": pl.List(pl.String), "reason": pl.String}
)


def _verdict_columns(prefix: str) -> dict[str, pl.DataType]:
    return {
        f"{prefix}_present": pl.Boolean(),
        f"{prefix}_model": pl.String(),
        f"{prefix}_sentences": pl.List(SENTENCE),
        f"{prefix}_utility": pl.Float64(),
        f"{prefix}_utility_reason": pl.String(),
        f"{prefix}_error": pl.String(),
        f"{prefix}_json": pl.String(),
    }


GOLD_FIELDS: dict[str, pl.DataType] = {
    "question": pl.String(),
    "category": pl.String(),
    "gold_passages": pl.List(pl.String),
    "expected_answer": pl.String(),
}

RUN_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(),
    "line": pl.Int64(),
    **GOLD_FIELDS,
    "retrieved_ids": pl.List(pl.String),
    "retrieved_texts": pl.List(pl.String),
    "retrieved_scores": pl.List(pl.Float64),
    "answer": pl.String(),
    "abstained_given": pl.Boolean(),
    "cited": pl.List(pl.String),
    **_verdict_columns("judge"),
    # `ragtui judge --repeat N`: repetitions 2…N, one entry each (null where it gave none).
    "judge_repeat_attested": pl.List(pl.List(pl.Boolean)),
    "judge_repeat_utility": pl.List(pl.Float64),
    **_verdict_columns("human"),
    "latency_ms": pl.Float64(),
    "cost_usd": pl.Float64(),
    "tokens_in": pl.Float64(),
    "tokens_out": pl.Float64(),
    # Why the system under test failed on the question (`error`: an exception, an HTTP
    # status, a timeout): a system error, counted apart and never averaged.
    "system_error": pl.String(),
    "extra": pl.String(),
}

# A gold set's own fields: the rare cases a question covers (`tags: [acronyme, tableau]`),
# never read from a run (a run's `tags` stays one of its extra fields), and the document it
# was written from (`document`: its cluster in the statistics).
GOLD_ONLY_FIELDS: dict[str, pl.DataType] = {"tags": pl.List(pl.String), "document": pl.String()}

GOLD_SCHEMA: dict[str, pl.DataType] = {"id": pl.String(), "line": pl.Int64(), **GOLD_FIELDS, **GOLD_ONLY_FIELDS}

# Field aliases accepted on read (the course's French keys), never written.
RECORD_ALIASES = {"passages_verite": "gold_passages", "reponse_attendue": "expected_answer", "categorie": "category"}
VERDICT_ALIASES = {"phrases": "sentences", "texte": "text", "atteste": "attested"}

KNOWN_RECORD_FIELDS = {
    "id", "question", "category", "gold_passages", "expected_answer", "retrieved", "answer", "abstained",
    "cited", "judge", "human", "latency_ms", "cost_usd", "tokens_in", "tokens_out", "error",
}

UNCATEGORIZED = "uncategorized"  # a question without a category (names: loading.config)


def _verdicts_only(column: str) -> pl.Expr:
    bare = pl.struct(
        text=pl.lit(None, dtype=pl.String),
        attested=pl.element().struct.field("attested"),
        evidence=pl.lit([], dtype=pl.List(pl.String)),
        reason=pl.lit(None, dtype=pl.String),
    )
    return pl.col(column).list.eval(bare).alias(column)


# What only a person reading one question needs: dropped by `without_detail`, kept in the
# run cache's text files and read back for the question shown (loading/run_cache.py).
TEXT_COLUMNS = (
    "retrieved_texts",
    "judge_sentences",
    "human_sentences",
    "judge_json",
    "human_json",
    "judge_utility_reason",
    "human_utility_reason",
)


def without_detail(frame: Frame) -> Frame:
    """The frame without what only a person reading one question needs: passage texts,
    sentence texts, reasons and evidence, the original judge objects. The rare passage
    texts that address the judge are kept, so the report can count them.

    Every metric, comparison and report figure is unchanged (they need ids, verdicts and
    scores only); a headless report of two 100,000-question runs then fits in far less
    memory, because the parsed JSON text buffers behind those strings are released.
    """
    from ragtui.core.judge_directed import keep_flagged

    return frame.with_columns(
        keep_flagged(pl.col("retrieved_texts")).alias("retrieved_texts"),
        _verdicts_only("judge_sentences"),
        _verdicts_only("human_sentences"),
        pl.lit(None, dtype=pl.String).alias("judge_json"),
        pl.lit(None, dtype=pl.String).alias("human_json"),
        pl.lit(None, dtype=pl.String).alias("judge_utility_reason"),
        pl.lit(None, dtype=pl.String).alias("human_utility_reason"),
    )
