"""Reading a JSONL slice for a lean frame with a typed decoder (msgspec), before polars.

polars' declared read of a slice (lean_schema.py) parses only the declared fields, but it
drops a member the schema does not name and writes any value read into a String column
as text, so its frame is kept only after a recount of the slice's lines proves neither
happened (declared_read.py): about 1 CPU s for a 400 MB run, against 2.3 s for the parse.
A typed decoder needs no recount: it is told, for every object, the members it may hold
and the type of each, and refuses the line on anything else. Each line of the slice is
decoded by msgspec into Structs generated from `LEAN_RECORD` (the same declared fields and
types, the judge's evidence and reasons typed but never put in the frame), and the raw
frame polars' declared read gives is built from them column by column: `canonical_columns`
shapes it as it shapes polars'.

The read returns None — the slice then goes to polars' declared read, the inferred read
and the exact path, which report every problem as before — on anything it cannot vouch for:

- a member `LEAN_RECORD` does not declare, at any depth, even with a null value (an unknown
  field, an alias, a repeat inside a repeat), and a record's own `evidence` or `reason`
  (which it declares only to refuse them);
- a value of another type: a number, a boolean or an object where a string or a list of
  strings is expected and the reverse, a boolean for a number, a null inside a list;
- a number of magnitude 2**53 or more: the exact path reads an integer whole and then as
  a float, and refuses one of more than 100 digits; below 2**53 both give the same float.
  `NaN` and `Infinity` are not JSON to msgspec, nor is a number past a float's range;
- a line that is blank, holds two values, or is not JSON; bytes that are not UTF-8; an
  escaped surrogate without its pair (`"\\ud800"`).

A member named twice in one object keeps its last value, as `json.loads` (the exact path)
keeps it. docs/decisions.md ("Reading a run with a typed decoder") has the reasons, and
docs/performance.md the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, repeat
from operator import attrgetter, is_not
from typing import Annotated, Any

import msgspec
import numpy as np
import polars as pl

from ragtui.core.heap import collections_paused
from ragtui.core.loading.fast_columns import DType
from ragtui.core.loading.lean_schema import LEAN_RECORD, UNREAD
from ragtui.core.loading.slice_schema import read_lines

# Every integer below this magnitude is a float exactly: msgspec and the exact path's
# `float(int(text))` agree on it, and on any number written with a fraction or exponent.
_EXACT = 2.0**53
_NUMBER = Annotated[float, msgspec.Meta(gt=-_EXACT, lt=_EXACT)]
_SCALARS: dict[DType, Any] = {pl.String: str, pl.Float64: _NUMBER, pl.Boolean: bool}
# The unread members, accepted in any nested object as polars' declared read accepts them
# (the judge writes them in sentences and in the utility), typed as the exact path requires
# them there.
_UNREAD_TYPES: dict[str, Any] = {"evidence": list[str] | None, "reason": str | None}
assert set(_UNREAD_TYPES) == set(UNREAD)

# The record's declared fields; its own fields named like unread members are left out, so
# that the decoder refuses them (polars' declared read reads them to refuse them).
_RECORD = pl.Struct({name: dtype for name, dtype in LEAN_RECORD.items() if name not in UNREAD})


# Passages' and sentences' texts, the bulk of a run, are kept as their JSON bytes (msgspec
# checks their escapes, not their type or UTF-8) and decoded by polars (`_texts`): building
# millions of Python strings, then encoding them for polars, cost more than the decode.
_RAW_TEXTS = {"text"}
_NO_TEXT = msgspec.Raw(b"null")


class _Unsure(Exception):
    """A value the decoder let through that the exact path might read otherwise."""


def _typed(dtype: DType, name: str, *, record: bool = False) -> Any:
    """The msgspec type that decodes what `dtype` declares: a Struct refusing any member it
    does not name, every member optional (null or absent reads as None, as in polars)."""
    if isinstance(dtype, pl.Struct):
        fields: list[tuple[str, Any, Any]] = [
            (f.name, msgspec.Raw, _NO_TEXT) if f.name in _RAW_TEXTS else (f.name, _typed(f.dtype, f"{name}_{f.name}") | None, None)
            for f in dtype.fields
        ]
        if not record:
            fields += [(member, typed, None) for member, typed in _UNREAD_TYPES.items() if member not in dtype.to_schema()]
        # gc=False: these Structs hold strings, numbers and lists of Structs, never a cycle,
        # so the collector need not track the millions a large run decodes into.
        return msgspec.defstruct(name, fields, forbid_unknown_fields=True, gc=False)
    if isinstance(dtype, pl.List):
        return list[_typed(dtype.inner, name)]  # type: ignore[misc]
    return _SCALARS[dtype]


_DECODE: Callable[[bytes], Any] = msgspec.json.Decoder(_typed(_RECORD, "Record", record=True)).decode


def read_typed(piece: bytes) -> pl.DataFrame | None:
    """The raw frame of `piece` (whole JSONL lines) that polars' declared read of it with
    `LEAN_RECORD` gives, its unread members dropped; None when anything above is found."""
    lines = piece.split(b"\n")
    if not lines[-1]:
        lines.pop()  # the newline that ends the last line starts no line
    # The collector is paused while the slice's records are decoded and turned into
    # columns: every list decoded is a tracked container, so collections keep coming and
    # walk the slice's growing heap, collecting nothing (the Structs hold no cycle). The
    # decode of a 100,000-question run's slices: 1.2 s of CPU with them (778 collections),
    # 0.75 s without.
    with collections_paused():
        try:
            records, passages = _decoded(lines)
        except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
            return None
        try:
            return pl.DataFrame([
                passages.column() if name == _PASSAGES else _series(_members(records, name, True), name, dtype)
                for name, dtype in _RECORD.to_schema().items()
            ])
        except _Unsure:
            return None
        finally:
            # Freed before collections resume: each container freed leaves the young
            # generation, and alive they would be walked by the collection the first
            # allocation after the block sets off (0.36 s of CPU for a 100,000-question run).
            del records, passages


# The retrieved passages, twenty a question, are most of a run's objects: each batch of
# lines decoded has its passages' members gathered and the passages freed at once, while
# they are still in the CPU's caches; gathered from a whole slice's records, each of the
# three passes over two million passages a run missed the caches at every one (the
# passages of a 100,000-question run: about 0.4 s of CPU less; docs/decisions.md, "A lean
# read's passages taken out batch by batch").
_PASSAGES = "retrieved"
_BATCH_LINES = 256
_PASSAGE_LIST = _RECORD.to_schema()[_PASSAGES]
assert isinstance(_PASSAGE_LIST, pl.List)
_PASSAGE = _PASSAGE_LIST.inner
assert isinstance(_PASSAGE, pl.Struct) and [field.name for field in _PASSAGE.fields] == ["id", "text", "score"]
_RETRIEVED, _ID, _TEXT, _SCORE = attrgetter(_PASSAGES), attrgetter("id"), attrgetter("text"), attrgetter("score")


class _Passages:
    """The passages of a slice's records, gathered member by member, in order."""

    def __init__(self) -> None:
        self.sizes: list[int] = []  # each record's passages; -1 where its list is null
        self.ids: list[str | None] = []
        self.texts: list[bytes] = []  # each batch's texts, one JSON value a line (`_read_texts`)
        self.scores: list[float | None] = []

    def take(self, records: list[Any]) -> None:
        """Gather the passages of `records` and leave their lists to be freed."""
        listed = list(map(_RETRIEVED, records))
        if None in listed:
            self.sizes += [-1 if passages is None else len(passages) for passages in listed]
        else:
            self.sizes += map(len, listed)
        flat = list(chain.from_iterable(filter(None, listed)))
        self.ids += map(_ID, flat)
        if flat:
            self.texts.append(b"\n".join(map(_TEXT, flat)))
        self.scores += map(_SCORE, flat)
        for record in records:
            record.retrieved = None

    def column(self) -> pl.Series:
        """The column `_series` builds from the records' passage lists."""
        sizes = np.array(self.sizes, dtype=np.int64)
        present = sizes >= 0
        every = bool(present.all())
        if not len(sizes) or not present.any():
            return _nulls(_PASSAGES, _PASSAGE_LIST, len(sizes))
        if self.ids:
            inner = pl.DataFrame([
                pl.Series("id", self.ids, dtype=pl.String),
                _read_texts(b"\n".join(self.texts), "text"),
                pl.Series("score", self.scores, dtype=pl.Float64),
            ]).to_struct("item")
        else:
            inner = pl.Series("item", [], dtype=_PASSAGE)
        return _lists(inner, np.maximum(sizes, 0), None if every else present.tolist(), _PASSAGES)


