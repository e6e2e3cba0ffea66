"""The fast path for large JSONL and Parquet runs: polars parses, expressions normalise.

A 100,000-question run with 20 passages each is too slow to parse record by record in
Python, so a canonical JSONL file is read by `pl.read_ndjson` and reshaped into the
schema with column expressions (`fast_columns.py`). The fast path is deliberately
conservative: anything it is not sure about (an alias key, a bare-id retrieved list, an
unexpected type, a value out of range, a blank line) makes it return None and the exact
path in `normalize` takes over, so both paths give the same frame and every problem is
still located.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np
import polars as pl

from ragtui.core.loading import bounded_json
from ragtui.core.loading.fast_columns import DType, NotSure, canonical_columns
from ragtui.core.loading.lean_schema import LeanSchema
from ragtui.core.loading.records import BOM
from ragtui.core.loading.slice_schema import count_lines, parse_slice

_ALIASES = {"passages_verite", "reponse_attendue", "categorie", "phrases", "texte", "atteste"}


class Readable(Protocol):
    """A binary file, or anything read like one (the run cache's `HashingReader`)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readline(self, size: int = -1, /) -> bytes: ...


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
# 24 MB, not 32: glibc's malloc serves a block of 32 MB or more from fresh pages of its
# own mapping every time (its threshold for that stops growing at 32 MB), so each block
# read and each slice joined page-faulted anew; smaller blocks reuse the freed heap. On a
# 100,000-question file: 2.5 times fewer page faults, a second less system time, the
# parse ~11 % faster (6 runs each, docs/performance.md).
CHUNK_BYTES = 24 * 1024 * 1024


def read_fast(data: bytes) -> tuple[dict[str, Any], pl.DataFrame] | None:
    """(run metadata, canonical frame) for canonical JSONL bytes, or None when unsure."""
    return read_fast_stream(io.BytesIO(data))


def _meta_line(head: bytes) -> dict[str, Any] | None:
    """The `{"run": {...}}` object of a first line, {} when the line is a record, None when bad."""
    if not head.lstrip().startswith(b'{"run"'):
        return {}
    try:
        parsed = bounded_json.loads(head)
    except ValueError:  # malformed, past a bound or not UTF-8: the exact path says which
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
    handle: Readable,
    *,
    detail: bool = True,
    on_lines: Callable[[np.ndarray, int], None] | None = None,
) -> tuple[dict[str, Any], pl.DataFrame] | None:
    """Like `read_fast`, reading a binary file object slice by slice.

    With `detail=False`, each slice drops what only the question view shows
    (`schema.without_detail`) before the next is parsed. `on_lines` is given, slice by
    slice, the byte offset in the file of each record's line and the line number of the
    first (the run cache keeps them, so the texts can be read again later: `line_texts`).
    """
    raw_head = handle.readline()
    head = raw_head.removeprefix(BOM.encode())  # a byte-order mark is not content
    meta = _meta_line(head.rstrip(b"\r\n"))
    if meta is None:
        return None
    line = 2 if meta or head.lstrip().startswith(b'{"run"') else 1
    at = len(raw_head) if line == 2 else 0  # where in the file the next slice starts
    frames = []
    schema = None  # the last slice's, reused for the next (slice_schema.py)
    lean = None if detail else LeanSchema()  # the declared fields of a lean frame (lean_schema.py)
    for piece in _slices(handle, b"" if line == 2 else raw_head):
        starts = line_starts(piece, at) if on_lines is not None else None
        parsed = canonical_slice(piece, len(starts) if starts is not None else None, line, schema, lean)
        if parsed is None:
            return None
        canonical, schema = parsed
        if on_lines is not None and starts is not None:
            on_lines(starts, line)
        frames.append(canonical)
        line += canonical.height  # one row a line: `canonical_slice` holds them equal
        at += len(piece)
    if not frames:
        return None
    # One contiguous chunk: list operations on it later are two to three times faster, and
    # a sum over a column does not depend on the chunks a slice's read left (polars' own
    # read leaves several, the typed decoder's fewer, the run cache's reopen one): a mean
    # of the sample differed in its last bit between the first open and the reopen.
    frame = pl.concat(frames, rechunk=True) if len(frames) > 1 else frames[0].rechunk()
    return (meta, frame) if _values_are_clean(frame) else None


def line_starts(piece: bytes, at: int) -> np.ndarray:
    """The file offsets of the lines of `piece`, a slice of whole lines that starts at byte
    `at` of its file (its last line may lack its newline; a blank line is a line).

    One `find` a line: a record is kilobytes long, and `find` skips to the next newline at
    memory speed (5 ms for a 24 MB slice, against 13 ms for numpy's comparison of every byte).
    """
    starts, position, find, size = [], 0, piece.find, len(piece)
    while position < size:
        starts.append(position)
        newline = find(b"\n", position)
        if newline < 0:
            break
        position = newline + 1
    return np.array(starts, dtype=np.uint64) + np.uint64(at)


def canonical_slice(
    piece: bytes, rows: int | None, line: int, schema: pl.Schema | None, lean: LeanSchema | None = None
) -> tuple[pl.DataFrame, pl.Schema | None] | None:
    """The canonical frame of a slice of `rows` whole lines whose first is line `line` —
    with `lean`, `without_detail` of it, never built whole, read with the declared fields
    (typed_lean.py, lean_schema.py) — else parsed with the last inferred slice's `schema`
    where that loses nothing (slice_schema.py); and the schema to try on the next slice.
    None when the exact path must decide. `rows` None: the lines are counted here, by the
    readers that need the count (the typed decoder makes one row of each line itself)."""
    if b"\r" in piece:
        return None
    # A lean frame is decoded with the declared types (typed_lean.py, which builds it
    # directly), else read with the declared schema (lean_schema.py), and as before when
    # either is unsure.
    raw = None
    if lean is not None:
        # Imported for a lean frame only: msgspec and the Structs it is told about cost the
        # start of a small run's open (the app's, held whole) about 7 ms.
        from ragtui.core.loading.typed_lean import read_typed

        typed = read_typed(piece, line) if lean.typed else None
        lean.typed_declined = 0 if typed is not None else lean.typed_declined + 1
        if typed is not None:
            # One record a line, each line decoded by itself: its rows are the slice's lines
            # (the count, where given, is checked all the same).
            return (typed, schema) if rows is None or typed.height == rows else None
        raw = lean.read(piece)
    if rows is None:
        rows = count_lines(piece)
    if raw is None:
        try:
            raw = parse_slice(piece, schema)
        except Exception:  # noqa: BLE001 - any parse trouble: the exact path reports it
            return None
        schema = raw.schema
    # Line numbers must be exact: polars skips a blank line, so one anywhere (even at the
    # end of a slice) leaves fewer rows than lines, and the exact path takes the file.
    if raw.height != rows or "id" not in raw.columns or raw.schema["id"] != pl.String or _has_alias(raw.schema):
        return None
    try:
        return canonical_columns(raw, line, detail=lean is None), schema
    except (NotSure, pl.exceptions.PolarsError):
        return None


def canonical_from_frame(raw: pl.DataFrame, first_line: int = 1) -> pl.DataFrame | None:
    """A frame of records with nested columns (from JSONL or Parquet) in the canonical
    schema, or None when anything needs the exact path."""
    if "id" not in raw.columns or raw.schema["id"] != pl.String or _has_alias(raw.schema):
        return None
    try:
        frame = canonical_columns(raw, first_line)
    except (NotSure, pl.exceptions.PolarsError):
        return None
    return frame if _values_are_clean(frame) else None
