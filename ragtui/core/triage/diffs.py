"""What changed in one question between A and B: the answer word by word, the ranks.

`answer_diff` aligns the two answers sentence by sentence first, then word by word
inside the sentences that changed: a 5,000-sentence answer costs one pass over its
sentences (`_sentence_opcodes`), not a quadratic match over 100,000 words. The word
match is bounded (`WORD_MATCH_BUDGET`): an answer rewritten throughout is diffed
sentence by sentence instead, and the result says which level it is. `rank_diff` lists
each passage of either top k (and every gold passage, wherever it sits) with its rank in
A and in B.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

SAME, ADDED, REMOVED = "same", "added", "removed"
# How the changed sentences were matched: all word by word; the long blocks sentence by
# sentence and the rest word by word; all sentence by sentence.
WORD_LEVEL, MIXED_LEVEL, SENTENCE_LEVEL = "word", "mixed", "sentence"
# Past this many words (tokens: words, spaces, punctuation, both sides) in a changed
# block, it is shown sentence by sentence. SequenceMatcher's cost grows about with
# the cube of a block whose sentences each changed a little: 62 ms at 960 tokens, 980 ms
# at 2,160; and a word match over such a block says nothing a person could read.
MAX_WORDS_MATCHED = 1_000
# The word match of a whole answer costs about Σ (tokens of a changed block)² — measured
# at 45–67 ns a unit for blocks up to MAX_WORDS_MATCHED (bench/bench_triage.py). Past this
# budget (about a second) the answer is diffed sentence by sentence: B rewrote it
# throughout, and a word diff of 5,000 such sentences took 20 s to 4 min.
WORD_MATCH_BUDGET = 16_000_000
MIN_WORD_OVERLAP = 0.3  # below this share of common words, a block is shown as replaced whole
LOOKAHEAD = 64  # sentences first searched ahead, on each side, for the next one A and B share

_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)\s*")
_WORD = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Piece:
    """A run of text that is the same in A and B, or only in A (removed), or only in B (added)."""

    op: str
    text: str


class DiffStopped(Exception):
    """The diff was asked to stop (`stop()` turned true): its result is no longer wanted."""


@dataclass(frozen=True)
class AnswerDiff:
    """A's answer turned into B's: the pieces in reading order, and the level the changed
    sentences were matched at: WORD_LEVEL; MIXED_LEVEL when some changed blocks were
    longer than `MAX_WORDS_MATCHED`; SENTENCE_LEVEL when all were, or past
    `WORD_MATCH_BUDGET`."""

    pieces: list[Piece]
    level: str


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.findall(text) if s]


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _append(out: list[Piece], op: str, text: str) -> None:
    if not text:
        return
    if out and out[-1].op == op:
        out[-1] = Piece(op, out[-1].text + text)
    else:
        out.append(Piece(op, text))


def _word_diff(wa: list[str], wb: list[str], out: list[Piece]) -> None:
    a, b = "".join(wa), "".join(wb)
    matcher = SequenceMatcher(None, wa, wb, autojunk=False)
    if matcher.ratio() < MIN_WORD_OVERLAP:  # two different texts: word pairs would be noise
        _append(out, REMOVED, a)
        _append(out, ADDED, b)
        return
    codes = matcher.get_opcodes()
    removed: list[str] = []
    added: list[str] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(codes):
        same = "".join(wa[i1:i2])
        # A lone space between two changes belongs to the change: "[-ne trouve-]", not "[-ne-] [-trouve-]".
        inside = 0 < index < len(codes) - 1 and not same.strip()
        if tag == "equal" and not inside:
            _append(out, REMOVED, "".join(removed))
            _append(out, ADDED, "".join(added))
            removed, added = [], []
            _append(out, SAME, same)
            continue
        removed.append("".join(wa[i1:i2]))
        added.append("".join(wb[j1:j2]))
    _append(out, REMOVED, "".join(removed))
    _append(out, ADDED, "".join(added))


def _change_tag(removed: int, added: int) -> str:
    return "replace" if removed and added else "delete" if removed else "insert"


def _next_shared(sa: list[str], sb: list[str], i: int, j: int) -> tuple[int, int]:
    """(di, dj): the nearest sentences sa[i + di] == sb[j + dj], fewest skipped in all.

    Searched within a window of each side that doubles until a pair is found or both
    ends are reached: (what is left of A, what is left of B) when they share nothing.
    """
    n, m = len(sa), len(sb)
    window = LOOKAHEAD
    while True:
        ahead: dict[str, int] = {}
        for skipped in range(min(window, m - j)):
            ahead.setdefault(sb[j + skipped], skipped)
        best: tuple[int, int] | None = None
        for di in range(min(window, n - i)):
            if best is not None and di >= best[0] + best[1]:
                break  # any later pair skips more
            found = ahead.get(sa[i + di])
            if found is not None and (best is None or di + found < best[0] + best[1]):
                best = (di, found)
        if best is not None:
            return best
        if window >= n - i and window >= m - j:
            return n - i, m - j
        window *= 2


def _sentence_opcodes(sa: list[str], sb: list[str]) -> Iterator[tuple[str, int, int, int, int]]:
    """(tag, i1, i2, j1, j2) as `SequenceMatcher.get_opcodes` gives them, in one pass.

    Runs of equal sentences are kept; at a difference, the nearest sentence both answers
    hold again (`_next_shared`) closes the change. About linear in the answers' length
    for the usual few edits: SequenceMatcher's recursive longest match took most of a
    second on 5,000 sentences with a hundred edits. A moved sentence reads as removed
    then added.
    """
    i = j = 0
    n, m = len(sa), len(sb)
    while i < n and j < m:
        start_i, start_j = i, j
        while i < n and j < m and sa[i] == sb[j]:
            i, j = i + 1, j + 1
        if i > start_i:
            yield "equal", start_i, i, start_j, j
        if i == n or j == m:
            break
        di, dj = _next_shared(sa, sb, i, j)
        yield _change_tag(di, dj), i, i + di, j, j + dj
        i, j = i + di, j + dj
    if i < n or j < m:
        yield _change_tag(n - i, m - j), i, n, j, m


def _match_cost(wa: list[str], wb: list[str]) -> int:
    """What matching these words costs, in the units of `WORD_MATCH_BUDGET` (0: not matched)."""
    size = len(wa) + len(wb)
    return size * size if size <= MAX_WORDS_MATCHED else 0


def _sentence_change(removed: list[str], added: list[str], out: list[Piece]) -> None:
    """Changed sentences shown whole; as many on each side: one removed then its
    replacement, pair by pair, so that a sentence reads beside what became of it."""
    if len(removed) == len(added):
        for old, new in zip(removed, added, strict=True):
            _append(out, REMOVED, old)
            _append(out, ADDED, new)
    else:
        _append(out, REMOVED, "".join(removed))
        _append(out, ADDED, "".join(added))


def answer_diff(a: str | None, b: str | None, *, stop: Callable[[], bool] | None = None) -> AnswerDiff:
    """A's answer turned into B's, as same / removed / added pieces in reading order.

    Word by word inside the changed sentences while that costs less than
    `WORD_MATCH_BUDGET`, else sentence by sentence. `stop` is asked between changed
    blocks (a worker whose result is no longer wanted): when true, `DiffStopped`.
    """
    sa, sb = _sentences(a or ""), _sentences(b or "")
    codes = list(_sentence_opcodes(sa, sb))
    replaced = {index: (_words("".join(sa[i1:i2])), _words("".join(sb[j1:j2])))
                for index, (tag, i1, i2, j1, j2) in enumerate(codes) if tag == "replace"}
    costs = [_match_cost(wa, wb) for wa, wb in replaced.values()]
    too_long = costs.count(0)
    if sum(costs) > WORD_MATCH_BUDGET or (costs and too_long == len(costs)):
        level = SENTENCE_LEVEL
    else:
        level = MIXED_LEVEL if too_long else WORD_LEVEL
    out: list[Piece] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(codes):
        if stop is not None and stop():
            raise DiffStopped
        if tag == "equal":
            _append(out, SAME, "".join(sa[i1:i2]))
        elif tag == "replace" and level != SENTENCE_LEVEL and _match_cost(*replaced[index]):
            _word_diff(*replaced[index], out)
        else:
            _sentence_change(sa[i1:i2], sb[j1:j2], out)
    return AnswerDiff(out, level)


# git's word-diff notation: the change reads without colour, and pastes into a PR as is.
REMOVED_OPEN, REMOVED_CLOSE, ADDED_OPEN, ADDED_CLOSE = "[-", "-]", "{+", "+}"


def plain_diff(pieces: list[Piece]) -> str:
    """The word diff as plain text (`[-removed-]`, `{+added+}`), for $PAGER and the clipboard."""
    out = []
    for piece in pieces:
        if piece.op == REMOVED:
            out.append(f"{REMOVED_OPEN}{piece.text}{REMOVED_CLOSE}")
        elif piece.op == ADDED:
            out.append(f"{ADDED_OPEN}{piece.text}{ADDED_CLOSE}")
        else:
            out.append(piece.text)
    return "".join(out)


def diff_counts(pieces: list[Piece]) -> tuple[int, int]:
    """(words removed, words added): the size of a change in words a person counts."""
    removed = sum(len(p.text.split()) for p in pieces if p.op == REMOVED)
    added = sum(len(p.text.split()) for p in pieces if p.op == ADDED)
    return removed, added


# ---- ranks --------------------------------------------------------------------------------

ENTERED, LEFT, UP, DOWN, KEPT, OUTSIDE = "entered", "left", "up", "down", "kept", "outside"


@dataclass(frozen=True)
class RankChange:
    """One passage: its rank in A and in B (None: not retrieved), and how it moved."""

    passage: str
    rank_a: int | None
    rank_b: int | None
    gold: bool
    movement: str  # entered / left the top k, up / down / kept inside it, outside (a gold one beyond k in both)


def _ranks(row: dict[str, Any] | None) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for rank, passage in enumerate((row or {}).get("retrieved_ids") or [], start=1):
        ranks.setdefault(passage, rank)  # a duplicate keeps its first rank
    return ranks


def _movement(rank_a: int | None, rank_b: int | None, k: int) -> str:
    in_a = rank_a is not None and rank_a <= k
    in_b = rank_b is not None and rank_b <= k
    if in_b and not in_a:
        return ENTERED
    if in_a and not in_b:
        return LEFT
    if not in_a and not in_b:
        return OUTSIDE
    assert rank_a is not None and rank_b is not None
    return UP if rank_b < rank_a else DOWN if rank_b > rank_a else KEPT


def rank_diff(row_a: dict[str, Any] | None, row_b: dict[str, Any] | None, k: int) -> list[RankChange]:
    """Every passage of A's or B's top k, and every gold passage; B's order first, then A's."""
    ranks_a, ranks_b = _ranks(row_a), _ranks(row_b)
    gold = set((row_a or {}).get("gold_passages") or (row_b or {}).get("gold_passages") or [])
    wanted = [p for p, r in ranks_b.items() if r <= k] + [p for p, r in ranks_a.items() if r <= k]
    wanted += sorted(gold)
    seen: dict[str, None] = {}
    for passage in wanted:
        seen.setdefault(passage, None)
    changes = [
        RankChange(p, ranks_a.get(p), ranks_b.get(p), p in gold, _movement(ranks_a.get(p), ranks_b.get(p), k)) for p in seen
    ]
    big = 1 << 30

    def order(change: RankChange) -> tuple[int, int]:
        return (change.rank_b or big, change.rank_a or big)

    return sorted(changes, key=order)


def rank_text(rank: int | None) -> str:
    """'3', or '–' for a passage that was not retrieved."""
    return str(rank) if rank is not None else "–"
