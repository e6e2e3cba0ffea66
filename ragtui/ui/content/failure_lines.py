"""What each line of the failure list says: the column heading, a category's header, a question.

The table (`failure_table.py`) scrolls, moves its cursor and caches strips; these functions
only turn one line's data into safe `Content`, at one width. Every text from the runs
(ids, category names, questions) goes through `safe`: it is shown, never parsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content

from ragtui.core.triage.notes import MARK_LETTERS
from ragtui.core.vocabulary import CAUSE_LABELS, CAUSE_SHORT, CURSOR_MARK, STATUS_SYMBOL, UNSTABLE_MARK, kind_codes, status_label
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import STATUS_ROLES, role_colour

if TYPE_CHECKING:
    from textual.app import App

    from ragtui.ui.models.failure_rows import FailureRows, Group

WIDE = 120  # from this width, the category column and long cause names are shown
PREFIX = 6  # " › ▼b ": cursor mark, status symbol and mark letter before the id


@dataclass(frozen=True)
class Columns:
    """Cell widths of one layout (computed per width; the same for every row)."""

    id: int
    category: int
    kinds: int
    cause: int
    question: int


def columns(widths: tuple[int, int, int], two: bool, width: int) -> Columns:
    """The cell widths at `width`, from the list's (longest id, most kinds in A, in B)."""
    longest_id, kinds_a, kinds_b = widths
    id_width = min(max(longest_id, 2), 18)
    category = 16 if width >= WIDE else 0
    # At least as wide as its heading ("kinds" must not run into "question").
    kinds = min(max(kinds_a + (1 + kinds_b if two else 0), 3 if two else 5), 15)
    cause = (26 if width >= WIDE else 10) if two else 0
    used = PREFIX + id_width + 1 + (category + 1 if category else 0) + kinds + 1 + (cause + 1 if cause else 0)
    return Columns(id_width, category, kinds, cause, max(width - used, 0))


def heading_line(rows: FailureRows, cols: Columns, width: int) -> Content:
    """Line 0: the names of the columns."""
    parts = [" " * PREFIX, "id".ljust(cols.id + 1)]
    if cols.category:
        parts.append("category".ljust(cols.category + 1))
    parts.append(("A→B" if rows.two_runs else "kinds").ljust(cols.kinds + 1))
    if cols.cause:
        parts.append("cause".ljust(cols.cause + 1))
    parts.append("question")
    return Content("".join(parts)).truncate(width)


def group_line(rows: FailureRows, group: Group, width: int) -> Content:
    """A category's header: its name, its count, and its count by status."""
    name = Content(group.label) if group.label else safe(rows.category_name(group.category), one_line=True, limit=40)
    parts: list[Content | str] = [" ", name, f"  {group.count}"]
    for status in ("regressed", "still_failing", "fixed", "passing", "not_measured"):
        n = group.by_status.get(status)
        if n:
            label = f" {status_label(status, rows.two_runs)}" if width >= WIDE else ""
            parts.append(Content(f"  {STATUS_SYMBOL[status]}{n}{label}"))
    return Content.assemble(*parts).truncate(width)


def mark_code(rows: FailureRows, question_id: str) -> Content:
    """The letter of the question's mark (o, b, g, f, as in the mark menu), or a space."""
    notes = rows.notes
    mark = notes.get(question_id) if notes is not None else None
    if mark is None or mark.mark is None:
        return Content(" ")
    return Content(MARK_LETTERS[mark.mark]).stylize("bold reverse")


def question_line(app: App, rows: FailureRows, index: int, cols: Columns, width: int, is_cursor: bool) -> Content:
    """One question: cursor, status, mark, id, category, kinds, cause and the question."""
    row = rows.row(index)
    status = row["status"]
    # On the cursor bar, text takes the bar's own colour: red on the blue bar fell to
    # 1.26:1 (1.04:1 in 256 colours). The symbols (▼ ▲ ✗) still carry the meaning.
    colour = "" if is_cursor else role_colour(app, STATUS_ROLES.get(status, "muted"))
    parts: list[Content | str] = [
        f" {CURSOR_MARK} " if is_cursor else "   ",
        Content(STATUS_SYMBOL.get(status, "?")).stylize(colour),
        mark_code(rows, row["id"]),
        " ",
        safe(row["id"], one_line=True).truncate(cols.id, ellipsis=True, pad=True),
        " ",
    ]
    if cols.category:
        category = safe(rows.category_name(row["category"]), one_line=True)
        parts += [category.truncate(cols.category, ellipsis=True, pad=True), " "]
    kinds = kind_codes(row["kinds_a"])
    if rows.two_runs:
        kinds = f"{kinds}→{kind_codes(row['kinds_b'])}"
    parts += [Content(kinds).truncate(cols.kinds, ellipsis=True, pad=True), " "]
    if cols.cause:
        labels = CAUSE_LABELS if width >= WIDE else CAUSE_SHORT
        cause = Content(labels.get(row["cause"] or "", "")).truncate(cols.cause, pad=True)
        parts += [cause.stylize(role_colour(app, "regression")) if row["cause"] and not is_cursor else cause, " "]
    question_width = cols.question
    if row.get("unstable") and question_width > 2:
        mark_style = "bold" if is_cursor else f"bold {role_colour(app, 'regression')}"
        parts.append(Content(f"{UNSTABLE_MARK} ").stylize(mark_style))
        question_width -= 2
    parts.append(safe(row["question"], one_line=True).truncate(question_width, ellipsis=True))
    return Content.assemble(*parts)
