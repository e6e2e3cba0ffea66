"""Reading a JSONL slice for a lean frame with a typed decoder (msgspec), before polars.

polars' declared read of a slice (lean_schema.py) parses only the declared fields, but it
drops a member the schema does not name and writes any value read into a String column
as text, so its frame is kept only after a recount of the slice's lines proves neither
happened (declared_read.py): about 1 CPU s for a 400 MB run, against 2.3 s for the parse.
A typed decoder needs no recount: it is told, for every object, the members it may hold
and the type of each, and refuses the line on anything else. Each line of the slice is
decoded by msgspec into Structs generated from `LEAN_RECORD` (the same declared fields and
types, the judge's evidence and reasons typed but never put in the frame), and the lean
frame is built from them directly, column by column: the frame `canonical_columns(...,
detail=False)` makes of polars' declared read, without the raw frame's nested columns,
which only that shaping read (the tests hold the two equal).

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
from ragtui.core.judge_directed import flag_expr
from ragtui.core.loading.fast_columns import DType, repeat_columns
from ragtui.core.loading.lean_schema import LEAN_RECORD, UNREAD
from ragtui.core.loading.schema import RUN_SCHEMA
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


_DECODE: Callable[[bytes | memoryview], Any] = msgspec.json.Decoder(_typed(_RECORD, "Record", record=True)).decode


def read_typed(piece: bytes, first_line: int) -> pl.DataFrame | None:
    """The lean frame of `piece` (whole JSONL lines, the first on line `first_line`): what
    `canonical_columns(..., detail=False)` makes of polars' declared read of it with
    `LEAN_RECORD`, its unread members dropped; None when anything above is found."""
    lines = _lines(piece)
    # The collector is paused while the slice's records are decoded and turned into
    # columns: every list decoded is a tracked container, so collections keep coming and
    # walk the slice's growing heap, collecting nothing (the Structs hold no cycle). The
    # decode of a 100,000-question run's slices: 1.2 s of CPU with them (778 collections),
    # 0.75 s without.
    with collections_paused():
        try:
            gathered = _gathered(lines)
        except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
            return None
        try:
            return gathered.frame(first_line)
        except (_Unsure, pl.exceptions.PolarsError):  # polars refusing a slice's columns (none known) is unsure too
            return None
        finally:
            # Freed before collections resume: each container freed leaves the young
            # generation, and alive they would be walked by the collection the first
            # allocation after the block sets off.
            del gathered


# A slice's records are taken apart batch by batch, as they are decoded: each member the
# lean frame is built from is gathered into a flat list (a list member's items, with each
# record's count of them), and the batch's records are freed at once, while they are still
# in the CPU's caches. The retrieved passages, twenty a question, are most of a run's
# objects; gathered from a whole slice's records, each pass over two million passages a
# run missed the caches at every one (docs/decisions.md, "A lean read's passages taken out
# batch by batch").
_BATCH_LINES = 256
_PASSAGES = "retrieved"
_PASSAGE_LIST = _RECORD.to_schema()[_PASSAGES]
assert isinstance(_PASSAGE_LIST, pl.List)
assert isinstance(_PASSAGE_LIST.inner, pl.Struct) and [f.name for f in _PASSAGE_LIST.inner.fields] == ["id", "text", "score"]

# The record's members read into a lean column as they are: (member, column, type).
_PLAIN: tuple[tuple[str, str, DType], ...] = (
    *((name, name, pl.String) for name in ("id", "question", "category", "expected_answer", "answer")),
    ("abstained", "abstained_given", pl.Boolean),
    *((name, name, pl.Float64) for name in ("latency_ms", "cost_usd", "tokens_in", "tokens_out")),
    ("error", "system_error", pl.String),
)
_STRING_LISTS = ("gold_passages", "cited")
# A verdict's members the lean frame keeps; its provider, prompt version, raw reply,
# injection flag and usage are decoded (so typed) and never put in it, and neither are
# its sentences' texts, evidence and reasons, nor its utility's reason.
_VERDICTS = ("judge", "human")
_REPEATS = "repeats"
_REPEATS_TYPE = _RECORD.to_schema()["judge"].to_schema()[_REPEATS]  # type: ignore[union-attr]
_NO_VERDICTS = _DECODE(b'{"judge": {}, "human": {}}')  # every member None
_NO_VERDICT = {name: getattr(_NO_VERDICTS, name) for name in _VERDICTS}
# The members of the many objects (passages, sentences, verdicts) are read in list
# comprehensions naming them: Python specialises such a read of a Struct's slot, and
# `map(attrgetter(name), ...)` looks the name up on every call (the passages of a batch
# taken out in under half the time).


class _Lists:
    """A list member of a slice's records, gathered flat: each record's count of items (-1
    where its list is null); the caller keeps what it needs of the items."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def count(self, listed: list[Any]) -> None:
        """Count the items of `listed` (one list or None a record); the caller takes them."""
        if None in listed:
            self.sizes += [-1 if items is None else len(items) for items in listed]
        else:
            self.sizes += map(len, listed)

    def column(self, inner: pl.Series, name: str) -> pl.Series:
        """The list column whose rows hold `inner`'s items, as many as each record's list."""
        sizes = np.array(self.sizes, dtype=np.int64)
        present = sizes >= 0
        if not present.any():
            return _nulls(name, pl.List(inner.dtype), len(sizes))
        return _lists(inner, np.maximum(sizes, 0), None if present.all() else present.tolist(), name)


