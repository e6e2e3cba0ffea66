"""The fast path for large JSONL and Parquet runs: polars parses, expressions normalise.

A 100,000-question run with 20 passages each is too slow to parse record by record in
Python, so a canonical JSONL file is read by `pl.read_ndjson` and reshaped into the
schema with column expressions. The fast path is deliberately conservative: anything
it is not sure about (an alias key, a bare-id retrieved list, an unexpected type, a value
out of range, a blank line) makes it return None and the exact path in `normalize`
takes over, so both paths give the same frame and every problem is still located.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import polars as pl
from polars.datatypes import DataTypeClass

from ragtui.core.loading.schema import KNOWN_RECORD_FIELDS, RUN_SCHEMA, SENTENCE, without_detail

_ALIASES = {"passages_verite", "reponse_attendue", "categorie", "phrases", "texte", "atteste"}
_NUMERIC = (pl.Int64, pl.Float64, pl.Int32, pl.UInt64, pl.UInt32, pl.Null)


# polars names a type by its class (pl.String) or an instance (pl.List(pl.String)).
DType = pl.DataType | DataTypeClass


class Readable(Protocol):
    """A binary file, or anything read like one (the run cache's `HashingReader`)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readline(self, size: int = -1, /) -> bytes: ...


class _NotSure(Exception):
    """The file needs the exact path."""


def _fields(dtype: DType) -> dict[str, DType]:
    if not isinstance(dtype, pl.Struct):
        raise _NotSure
    return {f.name: f.dtype for f in dtype.fields}


def _require(dtype: DType, *allowed: type) -> None:
    if not any(dtype == a or isinstance(dtype, a) for a in allowed):
        raise _NotSure


def _string_list(frame: pl.DataFrame, name: str) -> pl.Expr:
    if name not in frame.columns:
        return pl.lit(None, dtype=pl.List(pl.String))
    dtype = frame.schema[name]
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.List(pl.String))
    if dtype != pl.List(pl.String) and dtype != pl.List(pl.Null):
        raise _NotSure
    return pl.col(name).cast(pl.List(pl.String))


def _plain(frame: pl.DataFrame, name: str, target: DType) -> pl.Expr:
    if name not in frame.columns or frame.schema[name] == pl.Null:
        return pl.lit(None, dtype=target)
    dtype = frame.schema[name]
    if target == pl.Float64:
        _require(dtype, *_NUMERIC)
    elif dtype != target:
        raise _NotSure
    return pl.col(name).cast(target)


def _retrieved(frame: pl.DataFrame) -> list[pl.Expr]:
    names = ("retrieved_ids", "retrieved_texts", "retrieved_scores")
    if "retrieved" not in frame.columns or frame.schema["retrieved"] == pl.Null:
        return [pl.lit(None, dtype=RUN_SCHEMA[n]).alias(n) for n in names]
    dtype = frame.schema["retrieved"]
    if not isinstance(dtype, pl.List):
        raise _NotSure
    fields = _fields(dtype.inner)
    if fields.get("id") != pl.String or fields.get("text", pl.String) not in (pl.String, pl.Null):
        raise _NotSure
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
                raise _NotSure
            sfields = _fields(listed.inner)
            if sfields.get("attested") != pl.Boolean:
                raise _NotSure
            item = pl.element().struct
            evidence = (
                item.field("evidence").cast(pl.List(pl.String)).fill_null(pl.lit([], dtype=pl.List(pl.String)))
                if "evidence" in sfields
                else pl.lit([], dtype=pl.List(pl.String))
            )
            for name in ("text", "reason"):
                _require(sfields.get(name, pl.Null), pl.String, pl.Null)
            if "evidence" in sfields and sfields["evidence"] not in (pl.List(pl.String), pl.List(pl.Null), pl.Null):
                raise _NotSure
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
            raise _NotSure
        # A part typed Null in every repetition (all of them errors) is rare: the exact path takes it.
        rfields = _fields(listed.inner)
        sentences = _fields(rfields.get("faithfulness", pl.Null)).get("sentences", pl.Null)
        if not isinstance(sentences, pl.List) or _fields(sentences.inner).get("attested") != pl.Boolean:
            raise _NotSure
        score = _fields(rfields.get("utility", pl.Null)).get("score", pl.Null)
        _require(score, pl.Int64, pl.Float64, pl.Int32, pl.UInt64, pl.UInt32)
        item = pl.element().struct
        verdicts = item.field("faithfulness").struct.field("sentences").list.eval(pl.element().struct.field("attested"))
        attested = obj.field("repeats").list.eval(verdicts)
        scores = obj.field("repeats").list.eval(item.field("utility").struct.field("score").cast(pl.Float64))
    return [attested.alias("judge_repeat_attested"), scores.alias("judge_repeat_utility")]


