"""Recall@k for k = 1…20, A against B, as text: block bars, numbers, and k marked.

The curve answers "would sending more passages have found the gold one?". It is drawn
with characters only — one row of bars per run (A, B spelled out), the configured k
marked by ▲ under its column — so it reads in monochrome and over SSH. Bars are scaled
from the lowest value shown to 100 %, and the scale is printed; the exact values at
k = 1, k and 20 are printed too. The values come from `ragtui.core.measuring.metrics.recall_curve`.
"""

from __future__ import annotations

import math

from textual.content import Content
from textual.widget import Widget

from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import delta_text, percent_text
from ragtui.ui.content.safe_text import join

BARS = " ▁▂▃▄▅▆▇█"
SIDE_STYLE = {"A": "bold $run-a", "B": "bold $run-b"}


def _bar(value: float | None, low: float) -> str:
    if value is None:
        return "·"
    if value <= low:
        return BARS[1]  # a visible floor: a zero-height bar looks like missing data
    level = 1 + round((value - low) / (1.0 - low) * 7) if low < 1.0 else 8
    return BARS[max(1, min(8, level))]


def column_width(width: int, k_max: int) -> int:
    """Cells per k: 4 (bars and numbers), 3 (bars), or 2 (one bar, every fifth k labelled)."""
    for column in (4, 3):
        if width >= _LABEL + column * k_max:
            return column
    return 2


_LABEL = 4  # "  A " before each row


def _k_axis(k_max: int, k: int, column: int) -> Content:
    """The k labels, right-aligned on their column; the configured k in reverse video.

    When a column is too narrow for every label (two cells a k), k, 1 and every fifth
    k are labelled, skipping any label that would touch another.
    """
    cells = [" "] * (_LABEL + column * k_max)
    cells[2] = "k"
    wanted = [k, 1, *range(5, k_max + 1, 5)] if column == 2 else [k, *range(1, k_max + 1)]
    taken: list[tuple[int, int]] = []
    for j in dict.fromkeys(j for j in wanted if 1 <= j <= k_max):
        label = str(j)
        end = _LABEL + j * column - 1  # the label ends on the column's bar
        start = end - len(label)
        if any(start - 1 < t_end and t_start - 1 < end for t_start, t_end in taken):
            continue
        cells[start:end] = label
        taken.append((start, end))
    axis = Content("".join(cells).rstrip())
    span = next(((a, b) for a, b in taken if axis.plain[a:b] == str(k)), None)
    return axis.stylize("reverse bold", *span) if span else axis


def curve_content(curves: dict[str, list[float | None]], k: int, width: int) -> Content:
    """The chart's lines for the room available (`width` cells)."""
    k_max = len(curves["A"])
    values = [v for curve in curves.values() for v in curve if v is not None]
    if not values:
        return Content.styled("No answerable question with gold passages: no recall curve.", "dim")
    # Bars start at the lowest value, rounded down to 10 %, so small gaps stay visible.
    low = min(0.9, math.floor(min(values) * 10) / 10)
    column = column_width(width, k_max)
    lines: list[Content] = [_k_axis(k_max, k, column)]
    for side, curve in curves.items():
        bars = "".join(_bar(v, low) * (column - 1) + " " for v in curve)
        lines.append(join(Content.styled(f"  {side} ", SIDE_STYLE[side]), Content.styled(bars.rstrip(), SIDE_STYLE[side].replace("bold ", ""))))
        if column == 4:
            numbers = "".join(percent_text(v, digits=0, unit=False).rjust(3) + " " for v in curve)
            lines.append(Content.styled(" " * _LABEL + numbers.rstrip(), "dim"))
    if 1 <= k <= k_max:
        marker = " " * (_LABEL + (k - 1) * column + column - 2) + "▲"
        lines.append(join(Content(marker), Content.styled(f" k = {k}, the passages sent", "dim")))
    for side, curve in curves.items():
        at_k = curve[k - 1] if 1 <= k <= k_max else None
        parts: list[Content | str] = [
            Content.styled(f"  {side} ", SIDE_STYLE[side]),
            f"@1 {percent_text(curve[0], digits=0)}  @{k} ",
            Content.styled(percent_text(at_k, digits=0), "bold"),
            f"  @{k_max} {percent_text(curve[-1], digits=0)}",
        ]
        reference = curves["A"][k - 1] if "A" in curves else None
        if side == "B" and at_k is not None and reference is not None:
            parts.append(Content.styled(f"  Δ@{k} {delta_text(at_k - reference, metric_by_name('recall'))}", "dim"))
        lines.append(join(*parts))
    lines.append(Content.styled(f"  bars from {percent_text(low, digits=0)} {BARS[1]} to 100% {BARS[8]}", "dim"))
    return Content("\n").join(lines)


class RecallCurve(Widget):
    """The curve widget; it re-draws for its width (3 or 4 cells a k)."""

    DEFAULT_CSS = """
    RecallCurve {
        height: auto;
        width: 1fr;
        min-width: 34;
        border: round $panel-lighten-2;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 1;
    }
    """

    def __init__(self, curves: dict[str, list[float | None]], k: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.curves = curves
        self.k = k
        self.border_title = Content("Recall@k, k = 1…20")
        self._drawn: tuple[int, Content] | None = None  # the last width asked for, and its lines

    def _content(self, width: int) -> Content:
        """`curve_content` for `width`: Textual asks for the height at a width several times
        before it renders at that width; the curves never change."""
        if self._drawn is None or self._drawn[0] != width:
            self._drawn = (width, curve_content(self.curves, self.k, width))
        return self._drawn[1]

    def render(self) -> Content:
        return self._content(self.content_size.width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._content(width).split("\n"))

    def get_content_width(self, container, viewport) -> int:
        return _LABEL + 4 * len(self.curves["A"])
