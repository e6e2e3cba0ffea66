"""The failure list: a virtual view that draws only the rows on screen.

Like toolong's `LogLines`, this is a `ScrollView` over data it does not copy: each
visible line is fetched from the filtered polars frame when it is drawn, turned into a
`Strip` from safe `Content`, and kept in an LRU cache. A list of 100,000 questions costs
one frame and a screenful of strips, never 100,000 widgets. Line 0 is a sticky column
header; below it, each category is a header line followed by its questions.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ragtui.core.triage.notes import MARK_LETTERS
from ragtui.core.vocabulary import CAUSE_LABELS, CAUSE_SHORT, CURSOR_MARK, STATUS_SYMBOL, UNSTABLE_MARK, kind_codes, status_label
from ragtui.ui.safe_text import safe
from ragtui.ui.widgets.failure_rows import FailureFilter, FailureRows, Group
from ragtui.ui.widgets.verdict_styles import STATUS_ROLES, role_colour

# Enough for several screens of a tall terminal; the point is that it is bounded.
CACHE_LINES = 512
WIDE = 120  # from this width, the category column and long cause names are shown
PREFIX = 6  # " › ▼b ": cursor mark, status symbol and mark letter before the id

_MOVE = Binding.Group("move", compact=True)


@dataclass(frozen=True)
class Columns:
    """Cell widths of one layout (computed per width; the same for every row)."""

    id: int
    category: int
    kinds: int
    cause: int
    question: int


class FailureTable(ScrollView, can_focus=True):
    """Failing questions grouped by category; Enter posts `Selected`; watch `cursor` for moves."""

    # Enter first: the footer lists bindings in order, and 80 columns hold only so many.
    # The six movement keys share one compact footer entry (↑↓⇞⇟⇱⇲ move).
    BINDINGS: list[BindingType] = [
        Binding("enter", "select", "open", tooltip="Open the question view on this question", id="failures.open"),
        Binding("up", "cursor(-1)", "up", key_display="↑", group=_MOVE, show=False, id="failures.up"),
        Binding("down", "cursor(1)", "down", key_display="↓", group=_MOVE, show=False, id="failures.down"),
        Binding("pageup", "page(-1)", "page up", key_display="⇞", group=_MOVE, show=False, id="failures.page_up"),
        Binding("pagedown", "page(1)", "page down", key_display="⇟", group=_MOVE, show=False, id="failures.page_down"),
        Binding("home", "jump(0)", "first", key_display="⇱", group=_MOVE, show=False, id="failures.first"),
        Binding("end", "jump(-1)", "last", key_display="⇲", group=_MOVE, show=False, id="failures.last"),
    ]
    COMPONENT_CLASSES = {"failure-table--cursor", "failure-table--columns", "failure-table--group"}
    DEFAULT_CSS = """
    FailureTable {
        background: $surface;
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
    }
    FailureTable > .failure-table--cursor {
        background: $block-cursor-blurred-background;
    }
    FailureTable:focus > .failure-table--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    FailureTable > .failure-table--columns {
        color: $text-muted;
        text-style: bold;
    }
    FailureTable > .failure-table--group {
        background: $boost;
        color: $text-accent;
        text-style: bold;
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    """Index of the highlighted question in the filtered list."""

    class Selected(Message):
        """Enter on a question: open it."""

        def __init__(self, table: FailureTable, question_id: str, index: int) -> None:
            super().__init__()
            self.table = table
            self.question_id = question_id
            self.index = index

    def __init__(self, rows: FailureRows, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = rows
        self._cache: LRUCache[tuple, Strip] = LRUCache(CACHE_LINES)
        self.lines_rendered = 0  # cache misses: what the virtual-view test counts
        self._longest_id, self._kinds_a, self._kinds_b = rows.widths()

    # -- data ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._restyle, init=False)
        self._size_to_rows()

    def set_filter(self, filter: FailureFilter) -> None:
        """Apply a new filter, keeping the highlighted question if it is still listed."""
        current = self.current_id
        self.rows.apply(filter)
        self._reset()
        index = self.rows.index_of(current) if current is not None else None
        self.cursor = index or 0

    def _reset(self) -> None:
        self._cache.clear()
        self._size_to_rows()
        self.refresh()

    def _size_to_rows(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, self.rows.line_count + 1)

    def _restyle(self) -> None:
        self._cache.clear()
        self.refresh()

    @property
    def current_id(self) -> str | None:
        if not self.rows.row_count:
            return None
        return self.rows.frame.item(min(self.cursor, self.rows.row_count - 1), "id")

    @property
    def cache_size(self) -> int:
        return len(self._cache)

    # -- cursor ---------------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - 2, 1)

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.rows.row_count - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        # Whoever shows details of the highlighted question watches `cursor` (a watcher
        # runs before the next paint; a message would arrive one frame later).
        top = round(self.scroll_y)
        self._scroll_to_cursor()
        if round(self.scroll_y) != top or not self.rows.row_count:
            self.refresh()  # scrolled: every line moves
            return
        # Only the two cursor lines change; a whole refresh would repaint the scrollbars too.
        for row in {old, new}:
            if 0 <= row < self.rows.row_count:
                self.refresh_line(self.rows.line_of_row(row) + 1)

    @property
    def current_row(self) -> dict | None:
        """The highlighted question's row of the triage frame, or None when the list is empty."""
        return self.rows.row(self.cursor) if self.rows.row_count else None

    def _scroll_to_cursor(self) -> None:
        if not self.rows.row_count:
            self.scroll_to(y=0, animate=False, immediate=True)
            return
        line = self.rows.line_of_row(self.cursor)
        visible = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_y)
        group, _ = self.rows.locate(line)
        # Show the category header with the first row of a group.
        wanted_top = line - 1 if line - 1 == group.header_line else line
        if wanted_top < top:
            self.scroll_to(y=wanted_top, animate=False, immediate=True)
        elif line >= top + visible:
            self.scroll_to(y=line - visible + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.cursor += direction * self._page

    def action_jump(self, where: int) -> None:
        self.cursor = 0 if where == 0 else self.rows.row_count - 1

    def action_select(self) -> None:
        question_id = self.current_id
        if question_id is not None:
            self.post_message(self.Selected(self, question_id, self.cursor))

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        line = round(self.scroll_y) + offset.y - 1
        if 0 <= line < self.rows.line_count:
            _, row = self.rows.locate(line)
            if row is not None:
                if row == self.cursor and event.chain == 2:
                    self.action_select()
                self.cursor = row

    def on_resize(self) -> None:
        # The width is part of each cache key: no need to drop what is cached.
        self._size_to_rows()
        self._scroll_to_cursor()

    # -- drawing --------------------------------------------------------------------------

    def columns(self, width: int) -> Columns:
        two = self.rows.two_runs
        id_width = min(max(self._longest_id, 2), 18)
        category = 16 if width >= WIDE else 0
        # At least as wide as its heading ("kinds" must not run into "question").
        kinds = min(max(self._kinds_a + (1 + self._kinds_b if two else 0), 3 if two else 5), 15)
        cause = (26 if width >= WIDE else 10) if two else 0
        used = PREFIX + id_width + 1 + (category + 1 if category else 0) + kinds + 1 + (cause + 1 if cause else 0)
        return Columns(id_width, category, kinds, cause, max(width - used, 0))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            return self._strip(("columns", width), lambda: self._columns_content(width), "failure-table--columns", width)
        line = round(self.scroll_y) + y - 1
        if line >= self.rows.line_count:
            return Strip.blank(width, self.rich_style)
        group, row = self.rows.locate(line)
        if row is None:
            return self._strip(("group", line, width), lambda: self._group_content(group, width), "failure-table--group", width)
        is_cursor = row == self.cursor
        component = "failure-table--cursor" if is_cursor else None
        # Only the cursor row looks different when the table loses focus.
        key = ("row", line, width, is_cursor and self.has_focus) if is_cursor else ("row", line, width)
        return self._strip(key, lambda: self._row_content(row, width, is_cursor), component, width)

    def _strip(self, key: tuple, make, component: str | None, width: int) -> Strip:
        strip = self._cache.get(key)
        if strip is None:
            self.lines_rendered += 1
            base = self.get_visual_style(component) if component else self.visual_style
            content: Content = make()
            strip = Strip(content.render_segments(base)).adjust_cell_length(width, base.rich_style)
            self._cache.set(key, strip)
        return strip

    def _columns_content(self, width: int) -> Content:
        cols = self.columns(width)
        parts = [" " * PREFIX, "id".ljust(cols.id + 1)]
        if cols.category:
            parts.append("category".ljust(cols.category + 1))
        parts.append(("A→B" if self.rows.two_runs else "kinds").ljust(cols.kinds + 1))
        if cols.cause:
            parts.append("cause".ljust(cols.cause + 1))
        parts.append("question")
        return Content("".join(parts)).truncate(width)

    def _group_content(self, group: Group, width: int) -> Content:
        name = Content(group.label) if group.label else safe(self.rows.category_name(group.category), one_line=True, limit=40)
        parts: list[Content | str] = [" ", name, f"  {group.count}"]
        for status in ("regressed", "still_failing", "fixed", "passing", "not_measured"):
            n = group.by_status.get(status)
            if n:
                label = f" {status_label(status, self.rows.two_runs)}" if width >= WIDE else ""
                parts.append(Content(f"  {STATUS_SYMBOL[status]}{n}{label}"))
        return Content.assemble(*parts).truncate(width)

    def _mark_code(self, question_id: str) -> Content:
        """The letter of the question's mark (o, b, g, f, as in the mark menu), or a space."""
        notes = self.rows.notes
        mark = notes.get(question_id) if notes is not None else None
        if mark is None or mark.mark is None:
            return Content(" ")
        return Content(MARK_LETTERS[mark.mark]).stylize("bold reverse")

    def refresh_marks(self) -> None:
        """Redraw after a mark changed (the cached lines hold the old letters)."""
        self._cache.clear()
        self.refresh()

    def _row_content(self, index: int, width: int, is_cursor: bool) -> Content:
        row = self.rows.row(index)
        cols = self.columns(width)
        status = row["status"]
        # On the cursor bar, text takes the bar's own colour: red on the blue bar fell to
        # 1.26:1 (1.04:1 in 256 colours). The symbols (▼ ▲ ✗) still carry the meaning.
        colour = "" if is_cursor else role_colour(self.app, STATUS_ROLES.get(status, "muted"))
        parts: list[Content | str] = [
            f" {CURSOR_MARK} " if is_cursor else "   ",
            Content(STATUS_SYMBOL.get(status, "?")).stylize(colour),
            self._mark_code(row["id"]),
            " ",
            safe(row["id"], one_line=True).truncate(cols.id, ellipsis=True, pad=True),
            " ",
        ]
        if cols.category:
            category = safe(self.rows.category_name(row["category"]), one_line=True)
            parts += [category.truncate(cols.category, ellipsis=True, pad=True), " "]
        kinds = kind_codes(row["kinds_a"])
        if self.rows.two_runs:
            kinds = f"{kinds}→{kind_codes(row['kinds_b'])}"
        parts += [Content(kinds).truncate(cols.kinds, ellipsis=True, pad=True), " "]
        if cols.cause:
            labels = CAUSE_LABELS if width >= WIDE else CAUSE_SHORT
            cause = Content(labels.get(row["cause"] or "", "")).truncate(cols.cause, pad=True)
            parts += [cause.stylize(role_colour(self.app, "regression")) if row["cause"] and not is_cursor else cause, " "]
        question_width = cols.question
        if row.get("unstable") and question_width > 2:
            mark_style = "bold" if is_cursor else f"bold {role_colour(self.app, 'regression')}"
            parts.append(Content(f"{UNSTABLE_MARK} ").stylize(mark_style))
            question_width -= 2
        parts.append(safe(row["question"], one_line=True).truncate(question_width, ellipsis=True))
        return Content.assemble(*parts)
