"""The failure list: a virtual view that draws only the rows on screen.

Like toolong's `LogLines`, this is a `ScrollView` over data it does not copy: each
visible line is fetched from the filtered polars frame when it is drawn, turned into a
`Strip` from safe `Content` (what each line says: `failure_lines.py`), and kept in an LRU
cache. A list of 100,000 questions costs one frame and a screenful of strips, never
100,000 widgets. Line 0 is a sticky column header; below it, each category is a header
line followed by its questions.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ragtui.ui.content.failure_lines import Columns, columns, group_line, heading_line, question_line
from ragtui.ui.models.failure_rows import FailureFilter, FailureRows

# Enough for several screens of a tall terminal; the point is that it is bounded.
CACHE_LINES = 512
_MOVE = Binding.Group("move", compact=True)


class FailureTable(ScrollView, can_focus=True):
    """Failing questions grouped by category; Enter posts `Selected`; watch `cursor` for moves."""

    # Enter first: the footer lists bindings in order, and 80 columns hold only so many.
    # The six movement keys share one compact footer entry (↑↓⇞⇟⇱⇲ move).
    BINDINGS: ClassVar[list[BindingType]] = [
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
        self._widths = rows.widths()  # over the whole list, once: the columns stay put as it is filtered

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
        return columns(self._widths, self.rows.two_runs, width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            return self._strip(("columns", width), lambda: heading_line(self.rows, self.columns(width), width), "failure-table--columns", width)
        line = round(self.scroll_y) + y - 1
        if line >= self.rows.line_count:
            return Strip.blank(width, self.rich_style)
        group, row = self.rows.locate(line)
        if row is None:
            return self._strip(("group", line, width), lambda: group_line(self.rows, group, width), "failure-table--group", width)
        is_cursor = row == self.cursor
        component = "failure-table--cursor" if is_cursor else None
        # Only the cursor row looks different when the table loses focus.
        key = ("row", line, width, is_cursor and self.has_focus) if is_cursor else ("row", line, width)
        return self._strip(key, lambda: question_line(self.app, self.rows, row, self.columns(width), width, is_cursor), component, width)

    def _strip(self, key: tuple, make, component: str | None, width: int) -> Strip:
        strip = self._cache.get(key)
        if strip is None:
            self.lines_rendered += 1
            base = self.get_visual_style(component) if component else self.visual_style
            content: Content = make()
            strip = Strip(content.render_segments(base)).adjust_cell_length(width, base.rich_style)
            self._cache.set(key, strip)
        return strip

    def refresh_marks(self) -> None:
        """Redraw after a mark changed (the cached lines hold the old letters)."""
        self._cache.clear()
        self.refresh()
