"""The trade-off chart: each run a point, recall@k (its own k) across, faithfulness up.

Drawn with characters only, so it reads in monochrome, under `NO_COLOR` and over SSH: the
axes and ticks in box-drawing characters, the targets as dotted lines (┄ faithfulness,
╎ recall), each run as a shape and its label — ✦ the best run on both, ● a run on the
Pareto front, ○ a dominated one. Colour only repeats what the shapes say. Points that
would overlap move their label beside the shape rather than hide one another.
"""

from __future__ import annotations

import math

from textual.content import Content
from textual.widget import Widget

from ragtui.core.comparing.tradeoff import AXES, Tradeoff
from ragtui.core.vocabulary import TARGET_COLUMN, TARGET_ROW, TRADEOFF_BEST, TRADEOFF_DOMINATED, TRADEOFF_FRONT, percent_text
from ragtui.ui.content.safe_text import join

Y_LABEL = 6  # " 85% ┤": the y tick labels and the axis
MIN_PLOT_ROWS = 5
STEP = 0.05  # axis bounds snap to 5 points


def _bounds(values: list[float]) -> tuple[float, float]:
    """The axis range: the values (and target) widened to 5-point steps, at least 10 points wide."""
    low = max(0.0, math.floor(min(values) / STEP + 1e-9) * STEP)
    high = min(1.0, math.ceil(max(values) / STEP - 1e-9) * STEP)
    while high - low < 2 * STEP - 1e-9:
        low, high = max(0.0, low - STEP), min(1.0, high + STEP)
    return low, high


def point_shape(label: str, best: str | None, front: frozenset[str]) -> str:
    """✦ best on both, ● on the front, ○ dominated."""
    if label == best:
        return TRADEOFF_BEST
    return TRADEOFF_FRONT if label in front else TRADEOFF_DOMINATED


def chart_content(tradeoff: Tradeoff, category: str | None, width: int, height: int, cursor: str | None = None) -> Content:
    """The chart's lines for `width` × `height` cells (axis titles and ticks included)."""
    points = [(p.label, p.reading(category)) for p in tradeoff.points]
    read = [(label, values[AXES[0]].value, values[AXES[1]].value) for label, values in points]
    measured = [(label, x, y) for label, x, y in read if x is not None and y is not None]
    if not measured:
        return Content.styled("No run has both recall and faithfulness here: nothing to draw.", "dim")
    x_target, y_target = (tradeoff.targets.get(name) for name in AXES)
    x_low, x_high = _bounds([x for _, x, _ in measured] + ([x_target] if x_target is not None else []))
    y_low, y_high = _bounds([y for _, _, y in measured] + ([y_target] if y_target is not None else []))
    columns = max(width - Y_LABEL - 1, 10)
    rows = max(height - 4, MIN_PLOT_ROWS)  # title line above, axis, tick labels and axis title below

    def col(x: float) -> int:
        return round((x - x_low) / (x_high - x_low) * (columns - 1))

    def row(y: float) -> int:
        return round((y_high - y) / (y_high - y_low) * (rows - 1))

    grid = [[" "] * columns for _ in range(rows)]
    styles: list[list[str]] = [[""] * columns for _ in range(rows)]
    target_col = col(x_target) if x_target is not None else None
    target_row = row(y_target) if y_target is not None else None
    if target_row is not None:
        grid[target_row] = [TARGET_ROW] * columns
        styles[target_row] = ["$warning"] * columns
    if target_col is not None:
        for r in range(rows):
            grid[r][target_col] = "┼" if r == target_row else TARGET_COLUMN
            styles[r][target_col] = "$warning"
    best, front = tradeoff.best(category), tradeoff.front(category)
    taken: set[tuple[int, int]] = set()
    for label, x, y in measured:
        text = point_shape(label, best, front) + label
        r, c = row(y), col(x)
        style = ("bold $run-a" if label == "A" else "bold $run-b") + (" reverse" if label == cursor else "")
        for start_r, start_c in _placements(r, c, len(text), rows, columns):
            cells = [(start_r, start_c + i) for i in range(len(text))]
            if not any(cell in taken for cell in cells):
                break
        for i, (cr, cc) in enumerate(cells):
            grid[cr][cc], styles[cr][cc] = text[i], style
            taken.add((cr, cc))
    lines: list[Content] = [Content.styled("faithfulness ↑", "dim")]
    # Ticks at the ends and on the target's row, labelled with the exact value they stand for.
    y_ticks = {0: y_high, rows - 1: y_low, **({target_row: y_target} if target_row is not None and y_target is not None else {})}
    for r in range(rows):
        axis = f"{percent_text(y_ticks[r], digits=0):>4} ┤" if r in y_ticks else "     │"
        lines.append(join(Content.styled(axis, "dim"), _styled_row(grid[r], styles[r])))
    ticks = {0: x_low, columns - 1: x_high, **({target_col: x_target} if target_col is not None and x_target is not None else {})}
    rule = ["─"] * columns
    labels = [" "] * (columns + 4)
    for c, value in sorted(ticks.items()):
        rule[c] = "┴"
        tick = percent_text(value, digits=0)
        start = max(0, min(c - len(tick) // 2, columns + 4 - len(tick)))
        if all(ch == " " for ch in labels[max(0, start - 1) : start + len(tick) + 1]):
            labels[start : start + len(tick)] = list(tick)
    lines.append(Content.styled("     └" + "".join(rule), "dim"))
    lines.append(Content.styled(" " * Y_LABEL + "".join(labels).rstrip(), "dim"))
    lines.append(Content.styled(" " * Y_LABEL + "recall@k, each run at its own k →", "dim"))
    return Content("\n").join(lines)


def _placements(r: int, c: int, length: int, rows: int, columns: int) -> list[tuple[int, int]]:
    """Where a point's text may start: on its spot, then shifted left, then a row up or down."""
    start = min(c, columns - length)
    options = [(r, start), (r, max(0, c - length + 1))]
    options += [(rr, start) for rr in (r - 1, r + 1) if 0 <= rr < rows]
    return options


def _styled_row(cells: list[str], styles: list[str]) -> Content:
    parts: list[Content | str] = []
    run_text, run_style = "", None
    for ch, style in zip(cells, styles, strict=True):
        if style != run_style and run_text:
            parts.append(Content.styled(run_text, run_style) if run_style else run_text)
            run_text = ""
        run_text, run_style = run_text + ch, style
    if run_text:
        parts.append(Content.styled(run_text, run_style) if run_style else run_text)
    return join(*parts)


class TradeoffChart(Widget):
    """The chart; it re-draws for its size and follows the category and the cursor."""

    DEFAULT_CSS = """
    TradeoffChart {
        height: 1fr;
        min-height: 9;
        width: 1fr;
    }
    """

    def __init__(self, tradeoff: Tradeoff, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tradeoff = tradeoff
        self.category: str | None = None
        self.cursor: str | None = None

    def show(self, category: str | None, cursor: str | None) -> None:
        self.category, self.cursor = category, cursor
        self.refresh()

    def render(self) -> Content:
        size = self.content_size
        return chart_content(self.tradeoff, self.category, size.width, size.height, self.cursor)
