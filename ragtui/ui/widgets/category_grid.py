"""Category × metric grid: where in the gold set each metric is weak or moved.

Arrows move a cell cursor; Enter on a cell posts `OpenFailures` for that category and
the metric's failure kind (`MetricSpec.failure_kind`), so "procedural recall fell"
leads straight to the procedural questions whose retrieval missed. The worst cell of
each column is bold and carries ◆, which reads in any theme and in monochrome. A cell
with a target carries its verdict against it (✓ meets, ✗ misses, ? inconclusive, from
the category's own interval): a category of 14 questions is usually `?`, not "83%".
Cells are Rich `Text` (DataTable measures Rich renderables); category names come from
the gold set and go through `rich_text`, which never parses markup.

Seven metric columns do not fit in 80 columns (a cell holds value, Δ, verdict and ◆), and
a cut column or a scrollbar drawn only in colour says nothing under NO_COLOR or over a
plain capture. So the grid scrolls sideways with the category pinned, and posts
`ColumnsInView` naming the metrics out of view on each side: the dashboard prints them
in words (`columns_cue`).
"""

from __future__ import annotations

from rich.text import Text
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.message import Message
from textual.widgets import DataTable

from ragtui.core.measuring.metric_specs import MetricSpec
from ragtui.core.vocabulary import NA, WORST, delta_text, short_label, target_symbol, value_text
from ragtui.ui.content.safe_text import rich_text
from ragtui.ui.messages import OpenFailures
from ragtui.ui.models.dashboard import DashboardData, worst_categories

CATEGORY_COLUMN, N_COLUMN = "category", "n"
MORE_LEFT, MORE_RIGHT = "◀", "▶"


def columns_cue(left: list[str], right: list[str]) -> str:
    """`◀ Recall@5 · more ▶ CtxPrec@5 MRR@5 (c, then ← →)`, or "" when every column is in view."""
    if not left and not right:
        return ""
    parts = ([f"{MORE_LEFT} {' '.join(left)}"] if left else []) + ([f"more {MORE_RIGHT} {' '.join(right)}"] if right else [])
    return " · ".join(parts) + " (c, then ← →)"


def cell_text(value: float | None, delta: float | None, spec: MetricSpec) -> str:
    """`83% −8` (rate and Δ in points), `3.9 −0.3` (score) or `1562 +136` (a quantity, its unit
    in the heading); whole points: n per category is small."""
    if value is None:
        return NA
    text = value_text(value, spec, digits=0, unit=False)
    moved = "" if delta is None else delta_text(delta, spec, digits=0, unit=False)
    if any(digit in moved for digit in "123456789"):  # "0", "+0", "0.0": nothing moved at this precision
        text += " " + moved
    return text


