"""Text normalisation for matching: abstention phrases and question texts.

Matching is case-, accent- and punctuation-insensitive: "Je ne trouve pas cette
information." matches "je ne TROUVE pas cette information !" and "Je ne trouve pas
cette information dans les documents disponibles". The Python function and the polars
expression give the same result (a test checks it), so a single answer and a column of
100,000 answers are judged alike.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import polars as pl

_SPACES_PY = re.compile(r"\s+")


class _CharMap(dict[int, str]):
    """What each character of an NFKD text becomes, for `str.translate`: nothing for a mark
    (category M), itself for a letter, a digit or a space, a space for anything else
    (punctuation, symbols, `_`). Filled as characters are met — a lookup instead of a
    category test per character, the cost of checking an answer for abstention phrases; the
    Basic Multilingual Plane only is kept (65,536 entries at most, whatever a text holds)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        category = unicodedata.category(ch)
        kept = "" if category.startswith("M") else ch if ch.isspace() or category[0] in "LN" else " "
        if code < 0x10000:
            self[code] = kept
        return kept


_CHAR_MAP = _CharMap()


def normalize_for_match(text: str) -> str:
    """Lower-case, strip accents and other marks, turn punctuation into spaces, collapse spaces.

    Each step names its characters by Unicode category (marks M, letters L, numbers N), as
    the polars expression below does: the regex engines' `\\w` differ (Rust's includes marks
    and `‿`), so neither side uses it.
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return _SPACES_PY.sub(" ", decomposed.translate(_CHAR_MAP)).strip()


def normalize_question(text: str) -> str:
    """The key used to join a question by its text (importers without ids)."""
    return normalize_for_match(text)


def normalized_expr(column: pl.Expr) -> pl.Expr:
    """`normalize_for_match` as a polars expression over a string column.

    Once the marks are gone, every run of characters that are neither letters nor digits
    (spaces, punctuation, symbols) becomes one space: one pass that leaves a lone space
    as it is, where replacing each run of spaces — most of them a single one already —
    took three times as long (0.06 of 0.18 s for 100,000 answers).
    """
    return _unmarked(column).str.replace_all(r"[^\p{L}\p{N}]{2,}|[^\p{L}\p{N} ]", " ").str.strip_chars()


def _unmarked(column: pl.Expr) -> pl.Expr:
    """`normalized_expr`'s first steps: lower case, NFKD, the marks removed."""
    return column.str.to_lowercase().str.normalize("NFKD").str.replace_all(r"\p{M}", "")


def has_any_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """`contains_any_phrase` for one text: whether it holds any phrase (an abstention)."""
    padded = f" {normalize_for_match(text)} "
    return any(key in padded for key in _phrase_keys(phrases))


@functools.cache
def _phrase_keys(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """The phrases normalised and padded by spaces, once per set of phrases (not per answer)."""
    return tuple(f" {key} " for p in phrases if (key := normalize_for_match(p)))


def contains_any_phrase(column: pl.Expr, phrases: tuple[str, ...] | list[str]) -> pl.Expr:
    """True where the normalised text contains any of the normalised phrases (padded by
    spaces), null where the text is null.

    Only the texts that may hold a phrase are normalised (`_may_hold`): normalising every
    answer (NFKD most of it) was 0.12–0.23 s of CPU per 100,000 answers, and most answers
    are not abstentions.
    """
    keys = tuple(f" {normalize_for_match(p)} " for p in phrases if normalize_for_match(p))
    if not keys:
        return pl.lit(False)
    return column.map_batches(lambda texts: _holding(texts, keys), return_dtype=pl.Boolean)


def _holding(texts: pl.Series, keys: tuple[str, ...]) -> pl.Series:
    """`contains_any_phrase` of a column: the full test on the rows `_may_hold` keeps, False elsewhere."""
    text = pl.col("t")
    rows = pl.DataFrame({"t": texts}).with_row_index("row")
    # Two steps: polars joins two filters into one and would normalise every row.
    candidates = rows.filter(_may_hold(text, keys))
    padded = pl.lit(" ") + normalized_expr(text) + pl.lit(" ")
    holding = candidates.filter(padded.str.contains_any(list(keys))).get_column("row")
    found = rows.select(pl.when(text.is_not_null()).then(pl.col("row").is_in(holding.implode())))
    return found.to_series().rename(texts.name)


def _may_hold(text: pl.Expr, keys: tuple[str, ...]) -> pl.Expr:
    """False only for texts whose normalised form cannot contain any key: a text of simple
    characters only (`_simple_characters`: each normalises to one character) holds a key
    only if it spells the key's longest word with characters that normalise to its letters."""
    simple = _simple_characters()
    patterns = []
    for key in keys:
        word = max(key.split(), key=len)
        classes = [[ch for ch, becomes in simple.items() if becomes == letter] for letter in word]
        if all(classes):
            patterns.append("".join("[" + "".join(_regex_char(ch) for ch in spelled) + "]" for spelled in classes))
    other = "[^" + "".join(_regex_char(ch) for ch in simple) + "]"
    return text.str.contains(other) | (text.str.contains("|".join(patterns)) if patterns else pl.lit(False))


@functools.cache
def _simple_characters() -> dict[str, str]:
    """The Latin characters (U+0000–U+024F) that `normalized_expr`'s first steps (lower case,
    NFKD, marks removed) turn into exactly one character, and that character: asked of
    polars itself, so the test above never disagrees with the normalisation it stands for."""
    latin = [chr(code) for code in range(0x250)]
    becomes = pl.select(_unmarked(pl.lit(pl.Series(latin)))).to_series().to_list()
    return {ch: one for ch, one in zip(latin, becomes, strict=True) if one is not None and len(one) == 1}


def _regex_char(ch: str) -> str:
    return f"\\x{{{ord(ch):x}}}"