def _struct_field(obj: Any, fields: dict[str, DType], name: str, target: DType) -> pl.Expr:
    dtype = fields.get(name, pl.Null)
    if dtype == pl.Null:
        return pl.lit(None, dtype=target)
    if target == pl.Float64:
        _require(dtype, *_NUMERIC)
    elif dtype != target:
        raise _NotSure
    return obj.field(name).cast(target)


def _has_alias(schema: pl.Schema) -> bool:
    """French alias keys anywhere in the inferred schema (the schema covers every row)."""

    def walk(dtype: DType) -> bool:
        if isinstance(dtype, pl.Struct):
            return any(f.name in _ALIASES or walk(f.dtype) for f in dtype.fields)
        if isinstance(dtype, pl.List):
            return walk(dtype.inner)
        return False

    return any(name in _ALIASES or walk(dtype) for name, dtype in schema.items())


def _values_are_clean(frame: pl.DataFrame) -> bool:
    """Vectorised range checks; any failure sends the file to the exact path."""
    checks = [
        pl.col("id").is_null().any(),
        pl.col("id").is_duplicated().any(),
        (pl.col("judge_utility") < 1).any() | (pl.col("judge_utility") > 5).any(),
        (pl.col("human_utility") < 1).any() | (pl.col("human_utility") > 5).any(),
        pl.col("judge_utility").is_nan().any() | pl.col("human_utility").is_nan().any(),
        pl.col("retrieved_ids").list.eval(pl.element().is_null().any()).list.first().fill_null(False).any(),
    ]
    for name in ("latency_ms", "cost_usd", "tokens_in", "tokens_out"):
        checks.append((pl.col(name) < 0).any() | pl.col(name).is_nan().any())
    for prefix in ("judge", "human"):
        attested = pl.col(f"{prefix}_sentences").list.eval(pl.element().struct.field("attested").is_null().any())
        checks.append(attested.list.first().fill_null(False).any())
    repeat_scores = pl.col("judge_repeat_utility").list.eval(((pl.element() < 1) | (pl.element() > 5) | pl.element().is_nan()).any())
    checks.append(repeat_scores.list.first().fill_null(False).any())
    repeat_nulls = pl.col("judge_repeat_attested").list.eval(pl.element().list.eval(pl.element().is_null().any()).list.first().fill_null(False).any())
    checks.append(repeat_nulls.list.first().fill_null(False).any())
    flags = frame.select([c.fill_null(False).alias(f"c{i}") for i, c in enumerate(checks)]).row(0)
    return not any(flags)


# Parsing in slices bounds memory: polars needs several times a slice's size while it
# parses, and only the (much smaller) canonical frame of each slice is kept.
CHUNK_BYTES = 32 * 1024 * 1024


def read_fast(data: bytes) -> tuple[dict[str, Any], pl.DataFrame] | None:
    """(run metadata, canonical frame) for canonical JSONL bytes, or None when unsure."""
    return read_fast_stream(io.BytesIO(data))