def _decoded(lines: list[bytes]) -> tuple[list[Any], _Passages]:
    """The records of `lines`, their passages gathered apart (`_Passages`)."""
    records: list[Any] = []
    passages = _Passages()
    for start in range(0, len(lines), _BATCH_LINES):
        batch = list(map(_DECODE, lines[start : start + _BATCH_LINES]))
        passages.take(batch)
        records += batch
    return records, passages


def _series(values: list[Any], name: str, dtype: DType, *, nullable: bool = True) -> pl.Series:
    """The column of `dtype` holding `values` (decoded Python values, None for null; none
    is None where not `nullable`: the items of a list)."""
    # Counted, not listed: most members are in every record or in none (a run without
    # human labels, a judge without usage).
    missing = values.count(None) if nullable else 0
    if missing == len(values):
        return _nulls(name, dtype, len(values))
    if not isinstance(dtype, pl.Struct | pl.List):
        return pl.Series(name, values, dtype=dtype)
    every = not missing
    present = None if every else list(map(is_not, values, repeat(None)))
    if isinstance(dtype, pl.Struct):
        members = [
            _texts(_members(values, field.name, every), field.name, every=every)
            if field.name in _RAW_TEXTS
            else _series(_members(values, field.name, every), field.name, field.dtype)
            for field in dtype.fields
        ]
        if present is None:
            return pl.DataFrame(members).to_struct(name)
        return pl.DataFrame(members).select(pl.when(pl.Series(present)).then(pl.struct(pl.all())).alias(name)).to_series()
    lengths = np.fromiter(map(len, values) if every else (len(value) if value is not None else 0 for value in values),
                          dtype=np.int64, count=len(values))
    inner = _series(list(chain.from_iterable(filter(None, values))), "item", dtype.inner, nullable=False)
    return _lists(inner, lengths, present, name)


