"""French text for the sample generator: BM25 tokens, acronyms, truncation.

Deliberately simple, like a first retrieval pipeline: lower-case, strip accents, drop a
short stopword list, cut plural and verb endings. Its blind spots are part of the sample's
story: "CET" (the compte épargne-temps) folds to the stopword "cet" and vanishes, and "IK"
never matches "indemnités kilométriques".
"""

from __future__ import annotations

import re
import unicodedata

STOPWORDS = frozenset(
    """
    a ai aie ait as au aux avec avez avoir avons c ca ce ceci cela ces cet cette chaque
    combien comme comment d dans de des doit dois dont du elle elles en est et etre eu faire
    fait faut il ils j je l la le les leur leurs lui m ma mais me mes moi mon n ne ni nos
    notre nous on ont ou par pas peut peux pour puis qu quand que quel quelle quelles quels
    qui s sa sans se ses si son sont sur t ta te tes toi ton tous tout toute toutes tu un une
    vos votre vous y
    """.split()
)

_WORD = re.compile(r"[a-z0-9]+")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,}\b")


def fold(text: str) -> str:
    """Lower-case `text` and strip its accents (é → e)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def stem(word: str) -> str:
    """A light French stemmer: plural and -er endings, then a final e.

    Short words and numbers are kept whole, so "5" and "cv" survive for the mileage table.
    """
    if len(word) < 5 or word.isdigit():
        return word
    if word.endswith("aux"):
        return word[:-3] + "al"
    if word[-1] in "sx":
        word = word[:-1]
    if word.endswith("er"):
        word = word[:-1]
    if word.endswith("e"):
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """The BM25 terms of `text`, in order (duplicates kept)."""
    return [stem(w) for w in _WORD.findall(fold(text)) if w not in STOPWORDS]


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