class _Verdicts:
    """A verdict member (`judge`, `human`) of a slice's records, gathered."""

    def __init__(self, member: str) -> None:
        self.member, self.absent = attrgetter(member), _NO_VERDICT[member]
        self.present: list[bool] = []
        self.model: list[str | None] = []
        self.error: list[str | None] = []
        self.utility: list[float | None] = []
        self.sentences = _Lists()
        self.attested: list[bool | None] = []
        self.texts: list[bytes] = []  # the sentences' texts, checked and never kept (`_Gathered.texts`)
        self.repeats: list[Any] | None = [] if member == "judge" else None  # kept as decoded: rare

    def take(self, records: list[Any]) -> None:
        verdicts = list(map(self.member, records))
        absent = verdicts.count(None)
        if absent == len(verdicts):  # none in the batch (a run without human labels)
            self.present += repeat(False, absent)
            nulls: list[list[Any]] = [self.model, self.error, self.utility]
            for values in nulls if self.repeats is None else [*nulls, self.repeats]:
                values += repeat(None, absent)
            self.sentences.sizes += repeat(-1, absent)
            return
        self.present += map(is_not, verdicts, repeat(None))
        if absent:
            verdicts = [self.absent if verdict is None else verdict for verdict in verdicts]
        self.model += [verdict.model for verdict in verdicts]
        self.error += [verdict.error for verdict in verdicts]
        self.utility += [verdict.utility.score if verdict.utility is not None else None for verdict in verdicts]
        listed = [verdict.faithfulness.sentences if verdict.faithfulness is not None else None for verdict in verdicts]
        self.sentences.count(listed)
        self.attested += [sentence.attested for sentences in listed if sentences for sentence in sentences]
        texts = [sentence.text for sentences in listed if sentences for sentence in sentences]
        if texts:
            self.texts.append(b"\n".join(texts))
        if self.repeats is not None:
            self.repeats += [verdict.repeats for verdict in verdicts]

    def columns(self, prefix: str, rows: int) -> dict[str, pl.Series]:
        """The verdict's lean columns (`schema.without_detail`: sentences without their texts,
        evidence or reasons, no reason, no JSON)."""
        count = len(self.attested)
        sentence = pl.DataFrame([
            _nulls("text", pl.String, count),
            pl.Series("attested", self.attested, dtype=pl.Boolean),
            pl.Series("evidence", [[]], dtype=pl.List(pl.String)).new_from_index(0, count),
            _nulls("reason", pl.String, count),
        ]).to_struct("item")
        columns = {
            f"{prefix}_present": pl.Series(f"{prefix}_present", self.present, dtype=pl.Boolean),
            f"{prefix}_model": pl.Series(f"{prefix}_model", self.model, dtype=pl.String),
            f"{prefix}_sentences": self.sentences.column(sentence, f"{prefix}_sentences"),
            f"{prefix}_utility": pl.Series(f"{prefix}_utility", self.utility, dtype=pl.Float64),
            f"{prefix}_utility_reason": _nulls(f"{prefix}_utility_reason", pl.String, rows),
            f"{prefix}_error": pl.Series(f"{prefix}_error", self.error, dtype=pl.String),
            f"{prefix}_json": _nulls(f"{prefix}_json", pl.String, rows),
        }
        if self.repeats is not None:
            # Built as polars' read has them (their sentences' texts checked there), then
            # shaped as `canonical_columns` shapes them.
            repeats = _series(self.repeats, _REPEATS, _REPEATS_TYPE).to_frame()
            attested, utility = repeat_columns(pl.col(_REPEATS))
            columns.update(repeats.select(judge_repeat_attested=attested, judge_repeat_utility=utility).to_dict())
        return columns