class CategoryGrid(DataTable):
    """The grid; `side` picks which run's values are shown ("A" or "B")."""

    DEFAULT_CSS = """
    CategoryGrid {
        height: auto;
        max-height: 16;
        width: auto;
        max-width: 100%;
        scrollbar-size-horizontal: 1;
    }
    """

    class ColumnsInView(Message):
        """The metric columns wholly or partly out of view, left and right (labels as in the header)."""

        def __init__(self, left: list[str], right: list[str]) -> None:
            super().__init__()
            self.left, self.right = left, right

    def __init__(self, data: DashboardData, *, side: str = "B", id: str | None = None) -> None:
        super().__init__(cursor_type="cell", zebra_stripes=True, id=id)
        self.data = data
        self.side = side if data.two_runs else "A"
        self.fixed_columns = 1  # the category stays in view while scrolling right at 80 columns
        self._out_of_view: tuple[list[str], list[str]] | None = None

    def columns_out_of_view(self) -> tuple[list[str], list[str]]:
        """Labels of the metric columns not wholly visible, left and right of the view.

        Columns are laid out end to end from x = 0; the view shows scroll_x + (the pinned
        columns' width) up to scroll_x + the content width. A half-shown cell is as
        unreadable as a hidden one, so it counts as out of view.
        """
        pinned = sum(column.get_render_width(self) for column in self.ordered_columns[: self.fixed_columns])
        start = int(self.scroll_x) + pinned
        end = int(self.scroll_x) + self.scrollable_content_region.width
        left: list[str] = []
        right: list[str] = []
        x = 0
        for column in self.ordered_columns:
            width = column.get_render_width(self)
            if column.key.value not in (CATEGORY_COLUMN, N_COLUMN):
                if x < start:
                    left.append(column.label.plain)
                elif x + width > end:
                    right.append(column.label.plain)
            x += width
        return left, right

    def _report_columns(self) -> None:
        if not self.is_mounted or not self.ordered_columns or self.size.width == 0:
            return
        out_of_view = self.columns_out_of_view()
        if out_of_view != self._out_of_view:
            self._out_of_view = out_of_view
            self.post_message(self.ColumnsInView(*out_of_view))

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        self._report_columns()

    def watch_virtual_size(self, size: Size) -> None:
        self._report_columns()  # column widths settle after the rows are added

    def on_resize(self) -> None:
        self._report_columns()

    def on_mount(self) -> None:
        self.add_column("Category", key=CATEGORY_COLUMN)
        self.add_column("n", key=N_COLUMN)
        for metric in self.data.grid_metrics:
            self.add_column(short_label(metric.spec, self.data.k), key=metric.name)
        self.populate()

    def populate(self) -> None:
        """(Re)fill the rows for the current side, keeping the cursor where it was."""
        cursor = self.cursor_coordinate
        self.clear()
        worst = worst_categories(self.data, self.side)
        show_delta = self.side == "B" and self.data.two_runs
        for category, found in self.data.categories.items():
            cells: list[Text] = [rich_text(self.data.category_names[category], limit=24), Text(str(found.n), justify="right")]
            for metric in self.data.grid_metrics:
                cell = found.metrics.get(metric.name)
                value = cell.value(self.side) if cell is not None else None
                number = value.value if value is not None and value.n else None
                text = cell_text(number, cell.delta if show_delta and cell else None, metric.spec)
                verdict = cell.target_reading(self.side).verdict if cell is not None else None
                if number is not None and verdict is not None:
                    text += f" {target_symbol(verdict)}"  # ? where the category is too small to tell
                # Underlined: the change survives the adjustment over the whole grid (no colour
                # needed, no column wider).
                survives = show_delta and cell is not None and cell.verdict in ("regressed", "improved")
                worst_here = worst.get(metric.name) == category
                style = " ".join(part for part, on in (("bold", worst_here), ("underline", survives)) if on)
                cells.append(Text(f"{text} {WORST}" if worst_here else text, style=style))
            self.add_row(*cells, key=category)
        if self.row_count:
            self.cursor_coordinate = self.validate_cursor_coordinate(cursor)

    def set_data(self, data: DashboardData) -> None:
        """The same comparison with its intervals: the ✓ ✗ ? against the targets appear."""
        self.data = data
        self.populate()

    def set_side(self, side: str) -> None:
        if not self.data.two_runs:
            return
        self.side = side
        self.populate()

    def chosen(self, row: int, column: int) -> tuple[str, str | None]:
        """(category, metric name or None) under the cell at (row, column)."""
        row_key, column_key = self.coordinate_to_cell_key(Coordinate(row, column))
        name = column_key.value
        return str(row_key.value), None if name in (CATEGORY_COLUMN, N_COLUMN) else name

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        category, name = self.chosen(event.coordinate.row, event.coordinate.column)
        if name is None:
            self.post_message(OpenFailures(category=category))
            return
        metric = next(metric for metric in self.data.grid_metrics if metric.name == name)
        cell = self.data.categories[category].metrics.get(name)
        applies = cell is not None and cell.applies
        if not applies:
            self.notify(
                f"{short_label(metric.spec, self.data.k)} does not apply to this category (n = 0).",
                title="Nothing to list",
                markup=False,
            )
            return
        self.post_message(OpenFailures(category=category, failure_kind=metric.spec.failure_kind))
