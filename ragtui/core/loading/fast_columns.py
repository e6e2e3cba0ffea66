"""The column expressions that reshape a parsed slice into the canonical run schema.

`fast_jsonl.py` parses a canonical JSONL (or Parquet) run with polars; this module turns
what polars inferred — nested structs of retrieved passages, judge and human verdicts,
repeats — into the flat columns of `schema.RUN_SCHEMA`. Any type it is not sure about
raises `NotSure`, and the file then goes to the exact, record-by-record path.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from polars.datatypes import DataTypeClass

from ragtui.core.loading.schema import KNOWN_RECORD_FIELDS, RUN_SCHEMA, SENTENCE, without_detail

_NUMERIC = (pl.Int64, pl.Float64, pl.Int32, pl.UInt64, pl.UInt32, pl.Null)


# polars names a type by its class (pl.String) or an instance (pl.List(pl.String)).
DType = pl.DataType | DataTypeClass


class NotSure(Exception):
    """The file needs the exact path."""


def _fields(dtype: DType) -> dict[str, DType]:
    if not isinstance(dtype, pl.Struct):
        raise NotSure
    return {f.name: f.dtype for f in dtype.fields}


def _require(dtype: DType, *allowed: type) -> None:
    if not any(dtype == a or isinstance(dtype, a) for a in allowed):
        raise NotSure


def _string_list(frame: pl.DataFrame, name: str) -> pl.Expr:
    if name not in frame.columns:
        return pl.lit(None, dtype=pl.List(pl.String))
    dtype = frame.schema[name]
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.List(pl.String))
    if dtype != pl.List(pl.String) and dtype != pl.List(pl.Null):
        raise NotSure
    return pl.col(name).cast(pl.List(pl.String))


def _plain(frame: pl.DataFrame, name: str, target: DType) -> pl.Expr:
    if name not in frame.columns or frame.schema[name] == pl.Null:
        return pl.lit(None, dtype=target)
    dtype = frame.schema[name]
    if target == pl.Float64:
        _require(dtype, *_NUMERIC)
    elif dtype != target:
        raise NotSure
    return pl.col(name).cast(target)


def _retrieved(frame: pl.DataFrame) -> list[pl.Expr]:
    names = ("retrieved_ids", "retrieved_texts", "retrieved_scores")
    if "retrieved" not in frame.columns or frame.schema["retrieved"] == pl.Null:
        return [pl.lit(None, dtype=RUN_SCHEMA[n]).alias(n) for n in names]
    dtype = frame.schema["retrieved"]
    if not isinstance(dtype, pl.List):
        raise NotSure
    fields = _fields(dtype.inner)
    if fields.get("id") != pl.String or fields.get("text", pl.String) not in (pl.String, pl.Null):
        raise NotSure
    _require(fields.get("score", pl.Null), *_NUMERIC)
    item = pl.element().struct
    text = item.field("text").cast(pl.String) if "text" in fields else pl.lit(None, dtype=pl.String)
    score = item.field("score").cast(pl.Float64) if "score" in fields else pl.lit(None, dtype=pl.Float64)
    column = pl.col("retrieved")
    return [
        column.list.eval(item.field("id")).alias("retrieved_ids"),
        column.list.eval(text).alias("retrieved_texts"),
        column.list.eval(score).alias("retrieved_scores"),
    ]


def _verdicts(frame: pl.DataFrame, prefix: str) -> list[pl.Expr]:
    names = [n for n in RUN_SCHEMA if n.startswith(prefix + "_")]
    if prefix not in frame.columns or frame.schema[prefix] == pl.Null:
        return [
            (pl.lit(False) if n.endswith("_present") else pl.lit(None, dtype=RUN_SCHEMA[n])).alias(n) for n in names
        ]
    fields = _fields(frame.schema[prefix])
    obj = pl.col(prefix).struct
    out = [pl.col(prefix).is_not_null().alias(f"{prefix}_present")]
    out.append(_struct_field(obj, fields, "model", pl.String).alias(f"{prefix}_model"))
    out.append(_struct_field(obj, fields, "error", pl.String).alias(f"{prefix}_error"))
    sentences = pl.lit(None, dtype=pl.List(SENTENCE))
    if fields.get("faithfulness", pl.Null) != pl.Null:
        faith = _fields(fields["faithfulness"])
        if faith.get("sentences", pl.Null) != pl.Null:
            listed = faith["sentences"]
            if not isinstance(listed, pl.List):
                raise NotSure
            sfields = _fields(listed.inner)
            if sfields.get("attested") != pl.Boolean:
                raise NotSure
            item = pl.element().struct
            evidence = (
                item.field("evidence").cast(pl.List(pl.String)).fill_null(pl.lit([], dtype=pl.List(pl.String)))
                if "evidence" in sfields
                else pl.lit([], dtype=pl.List(pl.String))
            )
            for name in ("text", "reason"):
                _require(sfields.get(name, pl.Null), pl.String, pl.Null)
            if "evidence" in sfields and sfields["evidence"] not in (pl.List(pl.String), pl.List(pl.Null), pl.Null):
                raise NotSure
            sentence = pl.struct(
                text=item.field("text").cast(pl.String) if "text" in sfields else pl.lit(None, dtype=pl.String),
                attested=item.field("attested"),
                evidence=evidence,
                reason=item.field("reason").cast(pl.String) if "reason" in sfields else pl.lit(None, dtype=pl.String),
            )
            sentences = obj.field("faithfulness").struct.field("sentences").list.eval(sentence)
    out.append(sentences.alias(f"{prefix}_sentences"))
    utility_score = pl.lit(None, dtype=pl.Float64)
    utility_reason = pl.lit(None, dtype=pl.String)
    if fields.get("utility", pl.Null) != pl.Null:
        ufields = _fields(fields["utility"])
        utility_score = _struct_field(obj.field("utility").struct, ufields, "score", pl.Float64)
        utility_reason = _struct_field(obj.field("utility").struct, ufields, "reason", pl.String)
    out.append(utility_score.alias(f"{prefix}_utility"))
    out.append(utility_reason.alias(f"{prefix}_utility_reason"))
    out.append(
        pl.when(pl.col(prefix).is_not_null()).then(pl.col(prefix).struct.json_encode()).alias(f"{prefix}_json")
    )
    if prefix == "judge":
        out += _repeats(fields, obj)
    return out


def _repeats(fields: dict[str, DType], obj: Any) -> list[pl.Expr]:
    """`judge.repeats` as the two repeat columns; unsure (the exact path) unless every part is typed."""
    attested = pl.lit(None, dtype=RUN_SCHEMA["judge_repeat_attested"])
    scores = pl.lit(None, dtype=RUN_SCHEMA["judge_repeat_utility"])
    listed = fields.get("repeats", pl.Null)
    if listed != pl.Null:
        if not isinstance(listed, pl.List):
            raise NotSure
        # A part typed Null in every repetition (all of them errors) is rare: the exact path takes it.
        rfields = _fields(listed.inner)
        sentences = _fields(rfields.get("faithfulness", pl.Null)).get("sentences", pl.Null)
        if not isinstance(sentences, pl.List) or _fields(sentences.inner).get("attested") != pl.Boolean:
            raise NotSure
        score = _fields(rfields.get("utility", pl.Null)).get("score", pl.Null)
        _require(score, pl.Int64, pl.Float64, pl.Int32, pl.UInt64, pl.UInt32)
        attested, scores = repeat_columns(obj.field("repeats"))
    return [attested.alias("judge_repeat_attested"), scores.alias("judge_repeat_utility")]


def repeat_columns(repeats: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The two repeat columns of a list of repetitions (typed as `_repeats` requires): each
    one's sentences' verdicts, and its utility score."""
    item = pl.element().struct
    verdicts = item.field("faithfulness").struct.field("sentences").list.eval(pl.element().struct.field("attested"))
    return repeats.list.eval(verdicts), repeats.list.eval(item.field("utility").struct.field("score").cast(pl.Float64))


