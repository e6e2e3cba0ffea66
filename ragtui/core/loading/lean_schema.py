"""Reading a JSONL slice for a lean frame (`schema.without_detail`) with a declared schema.

The headless report and a run whose texts are read back per question (the run cache,
`line_texts`) keep no judge evidence or reasons: `LEAN_RECORD` declares every field of a
record the lean frame is built from, with the type the exact path accepts, and leaves
those out, so polars skips them without building them. Nothing is inferred. The passages'
texts are read (the report counts those that address the judge), and so are the
sentences': a `text` left unread could hide a passage naming its text twice.

What the declared schema cannot guarantee — that no member was left out, that a text was
a text — is checked on the slice's lines (declared_read.py), the unread names counted
apart, and a slice that fails is read as before, its schema inferred (slice_schema.py),
and from there by the exact path when the fast path is unsure: every problem is reported
as it always was.

A file reads only some of the declared fields (no human labels, no repetitions, another
judge's keys), and polars fills every declared one in, null, row by row: after a first
slice, the fields it held no value for are left out (`LeanSchema`). One that appears later
breaks the count of its slice, which is read again with every declared field.
"""

from __future__ import annotations

import polars as pl

from ragtui.core.loading.declared_read import read_declared
from ragtui.core.loading.fast_columns import DType
from ragtui.core.loading.slice_schema import NOT_STRINGS

# The members left unread: each sentence's evidence and reason, the utility's reason.
UNREAD = ("evidence", "reason")

_SENTENCE = pl.Struct({"text": pl.String, "attested": pl.Boolean})


def _verdict(*, repeats: bool) -> pl.Struct:
    """A `judge` or `human` object, with what ragtui's judge writes beside the verdicts
    (judging.py: provider, prompt version, raw reply, injection flag, usage) so that its own
    runs are not refused for a member the schema does not name."""
    fields: dict[str, DType] = {
        "model": pl.String,
        "provider": pl.String,
        "prompt_version": pl.String,
        "faithfulness": pl.Struct({"sentences": pl.List(_SENTENCE)}),
        "utility": pl.Struct({"score": pl.Float64}),
        "error": pl.String,
        "raw": pl.String,
        "injection": pl.Boolean,
        "usage": pl.Struct({"calls": pl.Float64, "tokens_in": pl.Float64, "tokens_out": pl.Float64, "cost_usd": pl.Float64}),
    }
    if repeats:
        fields["repeats"] = pl.List(_verdict(repeats=False))
    return pl.Struct(fields)


_FIELDS: dict[str, DType] = {
    "id": pl.String,
    "question": pl.String,
    "category": pl.String,
    "gold_passages": pl.List(pl.String),
    "expected_answer": pl.String,
    "retrieved": pl.List(pl.Struct({"id": pl.String, "text": pl.String, "score": pl.Float64})),
    "answer": pl.String,
    "abstained": pl.Boolean,
    "cited": pl.List(pl.String),
    "judge": _verdict(repeats=True),
    "human": _verdict(repeats=False),
    "latency_ms": pl.Float64,
    "cost_usd": pl.Float64,
    "tokens_in": pl.Float64,
    "tokens_out": pl.Float64,
    "error": pl.String,
    **{name: pl.String for name in UNREAD},  # a record's own fields so named: read to refuse the slice
}
LEAN_RECORD = pl.Schema(_FIELDS)


# Slices in a row the typed decoder may decline before a file's next slices skip it.
TYPED_DECLINED_AT_MOST = 4


class LeanSchema:
    """The declared fields one file's slices are read with: every one for the first slice,
    then those it held a value for; every one from a slice that holds another on."""

    def __init__(self) -> None:
        self.schema = LEAN_RECORD
        self._first = True
        # The file's slices the typed decoder (typed_lean.py) declined in a row: from
        # `TYPED_DECLINED_AT_MOST` on, the next ones come here directly. A field it does not
        # declare that every record carries would have each slice decoded twice; one that
        # appears late, in a few records, leaves the slices after them to the decoder.
        self.typed_declined = 0

    @property
    def typed(self) -> bool:
        """Whether the typed decoder is still tried first on this file's next slice."""
        return self.typed_declined < TYPED_DECLINED_AT_MOST

    def read(self, piece: bytes) -> pl.DataFrame | None:
        """The slice (whole JSONL lines) read with the declared fields, the unread names
        dropped; None when that could have lost or mistyped something (the caller reads it
        as before)."""
        raw = read_lean(piece, self.schema)
        if raw is None and self.schema is not LEAN_RECORD:
            self.schema = LEAN_RECORD  # a field the first slice held no value for
            raw = read_lean(piece, LEAN_RECORD)
        if raw is None:
            return None
        if self._first:
            self.schema, self._first = with_values(raw), False
        return raw.drop(UNREAD, strict=False)


def read_lean(piece: bytes, schema: pl.Schema) -> pl.DataFrame | None:
    """`piece` read with `schema` (LEAN_RECORD or fewer of its fields), or None when that
    could have lost or mistyped something (declared_read.py)."""
    return read_declared(piece, schema, NOT_STRINGS, UNREAD)


def with_values(raw: pl.DataFrame) -> pl.Schema:
    """The schema of `raw` without the fields, at any depth, that hold no value in any row
    (the record's own fields named like unread ones are kept: they are read to be refused)."""
    present = raw.select(_has_value(pl.col(name), dtype).alias(name) for name, dtype in raw.schema.items()).row(0, named=True)
    return pl.Schema({
        name: _kept(dtype, present[name]) for name, dtype in raw.schema.items() if _any(present[name]) or name in UNREAD
    })


def _has_value(value: pl.Expr, dtype: DType) -> pl.Expr:
    """Whether `value` holds a value in any row: a boolean, or for a struct or a list of
    structs, a struct of them — `_` for the value itself, then one for each field."""
    if isinstance(dtype, pl.Struct):
        inner, fields = value, dtype.fields
    elif isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        inner, fields = value.explode(), dtype.inner.fields
    else:
        return value.is_not_null().any()
    return pl.struct(
        value.is_not_null().any().alias("_"),
        *(_has_value(inner.struct.field(field.name), field.dtype).alias(field.name) for field in fields),
    )


def _kept(dtype: DType, present: object) -> DType:
    """`dtype` without the fields that `present` (from `_has_value`) says hold no value."""
    if not isinstance(present, dict):
        return dtype
    if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        return pl.List(_kept(dtype.inner, present))
    assert isinstance(dtype, pl.Struct)
    return pl.Struct({f.name: _kept(f.dtype, present[f.name]) for f in dtype.fields if _any(present[f.name])})


def _any(present: object) -> bool:
    return bool(present["_"]) if isinstance(present, dict) else bool(present)
