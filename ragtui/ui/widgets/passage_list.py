"""The ranked retrieved list of one side, as one Content block.

One line per passage: marker, rank, score, id, the start of its text. Gold passages get
★ and the gold colour; passages beyond k (not sent to the generator) sit below a
separator, dimmed and marked ┆, so the boundary reads without colour too. The first
line says where the first gold passage is ("gold p_042 at rank 7 — outside the top 5").

A run may retrieve 20 or 100 passages. Unless `show_all`, the list stops two ranks past
k — plus every gold passage further down, which is the one that matters — so the
answer stays in view on a 24-line terminal; a line says how many are left out.

With `full` (space in the question view) each listed passage shows its whole text in
place, wrapped under its id with a hanging indent, instead of one cut line.

A row may carry `gold_not_retrieved` (the question view adds it from `--corpus`): each
gold passage the run did not retrieve, with its text from the corpus, listed last under
a "not retrieved" line, so why retrieval missed it reads on the same screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content

from ragtui.core.comparing.question_diff import first_gold, gold_rank_text
from ragtui.core.vocabulary import BEYOND_K_MARK, GOLD_MARK
from ragtui.ui.models.question import retrieved
from ragtui.ui.safe_text import safe
from ragtui.ui.widgets.answer_view import hang

MAX_PASSAGES = 200  # even "show all" summarises a retrieved list of 1,000 ids
EXTRA_BEYOND_K = 2  # passages shown past k when not showing all


def _score(score: float | None) -> str:
    return f"{score:5.2f}" if score is not None else "    –"


def passages_content(
    row: dict[str, Any], k: int, width: int, colour: Callable[[str], str], *, show_all: bool = False, full: bool = False
) -> Content:
    """The retrieved list of `row` for a panel `width` cells wide."""
    gold = set(row.get("gold_passages") or [])
    items = retrieved(row)
    where = gold_rank_text(row, k)
    first_rank, _ = first_gold(row)
    gold_missed = bool(gold) and (first_rank is None or first_rank > k)
    title_style = f"bold {colour('fail')}" if gold_missed else "bold"
    lines: list[Content] = [
        Content.assemble(Content(f"Retrieved (k={k}) · ").stylize("bold"), safe(where, one_line=True).stylize(title_style))
    ]
    if not items:
        lines.append(Content("  nothing retrieved").stylize("italic"))
    limit = MAX_PASSAGES if show_all else k + EXTRA_BEYOND_K
    seen: set[str] = set()
    skipped = hidden = 0
    separated = False
    for rank, passage, text, score in items[:MAX_PASSAGES]:
        is_gold = passage in gold
        if rank > limit and not is_gold:
            skipped += 1
            hidden += 1
            continue
        if rank > k and not separated:
            separated = True
            lines.append(Content(f"{BEYOND_K_MARK} ┄┄ beyond the top {k}: not sent to the generator ┄┄").stylize("dim"))
        if skipped:
            lines.append(Content(f"{BEYOND_K_MARK}  ⋮  {skipped} more").stylize("dim"))
            skipped = 0
        lines.append(_passage_line(rank, passage, text, score, k, is_gold, passage in seen, width, colour, full=full))
        seen.add(passage)
    hidden += max(len(items) - MAX_PASSAGES, 0)
    missed = row.get("gold_not_retrieved") or []
    if missed:
        lines.append(Content(f"{GOLD_MARK} ┄┄ gold, not retrieved (text from the corpus) ┄┄").stylize(colour("gold")))
    for passage, text in missed:
        lines.append(_unretrieved_line(passage, text, width, colour, full=full))
    if hidden:
        more = "a: show all" if not show_all else "too many to draw"
        lines.append(Content(f"{BEYOND_K_MARK} {hidden} more passage(s) not shown — {more}").stylize("dim"))
    return Content("\n").join(lines)


def _unretrieved_line(passage: str, text: str | None, width: int, colour: Callable[[str], str], *, full: bool) -> Content:
    """A gold passage the run did not retrieve: `★  –  –   id  text` (no rank, no score)."""
    head = Content(f"{GOLD_MARK}  –     – ").stylize(colour("gold"))
    pid = safe(passage, one_line=True, limit=40).stylize(f"bold {colour('gold')}")
    if text is None:
        return Content.assemble(head, pid, " ", Content("(not in the corpus)").stylize("italic"))
    if full:
        return Content.assemble(head, pid, "\n", hang(Content(" " * head.cell_length), safe(text), width))
    room = width - (head.cell_length + pid.cell_length + 1)
    body = safe(text, one_line=True).truncate(room, ellipsis=True) if room >= 8 else Content("")
    return Content.assemble(head, pid, " ", body)


def _passage_line(
    rank: int, passage: str, text: str | None, score: float | None, k: int, is_gold: bool, duplicate: bool,
    width: int, colour: Callable[[str], str], *, full: bool = False,
) -> Content:
    beyond = rank > k
    mark = GOLD_MARK if is_gold else (BEYOND_K_MARK if beyond else " ")
    head = Content(f"{mark} {rank:>2} {_score(score)} ")
    pid = safe(passage, one_line=True, limit=40)
    if is_gold:
        pid = pid.stylize(f"bold {colour('gold')}")
        head = head.stylize(colour("gold"))
    tail = " (duplicate)" if duplicate else ""
    if full:
        body = safe(text) if text else Content("(no text)").stylize("italic")
        indented = hang(Content(" " * head.cell_length), body, width)
        line = Content.assemble(head, pid, tail, "\n", indented)
        return line.stylize("dim") if beyond else line
    room = width - (head.cell_length + pid.cell_length + len(tail) + 1)
    body = safe(text, one_line=True).truncate(room, ellipsis=True) if text and room >= 8 else Content("")
    line = Content.assemble(head, pid, tail, " ", body.stylize("dim") if not is_gold else body)
    return line.stylize("dim") if beyond else line
