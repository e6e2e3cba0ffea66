"""Find questions by any text they hold, accent- and case-insensitively.

The haystack of a question is its id, its question, both answers, every retrieved
passage's text and the judge's reasons (sentence reasons, the utility reason, the judge
error), in A and in B, normalised like every other match in ragtui
(`normalize_for_match`: `conge` finds `congé`, `CONGÉ` and `congé.`). It is built once,
on the first search, as one string a question; each search is then one literal
`str.contains` over that column (the matches of the last two terms are remembered). A
run opened lean (its texts in the run cache) has them read back once, part by part, for
that first search.
"""

from __future__ import annotations

import re
import threading
from functools import cache
from typing import TYPE_CHECKING

import polars as pl

from ragtui.core.measuring.textnorm import normalize_for_match, normalized_expr

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.measuring.evaluate import Evaluation

_SEP = "\n"


def _cached_texts() -> list[pl.Expr]:
    """The texts a lean run keeps in the run cache (`schema.TEXT_COLUMNS`), as strings."""
    reasons = pl.col("judge_sentences").list.eval(pl.element().struct.field("reason")).list.join(_SEP)
    return [pl.col("retrieved_texts").list.join(_SEP), reasons, pl.col("judge_utility_reason")]


def _own_texts() -> list[pl.Expr]:
    """The texts every run's frame holds, lean or not."""
    return [pl.col("answer"), pl.col("judge_error")]


def _joined(columns: list[pl.Expr], name: str) -> pl.Expr:
    return pl.concat_str(columns, separator=_SEP, ignore_nulls=True).alias(name)


def _texts(evaluation: Evaluation, side: str) -> pl.DataFrame:
    """One haystack string per question id for one run.

    A run opened lean (texts in the run cache, or left in the run file) is read part by
    part, so only the joined strings are held, never every passage at once.

    Raises:
        OSError: the run's cache entry was removed, or its run file changed, since it was
            opened.
    """
    questions = evaluation.questions
    own = _own_texts()
    store = evaluation.run.texts
    if store is None:
        return questions.select("id", _joined([*own, *_cached_texts()], f"text_{side}"))
    ids = evaluation.run.frame.get_column("id")
    parts = [frame.with_columns(ids.slice(start, frame.height).alias("id")).select("id", _joined(_cached_texts(), "_texts")) for start, frame in store.frames()]
    cached = pl.concat(parts) if parts else pl.DataFrame(schema={"id": pl.String, "_texts": pl.String})
    joined = questions.select("id", *own).join(cached, on="id", how="left", maintain_order="left")
    return joined.select("id", _joined([*own, pl.col("_texts")], f"text_{side}"))


class SearchIndex:
    """The normalised text of every question of a comparison, in the comparison's order.

    `unreadable` says why passages and reasons are left out of it (a lean run whose cache
    entry was removed, or whose file changed, since it was opened): the search then covers
    ids, questions and answers, and the app says so.
    """

    def __init__(self, comparison: Comparison) -> None:
        self.unreadable: str | None = None
        evaluations = [("a", comparison.a)] + ([("b", comparison.b)] if comparison.b is not None else [])
        frame = comparison.a.questions.select("id", "question")
        columns = [pl.col("id"), pl.col("question")]
        for side, evaluation in evaluations:
            try:
                texts = _texts(evaluation, side)
            except OSError as exc:
                self.unreadable = f"passages and reasons are not searched: {exc}; reopen the runs to search them"
                texts = evaluation.questions.select("id", _joined(_own_texts(), f"text_{side}"))
            frame = frame.join(texts, on="id", how="left", maintain_order="left")
            columns.append(pl.col(f"text_{side}"))
        self.frame = frame.select(
            "id", normalized_expr(pl.concat_str(columns, separator=_SEP, ignore_nulls=True)).alias("haystack")
        )
        # The matches of the last terms looked for, by normalised key (`remembered`): the
        # failure list applies its search again on every other filter key, and a term's
        # match is a scan of every text (25-55 ms of CPU at 100,000 questions).
        self._remembered: dict[str, pl.Series] = {}

    def ids(self, term: str) -> list[str]:
        """Ids of the questions whose text holds `term`, in the comparison's order."""
        return self.matching(term).to_list()

    def matching(self, term: str) -> pl.Series:
        """The ids of the questions whose text holds `term`, in the comparison's order."""
        key = normalize_for_match(term)
        if not key:
            return pl.Series("id", [], dtype=pl.String)
        found = self._remembered.get(key)
        if found is None:
            # literal=True: "p_04[2" or "(" is text, not a regex.
            found = self.frame.filter(pl.col("haystack").str.contains(key, literal=True)).get_column("id")
            # The last two terms (the list's applied one and the one being typed); one
            # assignment, so that a worker's match and the UI thread's reads never clash.
            self._remembered = {**dict(list(self._remembered.items())[-1:]), key: found}
        return found

    def remembered(self, term: str) -> bool:
        """Whether `matching(term)` answers without a scan (a term with nothing to find, or
        one of the last two looked for)."""
        key = normalize_for_match(term)
        return not key or key in self._remembered


class SearchIndexes:
    """The search index of the comparison on screen, built on first use and kept while it
    is the one on screen (one comparison at a time: the app never searches two).

    At 100,000 questions the first build reads and normalises every text of both runs
    (28 s on accented runs, docs/performance.md): the app builds it in a worker. One build
    at a time: a search asked for meanwhile (the question view's `/` while the failure
    list's worker builds) waits for that build instead of making another.
    """

    def __init__(self) -> None:
        self._held: tuple[Comparison, SearchIndex] | None = None
        self._building = threading.Lock()

    def built(self, comparison: Comparison) -> SearchIndex | None:
        """The index of `comparison` if it is built, else None (without building it)."""
        held = self._held
        return held[1] if held is not None and held[0] is comparison else None

    def of(self, comparison: Comparison) -> SearchIndex:
        """The index of `comparison`, built now if it is not yet."""
        with self._building:
            index = self.built(comparison)
            if index is None:
                index = SearchIndex(comparison)
                self._held = (comparison, index)
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


@cache
def _variants() -> dict[str, str]:
    """Each letter of a normalised key → a character class of the letters that normalise to
    it (`e` → `[eEéÉèÈ…]`), over Latin-1 and Latin Extended-A: the texts ragtui is given."""
    found: dict[str, set[str]] = {}
    for code in range(0x20, 0x250):
        ch = chr(code)
        key = normalize_for_match(ch)
        if len(key) == 1:
            found.setdefault(key, set()).add(ch)
    return {key: "[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]" for key, chars in found.items()}


def match_pattern(term: str) -> re.Pattern[str] | None:
    """Where `term` is in a raw text, as the search finds it (case, accents and punctuation
    ignored: `conge` finds `Congé`); None for a term with nothing to find."""
    key = normalize_for_match(term)
    if not key:
        return None
    variants = _variants()
    parts = [r"[\W_]+" if ch == " " else variants.get(ch, re.escape(ch)) for ch in key]
    return re.compile("".join(parts))


def fields_holding(term: str, fields: dict[str, str]) -> list[str]:
    """The names of the `fields` (name → text) whose text holds `term`, in their order."""
    key = normalize_for_match(term)
    return [name for name, text in fields.items() if key and key in normalize_for_match(text)]
