"""The fast path for a large JSONL gold set: polars parses, and the frame is only kept
when it is exactly what the exact path (`normalize_gold_record`) would have built.

Record by record in Python, a gold set of 1,000,000 questions took 27.7 s and 1.4 GB;
polars reads the same file in 1.4 s. Like the runs' fast path (fast_jsonl.py) this one
is conservative: anything it is not sure of — a blank line, a metadata line, a carriage
return, a byte-order mark, an escaped surrogate, an alias key, a field of an unexpected
type, a required field missing or blank, a repeated id, a number polars would have read as
text (the checks of declared_read.py; for a gold set with fields of its own, read with its
schema inferred, the member and quote counts of slice_schema.py) — returns None, and the exact path
reads the file and names each problem's file, line and field as it always has.
"""

from __future__ import annotations

import re

import polars as pl

from ragtui.core.loading.declared_read import read_declared
from ragtui.core.loading.schema import GOLD_SCHEMA, RECORD_ALIASES
from ragtui.core.loading.slice_schema import count_lines, every_member_read, not_strings

_STRING_FIELDS = ("id", "question", "category", "expected_answer", "document")
_LIST_FIELDS = ("gold_passages", "tags")
_NOT_STRINGS = not_strings(_STRING_FIELDS, _LIST_FIELDS)
# A field the gold set does not use is left as it is; a number or a nested value in one is
# left to the exact path (its bounds on digits and depth decide).
_FLAT = (pl.String, pl.Boolean, pl.Null)
# `"\ud800"`: polars writes a replacement character where the exact path refuses the text.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_HEAD_LINES = 100


def _declared(data: bytes) -> pl.Schema:
    """The gold fields to read the file with, nothing inferred (declared_read.py): those its
    first lines name (polars fills a declared field in, null, row by row, even where no
    record has it). A field that first appears later breaks the count, and the file is read
    with its schema inferred, as one with a field of its own is."""
    end = -1
    for _ in range(_HEAD_LINES):
        end = data.find(b"\n", end + 1)
        if end < 0:
            break
    head = data if end < 0 else data[:end]
    required = ("id", "question", "gold_passages")  # the exact path's, named or not
    return pl.Schema({
        name: GOLD_SCHEMA[name] for name in ("id", *_STRING_FIELDS[1:], *_LIST_FIELDS) if name in required or f'"{name}"'.encode() in head
    })


def read_fast_gold(data: bytes) -> pl.DataFrame | None:
    """The gold frame (GOLD_SCHEMA) of a native JSONL gold set's bytes, or None when unsure."""
    if not data or data.startswith(b"\xef\xbb\xbf") or b"\r" in data or data.lstrip()[:6] == b'{"run"':
        return None
    if _ESCAPED_SURROGATE.search(data):
        return None
    # polars skips a blank line: one anywhere leaves fewer rows than lines, and the exact path reads the file.
    rows = count_lines(data)
    raw = read_declared(data, _declared(data), _NOT_STRINGS)
    raw = raw if raw is not None else _inferred(data)
    if raw is None or raw.height != rows:
        return None
    frame = raw.select(
        *(_column(raw, name) for name in ("id",)),
        pl.int_range(1, raw.height + 1, dtype=pl.Int64).alias("line"),
        *(_column(raw, name) for name in ("question", "category", "gold_passages", "expected_answer")),
        _column(raw, "tags").fill_null([]).list.unique(maintain_order=True).alias("tags"),
        _column(raw, "document"),
    )
    return frame if _values_are_sure(frame) else None


def _inferred(data: bytes) -> pl.DataFrame | None:
    """The gold set read with its schema inferred (a field the declared schema does not name:
    it must be flat, and every member read), or None."""
    try:
        raw = pl.read_ndjson(data, infer_schema_length=None)
        return raw if _types_are_sure(raw.schema) and every_member_read(data, raw) else None
    except Exception:  # noqa: BLE001 - any parse trouble: the exact path reports it
        return None


def _types_are_sure(schema: pl.Schema) -> bool:
    """Every field the exact path reads has the type it accepts; nothing it would rename or grade."""
    if "id" not in schema or "question" not in schema or "gold_passages" not in schema:
        return False
    for name, dtype in schema.items():
        if name in RECORD_ALIASES or name == "_relevance_grades":
            return False
        if name in _STRING_FIELDS:
            if dtype not in (pl.String, pl.Null):
                return False
        elif name in _LIST_FIELDS:
            if dtype != pl.List(pl.String) and dtype != pl.List(pl.Null):
                return False
        elif not any(dtype == flat for flat in _FLAT):
            return False
    return schema["id"] == pl.String and schema["question"] == pl.String


def _column(raw: pl.DataFrame, name: str) -> pl.Expr:
    dtype = GOLD_SCHEMA[name]
    if name in raw.columns:
        return pl.col(name).cast(dtype)
    return pl.lit(None, dtype=dtype).alias(name)


def _values_are_sure(frame: pl.DataFrame) -> bool:
    """No record the exact path would refuse: ids and questions present and not blank,
    gold passages given (even `[]`) without a null, ids unique."""
    blank = r"^\s*$"
    checks = [
        pl.col("id").is_null().any() | pl.col("id").str.contains(blank).any(),
        pl.col("question").is_null().any() | pl.col("question").str.contains(blank).any(),
        pl.col("gold_passages").is_null().any(),
        pl.col("gold_passages").list.eval(pl.element().is_null().any()).list.first().fill_null(False).any(),
        pl.col("tags").list.eval(pl.element().is_null().any()).list.first().fill_null(False).any(),
        pl.col("id").is_duplicated().any(),
    ]
    flags = frame.select([check.fill_null(False).alias(f"c{i}") for i, check in enumerate(checks)]).row(0)
    return not any(flags)
