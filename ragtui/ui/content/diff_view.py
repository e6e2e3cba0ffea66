"""`d` in the question view: what changed between A and B, as Content.

The rank diff lists each passage of either top k and every gold passage, with its rank
in A and in B and how it moved (a symbol and a word: it reads without colour). The
answer diff marks removed words `[-like this-]` and added ones `{+like this+}` — git's
word-diff notation — and colours them on top. A very long diff is cut after
`MAX_DIFF_CHARS`; `o` shows all of it in $PAGER. The answer diff is made in a worker
(`COMPUTING` meanwhile); when B changed too much to match word by word, the
heading says the diff is by sentence (`LEVEL_NOTES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content

from ragtui.core.triage.diffs import (
    ADDED,
    ADDED_CLOSE,
    ADDED_OPEN,
    DOWN,
    ENTERED,
    KEPT,
    LEFT,
    MIXED_LEVEL,
    OUTSIDE,
    REMOVED,
    REMOVED_CLOSE,
    REMOVED_OPEN,
    SENTENCE_LEVEL,
    UP,
    AnswerDiff,
    Piece,
    RankChange,
    diff_counts,
    rank_diff,
    rank_text,
)
from ragtui.core.vocabulary import GOLD_MARK
from ragtui.ui.content.safe_text import safe

Colour = Callable[[str], str]
MAX_DIFF_CHARS = 12_000  # about ten 80×24 screens of answer
ANSWER_HEADING = "Answer, A → B"
COMPUTING = "computing the diff… (the keys still answer; d or Esc: back to the answers)"
# What the heading adds when the changed sentences were not all matched word by word.
LEVEL_NOTES = {
    SENTENCE_LEVEL: "sentence by sentence: too much changed to match word by word",
    MIXED_LEVEL: "long changed passages sentence by sentence, the rest word by word",
}

# movement → (symbol, words, colour role or None)
MOVES = {
    ENTERED: ("+", "entered the top {k}", "improvement"),
    LEFT: ("−", "left the top {k}", "regression"),
    UP: ("↑", "up", None),
    DOWN: ("↓", "down", None),
    KEPT: ("=", "same rank", None),
    OUTSIDE: ("┆", "beyond the top {k} in both", None),
}


def rank_diff_content(row_a: dict[str, Any] | None, row_b: dict[str, Any] | None, k: int, colour: Colour) -> Content:
    """'★ p_042   1 → 7  − left the top 5', one passage a line, B's order."""
    changes = rank_diff(row_a, row_b, k)
    lines = [Content(f"Passages, rank in A → rank in B (top {k})").stylize("bold")]
    if not changes:
        lines.append(Content("  nothing retrieved in either run").stylize("italic"))
    width = min(max((len(c.passage) for c in changes), default=8), 32)
    for change in changes:
        lines.append(_rank_line(change, k, width, colour))
    return Content("\n").join(lines)


def _rank_line(change: RankChange, k: int, width: int, colour: Colour) -> Content:
    symbol, words, role = MOVES[change.movement]
    pid = safe(change.passage, one_line=True).truncate(width, ellipsis=True, pad=True)
    if change.gold:
        pid = pid.stylize(f"bold {colour('gold')}")
        if change.rank_a != change.rank_b:
            role = "regression" if (change.rank_b or 1 << 30) > (change.rank_a or 1 << 30) else "improvement"
    ranks = f"{rank_text(change.rank_a):>3} → {rank_text(change.rank_b):<3}"
    move = Content(f"{symbol} {words.format(k=k)}")
    if role:
        move = move.stylize(f"bold {colour(role)}")
    gold = Content(f"{GOLD_MARK} ").stylize(colour("gold")) if change.gold else "  "
    return Content.assemble(gold, pid, "  ", ranks, " ", move)


def pieces_content(pieces: list[Piece], colour: Colour, limit: int = MAX_DIFF_CHARS) -> tuple[Content, bool]:
    """The marked-up diff, and whether it was cut at `limit` characters."""
    parts: list[Content] = []
    used = 0
    for piece in pieces:
        text = piece.text
        cut = used + len(text) > limit
        if cut:
            text = text[: max(limit - used, 0)]
        if piece.op == REMOVED:
            parts.append(Content.assemble(REMOVED_OPEN, safe(text), REMOVED_CLOSE).stylize(f"strike {colour('fail')}"))
        elif piece.op == ADDED:
            parts.append(Content.assemble(ADDED_OPEN, safe(text), ADDED_CLOSE).stylize(f"bold {colour('pass')}"))
        else:
            parts.append(safe(text))
        used += len(text)
        if cut:
            return Content.assemble(*parts), True
    return Content.assemble(*parts), False


def answers_of(row_a: dict[str, Any] | None, row_b: dict[str, Any] | None) -> tuple[str | None, str | None]:
    """(A's answer, B's answer); None for a side that has none."""
    return (row_a or {}).get("answer"), (row_b or {}).get("answer")


def answer_diff_content(row_a: dict[str, Any] | None, row_b: dict[str, Any] | None, diff: AnswerDiff | None, colour: Colour) -> Content:
    """The heading (words removed and added, the level if not word by word) and the diff
    of A's answer into B's: `diff`, made from these rows' answers, or None while a worker
    makes it (then `COMPUTING` takes its place)."""
    a, b = answers_of(row_a, row_b)
    heading = Content(ANSWER_HEADING).stylize("bold")
    if a is None or b is None:
        missing = "A" if a is None else "B"
        return Content.assemble(heading, "\n", Content(f"  no answer in {missing}: nothing to compare").stylize("italic"))
    if diff is None:
        return Content.assemble(heading, "\n", Content(f"  {COMPUTING}").stylize("italic"))
    removed, added = diff_counts(diff.pieces)
    if not removed and not added:
        return Content.assemble(heading, Content(" · the same answer, word for word").stylize("dim"), "\n", safe(b))
    legend = Content(f" · {removed} word(s) removed [-…-], {added} added {{+…+}}").stylize("dim")
    lines = [Content.assemble(heading, legend)]
    if diff.level in LEVEL_NOTES:
        lines.append(Content(f"  {LEVEL_NOTES[diff.level]}").stylize("italic"))
    body, cut = pieces_content(diff.pieces, colour)
    lines.append(body)
    if cut:
        lines.append(Content("⋮ the diff goes on — o, then d: all of it in $PAGER").stylize("dim"))
    return Content("\n").join(lines)
