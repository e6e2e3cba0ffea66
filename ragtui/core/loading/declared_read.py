"""A JSONL slice read with a declared schema, kept only where its lines show that nothing
was lost or mistyped (a run's lean frame: lean_schema.py; a gold set: fast_gold.py).

Given a schema, polars parses nothing else and infers nothing: a member the schema does
not name is skipped without being built. What the schema guarantees, polars enforces: a
number, a boolean, an object or a list where the schema says so, or the slice is refused.
What it does not guarantee is checked on the slice's lines (polars counts them on every
core), once:

    members written with a value (`"name": ` and no null)  ==  members read with a value
                                                                +  members left `unread` with a value

A member the schema does not name (a field that first appears late in the file, a peer
tool's own key, an alias), or named twice in one object, breaks it — unless its value is
null, which the counts of slice_schema.py do not see either (the exact path keeps such a
field in `extra` as null, and the last of two values). A field of the record's own named
like an unread member is read, to be refused. polars writes any JSON value read into a
String column as text (`5` becomes "5"), so a member whose value must be a string (or a
list of strings) is checked for what its value starts with (`slice_schema.not_strings`).
Anything else — a count that differs (`\\": 1` inside a text
is enough), a clash of types — and None: the caller reads the slice as before.
"""

from __future__ import annotations

import io

import polars as pl

from ragtui.core.loading.slice_schema import members_read, read_lines

# Where a member's value starts, after its name's closing quote: anything but null (JSON
# has nothing else in n). Spaces before the colon are counted: a member written so and
# not read could otherwise make up for one read but not counted.
_WITH_A_VALUE = r'"\s*:\s*[^\sn]'


def read_declared(piece: bytes, schema: pl.Schema, not_strings: str, unread: tuple[str, ...] = ()) -> pl.DataFrame | None:
    """`piece` (whole JSONL lines) read with `schema` when the checks above hold, else None.

    `unread`: member names the schema leaves out where they are expected (and names at the
    top level, as the record's own fields); `not_strings`: the pattern of a member whose
    value is of the wrong type for the exact path.
    """
    if not schema:
        return None
    try:
        return _checked(piece, pl.read_ndjson(io.BytesIO(piece), schema=schema), not_strings, unread)
    except Exception:  # noqa: BLE001 - a clash of types, or bytes polars refuses: read as before
        return None


def _checked(piece: bytes, raw: pl.DataFrame, not_strings: str, unread: tuple[str, ...]) -> pl.DataFrame | None:
    read = raw.select(
        own=pl.any_horizontal(pl.col(name).is_not_null().any() for name in unread) if unread else pl.lit(False),
        members=members_read(raw),
    ).row(0, named=True)
    if read["own"]:
        return None
    line = pl.col("line")
    written = read_lines(piece).select(
        members=line.str.count_matches(_WITH_A_VALUE).sum(),
        unread=line.str.count_matches(rf'"(?:{"|".join(unread)}){_WITH_A_VALUE}').sum() if unread else pl.lit(0),
        refused=line.str.contains(not_strings).any(),
    ).row(0, named=True)
    if written["refused"] or written["members"] != read["members"] + written["unread"]:
        return None
    return raw
