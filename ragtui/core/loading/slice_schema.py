"""Parsing a JSONL slice with the schema polars inferred for an earlier slice of the file.

Inferring a schema over every row costs polars a third of its read of a slice (a 32 MB
slice of a generated run: ~0.36 s inferred, ~0.2 s with the schema given). Given a schema,
polars is strict where types clash — a string or a boolean where a number is declared, a
value in a column typed Null, a list or a string where an object is declared all raise — but
it drops an object member the schema does not name, without a word. A dropped member
would lose data (an unknown top-level field kept in `extra`, a key of the raw judge JSON),
and it turns any JSON value in a String column into text (`5` into "5"), where the slice's
own inference would have typed an all-number column as numbers. A slice read with a given
schema is therefore only kept when its bytes account for the frame exactly:

    members written (`":`, not `\\":`)  ==  members read with a value  +  members written `": null`
    unescaped quotes                    ==  2 × (members written + strings read)

A member the schema does not name breaks the first; a number or an object read as text
breaks the second. A quote escaped before a colon is inside a text, never a member: it is
counted in neither. Anything else — a count that differs (`\\\\"` inside a text, or a name
that ends in a backslash, are enough), a clash of types — and the slice is parsed again
with its own full inference, as every slice was before. The check reads the slice as
lines (polars, both cores) and counts; it costs about a third of the inference it replaces.
"""

from __future__ import annotations

import io
import sys

import polars as pl

from ragtui.core.loading.fast_columns import DType

_STRING = r'"(?:[^"\\]|\\.)*"'


def not_strings(strings: tuple[str, ...], lists: tuple[str, ...]) -> str:
    """A pattern matching a member named in `strings` whose value is neither a string nor
    null, or one named in `lists` whose value is neither a list of strings nor null, by
    what the value starts with.

    polars reads any JSON value into a String column as text (`5` becomes "5"): in a column
    declared so, and in one it inferred so because other records hold a string there.
    """
    return (
        rf'"(?:{"|".join(strings)})"\s*:\s*[^\s"n]'
        rf'|"(?:{"|".join(lists)})"\s*:\s*(?:[^\s\[n]|\[\s*(?:{_STRING}\s*,\s*)*[^\s"\]])'
    )


# The members of a run record the exact path requires to be strings or lists of strings
# (`error` too: an error object is the exact path's to write as JSON), the judge's evidence
# and reasons among them: a lean frame leaves them unread (lean_schema.py).
NOT_STRINGS = not_strings(
    ("id", "question", "category", "expected_answer", "answer", "model", "text", "reason", "error"),
    ("gold_passages", "cited", "evidence"),
)

# A JSONL line holds no raw control character (JSON escapes them in strings), so the unit
# separator splits nothing: each line is read whole as one string.
_ONE_COLUMN = {"separator": "\x1f", "quote_char": None, "has_header": False, "schema": {"line": pl.String}}


def parse_slice(piece: bytes, schema: pl.Schema | None) -> pl.DataFrame:
    """The slice parsed with `schema` when that loses nothing, else with its own inference;
    raises what polars raises on a slice it cannot parse, and ValueError where inference
    read a value as text that the exact path refuses as such (`NOT_STRINGS`)."""
    if schema is not None:
        try:
            raw = pl.read_ndjson(io.BytesIO(piece), schema=schema)
            if every_member_read(piece, raw):
                return raw
        except pl.exceptions.PolarsError:
            pass  # a clash of types, or bytes the line reader refused: inference decides
    raw = pl.read_ndjson(io.BytesIO(piece), infer_schema_length=None)
    if not strings_are_strings(piece):
        raise ValueError("a value read as text that is no string")
    return raw


def every_member_read(piece: bytes, raw: pl.DataFrame) -> bool:
    line = pl.col("line")
    backslash = b"\\" in piece  # most slices hold none, so no escaped quote to count
    counts = {
        "written": line.str.count_matches('":', literal=True).sum(),
        "nulls": line.str.count_matches(r'":\s*null').sum(),
        "quotes": line.str.count_matches('"', literal=True).sum(),
        "escaped": line.str.count_matches('\\"', literal=True).sum() if backslash else pl.lit(0),
        # `\": null` inside a text is no member: counted as one, it made up for a string
        # the schema lost (["p1"] read as [null] into a list the earlier slice typed Null).
        # A name that ends in a backslash is left uncounted too: the slice is read again.
        "escaped_written": line.str.count_matches('\\":', literal=True).sum() if backslash else pl.lit(0),
        "escaped_nulls": line.str.count_matches(r'\\":\s*null').sum() if backslash else pl.lit(0),
    }
    # One select: polars counts them at once, on every core.
    found = read_lines(piece).select(**counts).row(0, named=True)
    written, nulls = found["written"] - found["escaped_written"], found["nulls"] - found["escaped_nulls"]
    quotes, escaped = found["quotes"], found["escaped"]
    members, strings = values_read(raw)
    # Every string, member names included, is two unescaped quotes.
    return bool(written == nulls + members and quotes - escaped == 2 * (written + strings))


