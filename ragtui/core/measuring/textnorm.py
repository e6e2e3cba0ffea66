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
    return (
        column.str.to_lowercase()
        .str.normalize("NFKD")
        .str.replace_all(r"\p{M}", "")
        .str.replace_all(r"[^\p{L}\p{N}]{2,}|[^\p{L}\p{N} ]", " ")
        .str.strip_chars()
    )


def has_any_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """`contains_any_phrase` for one text: whether it holds any phrase (an abstention)."""
    padded = f" {normalize_for_match(text)} "
    return any(key in padded for key in _phrase_keys(phrases))


@functools.cache
def _phrase_keys(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """The phrases normalised and padded by spaces, once per set of phrases (not per answer)."""
    return tuple(f" {key} " for p in phrases if (key := normalize_for_match(p)))


def contains_any_phrase(column: pl.Expr, phrases: tuple[str, ...] | list[str]) -> pl.Expr:
    """True where the normalised text contains any of the normalised phrases (padded by spaces)."""
    padded = pl.lit(" ") + normalized_expr(column) + pl.lit(" ")
    keys = [f" {normalize_for_match(p)} " for p in phrases if normalize_for_match(p)]
    if not keys:
        return pl.lit(False)
    return padded.str.contains_any(keys)