def _meta_line(head: bytes) -> dict[str, Any] | None:
    """The `{"run": {...}}` object of a first line, {} when the line is a record, None when bad."""
    if not head.lstrip().startswith(b'{"run"'):
        return {}
    try:
        parsed = json.loads(head)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(parsed, dict) or set(parsed) != {"run"} or not isinstance(parsed["run"], dict):
        return None
    return parsed["run"]


def _slices(handle: Readable, first: bytes) -> Iterator[bytes]:
    """Whole lines, about CHUNK_BYTES at a time, starting with `first`; each block is copied
    once (the partial line carried over joins the next block's whole lines)."""
    pending = first
    while True:
        block = handle.read(CHUNK_BYTES)
        if not block:
            if pending:
                yield pending
            return
        cut = block.rfind(b"\n") + 1
        if not cut:  # no line ends in this block: keep gathering
            pending += block
            continue
        yield b"".join((pending, memoryview(block)[:cut]))
        pending = block[cut:]


def read_fast_stream(
    handle: Readable, *, detail: bool = True, on_slice: Callable[[pl.DataFrame], None] | None = None
) -> tuple[dict[str, Any], pl.DataFrame] | None:
    """Like `read_fast`, reading a binary file object slice by slice.

    With `detail=False`, each slice drops what only the question view shows
    (`schema.without_detail`) before the next is parsed. `on_slice` sees each canonical
    slice whole first (the run cache writes its texts there).
    """
    head = handle.readline().removeprefix("\ufeff".encode())  # a byte-order mark is not content
    meta = _meta_line(head.rstrip(b"\r\n"))
    if meta is None:
        return None
    line = 2 if meta or head.lstrip().startswith(b'{"run"') else 1
    frames = []
    previous_ended_line = True
    for piece in _slices(handle, b"" if line == 2 else head):
        # Line numbers must be exact, so a blank line anywhere sends the file to the exact path.
        blank = not piece[:64].strip() and not piece.strip()  # the whole piece is stripped only when it starts blank
        if blank or b"\n\n" in piece or (piece.startswith(b"\n") and previous_ended_line) or b"\r" in piece:
            return None
        try:
            raw = pl.read_ndjson(io.BytesIO(piece), infer_schema_length=None)
        except Exception:  # noqa: BLE001 - any parse trouble: the exact path reports it
            return None
        rows = piece.count(b"\n") + (0 if piece.endswith(b"\n") else 1)
        if raw.height != rows or "id" not in raw.columns or raw.schema["id"] != pl.String or _has_alias(raw.schema):
            return None
        try:
            canonical = _canonical(raw, line)
        except (_NotSure, pl.exceptions.PolarsError):
            return None
        if on_slice is not None:
            on_slice(canonical)
        frames.append(canonical if detail else without_detail(canonical))
        del raw
        line += rows
        previous_ended_line = piece.endswith(b"\n")
    if not frames:
        return None
    # One contiguous chunk: list operations on it later are two to three times faster.
    frame = pl.concat(frames, rechunk=True) if len(frames) > 1 else frames[0]
    return (meta, frame) if _values_are_clean(frame) else None


def canonical_from_frame(raw: pl.DataFrame, first_line: int = 1) -> pl.DataFrame | None:
    """A frame of records with nested columns (from JSONL or Parquet) in the canonical
    schema, or None when anything needs the exact path."""
    if "id" not in raw.columns or raw.schema["id"] != pl.String or _has_alias(raw.schema):
        return None
    try:
        frame = _canonical(raw, first_line)
    except (_NotSure, pl.exceptions.PolarsError):
        return None
    return frame if _values_are_clean(frame) else None


def _canonical(raw: pl.DataFrame, first_line: int) -> pl.DataFrame:
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
        extra.alias("extra"),
    ]
    frame = raw.select(exprs)
    return frame.select([pl.col(n).cast(t) for n, t in RUN_SCHEMA.items()])
