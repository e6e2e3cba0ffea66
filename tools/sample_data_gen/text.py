"""French text for the sample generator: BM25 tokens, acronyms, truncation.

Deliberately simple, like a first retrieval pipeline: lower-case, strip accents, drop a
short stopword list, cut plural and verb endings. Its blind spots are part of the sample's
story: "CET" (the compte épargne-temps) folds to the stopword "cet" and vanishes, and "IK"
never matches "indemnités kilométriques".
"""

from __future__ import annotations

import re

# The tokeniser is the shipped example system's (sample_data/example_system.py): the
# sample's baseline retrieval and `ragtui run --system example_system.py:answer` agree.
from ragtui.sample_data.example_system import STOPWORDS, fold, stem, tokens

__all__ = ["STOPWORDS", "acronyms", "fold", "stem", "tokens", "truncate", "word_count"]

_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,}\b")


def acronyms(text: str) -> set[str]:
    """Upper-case words of two letters or more, as written: RTT, CET, PEE, IK…"""
    return set(_ACRONYM.findall(text))


def truncate(text: str, limit: int) -> str:
    """`text` cut at a word boundary before `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + " …"


def word_count(text: str) -> int:
    """Whitespace-separated words: the unit of the v1 chunk budget."""
    return len(text.split())