def _nulls(name: str, dtype: DType, size: int) -> pl.Series:
    """The column of `size` nulls of `dtype`, made from one (polars neither reads a list of
    them nor runs an expression)."""
    return pl.Series(name, [None], dtype=dtype).new_from_index(0, size)


def _texts(values: list[Any], name: str, *, every: bool) -> pl.Series:
    """The String column of texts kept as their JSON bytes (None where the object holding
    it is null: not `every` one is there); raises _Unsure where one is neither a string
    nor null, or is not UTF-8."""
    if not values:
        return pl.Series(name, [], dtype=pl.String)
    # A JSON string holds no raw newline (msgspec has checked): one text a line.
    return _read_texts(b"\n".join(values if every else [_NO_TEXT if value is None else value for value in values]), name)


def _read_texts(joined: bytes, name: str) -> pl.Series:
    """The String column of the JSON texts of `joined`, one a line, read by polars, which
    refuses bytes that are not UTF-8; raises _Unsure where one is neither a string nor null,
    or is not UTF-8."""
    try:
        lines = read_lines(joined)
    except pl.exceptions.PolarsError:
        raise _Unsure from None
    line = pl.col("line")
    # Without a backslash, a JSON string is its text between its quotes (it holds no other
    # quote); with one, polars decodes its escapes below (msgspec has checked them: no lone
    # surrogate gets this far). A value that is no string is left null here.
    read = lines.select(
        text=pl.when(line.str.starts_with('"')).then(line.str.strip_chars('"')),
        nulls=(line == "null").sum(),
        escaped=line.str.contains("\\", literal=True),
    )
    if read.get_column("text").null_count() != read.get_column("nulls")[0]:
        raise _Unsure  # a number, a boolean, an object or a list where a text is expected
    texts, escaped = read.get_column("text"), read.get_column("escaped")
    if escaped.any():
        texts = texts.scatter(escaped.arg_true(), lines.get_column("line").filter(escaped).str.json_decode(pl.String))
    return texts.alias(name)


def _members(values: list[Any], member: str, every: bool) -> list[Any]:
    """Each Struct's `member`, None where the Struct itself is None (not `every` one is there)."""
    if every:
        return list(map(attrgetter(member), values))
    return [getattr(value, member) if value is not None else None for value in values]


def _lists(inner: pl.Series, lengths: np.ndarray, present: list[bool] | None, name: str) -> pl.Series:
    """The list column whose row i holds the next `lengths[i]` items of `inner`, in order
    (null where `present` is False, empty where it holds none)."""
    size = len(lengths)
    if size and lengths[0] and (present is None or all(present)) and (lengths == lengths[0]).all():
        # Every row holds as many (a run's k passages): rows of a fixed width, no grouping.
        return inner.reshape((size, int(lengths[0]))).cast(pl.List(inner.dtype)).alias(name)
    rows = pl.Series("row", np.repeat(np.arange(size), lengths))
    grouped = pl.DataFrame([rows, inner]).group_by("row", maintain_order=True).agg(inner.name)
    every = pl.DataFrame({"row": np.arange(size)}).join(grouped, on="row", how="left", maintain_order="left")
    listed = pl.col(inner.name).fill_null(pl.lit([], dtype=pl.List(inner.dtype)))
    if present is not None and not all(present):
        listed = pl.when(pl.Series(present)).then(listed)
    return every.select(listed.alias(name)).to_series()