def strings_are_strings(piece: bytes) -> bool:
    """Whether no member of the slice's lines matches `NOT_STRINGS` (an inferred slice's
    check: its counts are not taken)."""
    return not read_lines(piece).select(pl.col("line").str.contains(NOT_STRINGS).any()).item()


def read_lines(piece: bytes) -> pl.DataFrame:
    """The JSONL lines of `piece`, one string each, in a column named `line`."""
    return pl.read_csv(piece, **_ONE_COLUMN)  # type: ignore[arg-type]


# The bytes `count_lines` compares at a time.
_COUNT_BLOCK = 64 * 1024


def count_lines(piece: bytes) -> int:
    """The lines of `piece`, the last counted whether or not a newline ends it (a blank line
    is a line: polars skips it, so a frame with fewer rows than this says one is there).

    Where numpy is imported already (loading runs: the measures need it), it counts the
    newline bytes at a third of the CPU of `bytes.count`, which steps through a one-byte
    needle a byte at a time (0.045 s against 0.13 s for a 400 MB run). numpy is never
    imported for this alone: reading a gold set by itself would pay 0.1 s for a few ms.
    The bytes are compared a block at a time into one small array: one comparison of a whole
    slice made a fresh 24 MB array of booleans, whose pages the kernel zeroed anew at every
    slice (4 % of the CPU of a lean read).
    """
    numpy = sys.modules.get("numpy")
    if numpy is None:
        newlines = piece.count(b"\n")
    else:
        view, found = numpy.frombuffer(piece, dtype=numpy.uint8), numpy.empty(_COUNT_BLOCK, dtype=bool)
        newlines = 0
        for start in range(0, len(view), _COUNT_BLOCK):
            block = view[start : start + _COUNT_BLOCK]
            newlines += int(numpy.count_nonzero(numpy.equal(block, ord("\n"), out=found[: len(block)])))
    return newlines + (0 if not piece or piece.endswith(b"\n") else 1)


def values_read(frame: pl.DataFrame) -> tuple[int, int]:
    """(object members with a non-null value, non-null strings that are not member names)
    in the records of `frame`, at every depth — a record's own fields are members, a list's
    strings are strings."""
    members, strings = _values(frame)
    counts = frame.select(
        members=pl.sum_horizontal(members).sum(),
        strings=pl.sum_horizontal(strings).sum() if strings else pl.lit(0, dtype=pl.UInt64),
    ).row(0)
    return int(counts[0]), int(counts[1])


def members_read(frame: pl.DataFrame) -> pl.Expr:
    """The object members with a non-null value in the records of `frame`, at every depth
    (`values_read`'s first count, as one expression over `frame`)."""
    return pl.sum_horizontal(_values(frame)[0]).sum()


def _values(frame: pl.DataFrame) -> tuple[list[pl.Expr], list[pl.Expr]]:
    members, strings = [], []
    for name, dtype in frame.schema.items():
        members.append(pl.col(name).is_not_null().cast(pl.UInt64))
        inner_members, inner_strings = _inside(pl.col(name), dtype)
        members += inner_members
        strings += inner_strings
    return members, strings


def _inside(value: pl.Expr, dtype: DType) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """Per row, what `value` holds: its members with a value, and its strings (lists of
    expressions to add up; empty when its type holds neither)."""
    if dtype == pl.String:
        return [], [value.is_not_null().cast(pl.UInt64)]
    if isinstance(dtype, pl.Struct):
        members, strings = [], []
        for field in dtype.fields:
            member = value.struct.field(field.name)
            members.append(member.is_not_null().cast(pl.UInt64))
            inner_members, inner_strings = _inside(member, field.dtype)
            members += inner_members
            strings += inner_strings
        return members, strings
    if isinstance(dtype, pl.List):
        inner_members, inner_strings = _inside(pl.element(), dtype.inner)
        return (
            [value.list.eval(pl.sum_horizontal(inner_members)).list.sum()] if inner_members else [],
            [value.list.eval(pl.sum_horizontal(inner_strings)).list.sum()] if inner_strings else [],
        )
    return [], []
