"""Find questions by any text they hold, accent- and case-insensitively.

The haystack of a question is its id, its question, both answers, every retrieved
passage's text and the judge's reasons (sentence reasons, the utility reason, the judge
error), in A and in B, normalised like every other match in ragtui
(`normalize_for_match`: `conge` finds `congé`, `CONGÉ` and `congé.`). It is built once,
on the first search, as one string a question; each search is then one literal
`str.contains` over that column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from ragtui.core.measuring.textnorm import normalize_for_match, normalized_expr

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison

_SEP = "\n"


def _texts(questions: pl.DataFrame, side: str) -> pl.DataFrame:
    """One haystack string per question id for one run."""
    reasons = pl.col("judge_sentences").list.eval(pl.element().struct.field("reason")).list.join(_SEP)
    return questions.select(
        "id",
        pl.concat_str(
            [
                pl.col("answer"),
                pl.col("retrieved_texts").list.join(_SEP),
                reasons,
                pl.col("judge_utility_reason"),
                pl.col("judge_error"),
            ],
            separator=_SEP,
            ignore_nulls=True,
        ).alias(f"text_{side}"),
    )


class SearchIndex:
    """The normalised text of every question of a comparison, in the comparison's order."""

    def __init__(self, comparison: Comparison) -> None:
        a = comparison.a.questions
        frame = a.select("id", "question").join(_texts(a, "a"), on="id", how="left", maintain_order="left")
        columns = [pl.col("id"), pl.col("question"), pl.col("text_a")]
        if comparison.b is not None:
            frame = frame.join(_texts(comparison.b.questions, "b"), on="id", how="left", maintain_order="left")
            columns.append(pl.col("text_b"))
        self.frame = frame.select(
            "id", normalized_expr(pl.concat_str(columns, separator=_SEP, ignore_nulls=True)).alias("haystack")
        )

    def ids(self, term: str) -> list[str]:
        """Ids of the questions whose text holds `term`, in the comparison's order."""
        return self.matching(term).to_list()

    def matching(self, term: str) -> pl.Series:
        key = normalize_for_match(term)
        if not key:
            return pl.Series("id", [], dtype=pl.String)
        # literal=True: "p_04[2" or "(" is text, not a regex.
        return self.frame.filter(pl.col("haystack").str.contains(key, literal=True)).get_column("id")


_INDEXES: dict[int, tuple[Comparison, SearchIndex]] = {}


def search_index(comparison: Comparison) -> SearchIndex:
    """The index of `comparison`, built on first use and kept while it is the one on screen."""
    cached = _INDEXES.get(id(comparison))
    if cached is not None and cached[0] is comparison:
        return cached[1]
    _INDEXES.clear()  # one comparison at a time: the app never holds two
    index = SearchIndex(comparison)
    _INDEXES[id(comparison)] = (comparison, index)
    return index


class Matches:
    """The questions a search found, and stepping through them from wherever one is."""

    def __init__(self, term: str, ids: list[str]) -> None:
        self.term = term
        self.ids = ids
        self._position = {qid: i for i, qid in enumerate(ids)}
        self.at: int | None = None  # index in `ids` of the match on screen

    def step(self, current_id: str, delta: int) -> str | None:
        """The next (`delta` 1) or previous (-1) match after `current_id`, wrapping; None if no match."""
        if not self.ids:
            return None
        here = self._position.get(current_id)
        if here is None:
            here = self.at if self.at is not None else -1 if delta > 0 else 0
        self.at = (here + delta) % len(self.ids)
        return self.ids[self.at]

    def first(self, current_id: str) -> str | None:
        """The current question if it matches, else the next match."""
        if current_id in self._position:
            self.at = self._position[current_id]
            return current_id
        return self.step(current_id, 1)