class _Gathered:
    """The members of a slice's records the lean frame is built from, gathered in order."""

    def __init__(self) -> None:
        self.rows = 0
        self.plain: list[tuple[attrgetter[Any], list[Any]]] = [(attrgetter(member), []) for member, _, _ in _PLAIN]
        self.lists: list[tuple[attrgetter[Any], _Lists, list[str]]] = [(attrgetter(member), _Lists(), []) for member in _STRING_LISTS]
        self.passages = _Lists()
        self.ids: list[str | None] = []
        self.texts: list[bytes] = []  # each batch's passage texts, one JSON value a line (`_read_texts`)
        self.scores: list[float | None] = []
        self.verdicts = {member: _Verdicts(member) for member in _VERDICTS}

    def take(self, records: list[Any]) -> None:
        """Gather what the frame needs of `records`, and leave them to be freed."""
        self.rows += len(records)
        for getter, values in self.plain:
            values += map(getter, records)
        for getter, lists, items in self.lists:
            listed = list(map(getter, records))
            lists.count(listed)
            items += chain.from_iterable(filter(None, listed))
        listed = [record.retrieved for record in records]
        self.passages.count(listed)
        self.ids += [passage.id for passages in listed if passages for passage in passages]
        texts = [passage.text for passages in listed if passages for passage in passages]
        if texts:
            self.texts.append(b"\n".join(texts))
        self.scores += [passage.score for passages in listed if passages for passage in passages]
        for verdicts in self.verdicts.values():
            verdicts.take(records)

    def frame(self, first_line: int) -> pl.DataFrame:
        """The lean frame; raises _Unsure where a text is neither a string nor null, or is
        not UTF-8."""
        rows, passages = self.rows, len(self.ids)
        columns = {
            column: pl.Series(column, values, dtype=dtype) for (_, column, dtype), (_, values) in zip(_PLAIN, self.plain, strict=True)
        }
        columns["line"] = pl.Series("line", np.arange(first_line, first_line + rows, dtype=np.int64))
        for member, (_, lists, items) in zip(_STRING_LISTS, self.lists, strict=True):
            columns[member] = lists.column(pl.Series("item", items, dtype=pl.String), member)
        # Every text, the passages' then the sentences', read in one go: the sentences' are
        # only checked (the lean frame keeps none), and of the passages' only those that
        # address the judge are kept (`judge_directed.keep_flagged`).
        blocks = [*self.texts, *(block for verdicts in self.verdicts.values() for block in verdicts.texts)]
        texts = _read_texts(b"\n".join(blocks), "item").head(passages) if blocks else pl.Series("item", [], dtype=pl.String)
        text = pl.col("item")
        # One chunk: the search's automaton is built anew for each chunk the read left.
        flagged = texts.rechunk().to_frame().select(pl.when(flag_expr(text)).then(text)).to_series()
        for name, inner in (("retrieved_ids", pl.Series("item", self.ids, dtype=pl.String)), ("retrieved_texts", flagged),
                            ("retrieved_scores", pl.Series("item", self.scores, dtype=pl.Float64))):
            columns[name] = self.passages.column(inner, name)
        for member, verdicts in self.verdicts.items():
            columns.update(verdicts.columns(member, rows))
        columns["extra"] = _nulls("extra", pl.String, rows)
        return pl.DataFrame([columns[name] for name in RUN_SCHEMA])


def _lines(piece: bytes) -> list[memoryview]:
    """The lines of `piece`, views of its bytes (the last may lack its newline; a blank line
    is a line): a copy of each, as `bytes.split` makes, cost more than decoding from them."""
    view, find, size = memoryview(piece), piece.find, len(piece)
    starts, ends, position = [], [], 0
    while position < size:
        newline = find(b"\n", position)
        if newline < 0:
            newline = size
        starts.append(position)
        ends.append(newline)
        position = newline + 1
    return list(map(view.__getitem__, map(slice, starts, ends)))


def _gathered(lines: list[memoryview]) -> _Gathered:
    """What the lean frame needs of the records of `lines`, decoded a batch at a time."""
    gathered = _Gathered()
    for start in range(0, len(lines), _BATCH_LINES):
        gathered.take(list(map(_DECODE, lines[start : start + _BATCH_LINES])))
    return gathered


def _series(values: list[Any], name: str, dtype: DType, *, nullable: bool = True) -> pl.Series:
    """The column of `dtype` holding `values` (decoded Python values, None for null; none
    is None where not `nullable`: the items of a list), as polars' declared read has it:
    the judge's repeats, rare, are built so and shaped by `canonical_columns`' expressions."""
    # Counted, not listed: most members are in every record or in none.
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