def _struct_field(obj: Any, fields: dict[str, DType], name: str, target: DType) -> pl.Expr:
    dtype = fields.get(name, pl.Null)
    if dtype == pl.Null:
        return pl.lit(None, dtype=target)
    if target == pl.Float64:
        _require(dtype, *_NUMERIC)
    elif dtype != target:
        raise NotSure
    return obj.field(name).cast(target)


def canonical_columns(raw: pl.DataFrame, first_line: int, *, detail: bool = True) -> pl.DataFrame:
    """The canonical frame of a parsed slice whose first record is on `first_line`; raises NotSure.

    `detail=False` gives `schema.without_detail` of it, built lazily: polars then never
    builds what that drops (the judge objects encoded as JSON, reasons, sentence texts)."""
    unknown = [c for c in raw.columns if c not in KNOWN_RECORD_FIELDS]
    extra = (
        pl.when(pl.any_horizontal([pl.col(c).is_not_null() for c in unknown])).then(pl.struct(unknown).struct.json_encode())
        if unknown
        else pl.lit(None, dtype=pl.String)
    )
    exprs = [
        pl.col("id"),
        (pl.int_range(pl.len(), dtype=pl.Int64) + first_line).alias("line"),
        _plain(raw, "question", pl.String).alias("question"),
        _plain(raw, "category", pl.String).alias("category"),
        _string_list(raw, "gold_passages").alias("gold_passages"),
        _plain(raw, "expected_answer", pl.String).alias("expected_answer"),
        *_retrieved(raw),
        _plain(raw, "answer", pl.String).alias("answer"),
        _plain(raw, "abstained", pl.Boolean).alias("abstained_given"),
        _string_list(raw, "cited").alias("cited"),
        *_verdicts(raw, "judge"),
        *_verdicts(raw, "human"),
        *[_plain(raw, n, pl.Float64).alias(n) for n in ("latency_ms", "cost_usd", "tokens_in", "tokens_out")],
        _plain(raw, "error", pl.String).alias("system_error"),
        extra.alias("extra"),
    ]
    frame = raw.lazy().select(exprs).select([pl.col(n).cast(t) for n, t in RUN_SCHEMA.items()])
    return (frame if detail else without_detail(frame)).collect()
