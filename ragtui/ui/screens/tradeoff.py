"""The trade-off view (T on the dashboard of more than two runs): recall against faithfulness.

Top to bottom: what is shown (all questions or one category), the chart of every run at
its own k with the targets as lines, its legend, the runs' table (k, recall@k,
faithfulness, utility) with a cursor, and the pair that Enter opens on today's dashboard:
the reference (A unless `a` picked another run) against the run under the cursor. `c`
cycles the categories, where procedural questions often break first.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ragtui.core.comparing.tradeoff import Tradeoff, TradeoffPoint
from ragtui.core.measuring.metric_specs import MetricSpec
from ragtui.core.measuring.metric_specs import metric_by_name as metric_spec
from ragtui.core.vocabulary import (
    CURSOR_MARK,
    TARGET_COLUMN,
    TARGET_ROW,
    TRADEOFF_BEST,
    TRADEOFF_DOMINATED,
    TRADEOFF_FRONT,
    target_text,
    value_text,
)
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.messages import OpenPair
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.tradeoff_chart import TradeoffChart, point_shape

NAME_WIDTH = 16
# The table's value columns: metric, heading, width (tokens and cost per question: what k costs).
COLUMNS = (("recall", "recall@k", 9), ("faithfulness", "faithful", 9), ("utility", "utility", 8), ("tokens", "tokens", 7), ("cost_usd", "$/q", 9))


def _cell(value: float | None, spec: MetricSpec) -> str:
    """A value of the runs table; tokens and cost without their unit (the heading names it)."""
    return value_text(value, spec, unit=False)


class TradeoffScreen(Screen):
    """Every run as a point; pick two to open them on the dashboard."""

    BINDINGS = [
        Binding("enter", "open_pair", "Open pair", tooltip="Open the reference and the highlighted run on the dashboard", id="tradeoff.open"),
        Binding("up", "move(-1)", "up", key_display="↑", show=False, id="tradeoff.up"),
        Binding("down", "move(1)", "down", key_display="↓", show=False, id="tradeoff.down"),
        Binding("a", "set_reference", "As A", tooltip="Make the highlighted run the left side (A) of the pair", id="tradeoff.reference"),
        Binding("c", "cycle_category", "Category", tooltip="All questions, then each category in turn", id="tradeoff.category"),
        Binding("escape", "back", "back", id="tradeoff.back"),
    ]

    DEFAULT_CSS = """
    TradeoffScreen {
        & > Vertical { height: 1fr; }
        & #tradeoff-title { padding: 0 1; }
        & #tradeoff-legend, & #tradeoff-pair { padding: 0 1; color: $text-muted; }
        & #tradeoff-runs { height: auto; padding: 0 0; }
        & #tradeoff-waiting { padding: 1 2; }
    }
    """

    def __init__(self, tradeoff: Tradeoff | None, category_names: dict[str, str] | None = None, *, pair: tuple[int, int] = (0, 1)) -> None:
        """Args:
            tradeoff: every run's point; None while the other runs are still loading.
            category_names: display names of the categories (the config's).
            pair: the pair on the dashboard now (positions of A and B): where the cursor starts.
        """
        super().__init__(id="tradeoff")
        self.tradeoff = tradeoff
        self.category_names = category_names or {}
        self.category: str | None = None
        self.reference, self.cursor = pair
        self.problem: str | None = None

    # ---- data arriving --------------------------------------------------------------

    def show_tradeoff(self, tradeoff: Tradeoff) -> None:
        """The other runs finished loading: draw them."""
        self.tradeoff = tradeoff
        self.refresh_bindings()
        self.call_later(self._rebuild)

    def show_problem(self, text: str) -> None:
        self.problem = text
        self.call_later(self._rebuild)

    async def _rebuild(self) -> None:
        await self.recompose()
        self._redraw()
        self.refresh_bindings()  # the new footer lists the keys that now apply

    # ---- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        if self.tradeoff is None:
            waiting = self.problem or "Loading the other runs… every candidate is compared with A, as `ragtui report` does."
            yield Static(safe(waiting), id="tradeoff-waiting")
            yield KeyFooter()
            return
        with Vertical():
            yield Static(self._title(), id="tradeoff-title")
            yield TradeoffChart(self.tradeoff, id="tradeoff-chart")
            yield Static(self._legend(), id="tradeoff-legend")
            yield Static(self._runs(), id="tradeoff-runs")
            yield Static(self._pair(), id="tradeoff-pair")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self.tradeoff is None:
            return
        self.query_one(TradeoffChart).show(self.category, self.tradeoff.points[self.cursor].label)
        self.query_one("#tradeoff-title", Static).update(self._title())
        self.query_one("#tradeoff-runs", Static).update(self._runs())
        self.query_one("#tradeoff-pair", Static).update(self._pair())

    def _title(self) -> Content:
        assert self.tradeoff is not None
        where = "all questions" if self.category is None else self.category_names.get(self.category, self.category)
        return join(
            Content.styled("Trade-off", "bold"),
            f" · {len(self.tradeoff.points)} runs · ",
            safe(where, one_line=True),
            Content.styled(" · recall@k at each run's own k", "dim"),
        )

    def _legend(self) -> Content:
        assert self.tradeoff is not None
        recall_spec, faith_spec = metric_spec("recall"), metric_spec("faithfulness")
        targets = self.tradeoff.targets
        parts = [
            f"{TRADEOFF_BEST} best on both {TRADEOFF_FRONT} front {TRADEOFF_DOMINATED} dominated",
            f"{TARGET_ROW} faithful {target_text(targets['faithfulness'], faith_spec)}",
            f"{TARGET_COLUMN} recall@{self.tradeoff.target_k} {target_text(targets['recall'], recall_spec)}",
        ]
        return Content(" · ".join(parts))

    def _runs(self) -> Content:
        assert self.tradeoff is not None
        tradeoff = self.tradeoff
        best, front = tradeoff.best(self.category), tradeoff.front(self.category)
        header = f"    {'run':<4}{'name':<{NAME_WIDTH}} {'k':>3} " + " ".join(f"{heading:>{width}}" for _, heading, width in COLUMNS)
        lines = [Content.styled(header, "bold $text-muted")]
        for index, point in enumerate(tradeoff.points):
            lines.append(self._run_line(index, point, point_shape(point.label, best, front)))
        return Content("\n").join(lines)

    def _run_line(self, index: int, point: TradeoffPoint, shape: str) -> Content:
        values = point.reading(self.category)
        cells = [f"{_cell(values[name].value, metric_spec(name)):>{width}}" for name, _, width in COLUMNS]
        marker = CURSOR_MARK if index == self.cursor else " "
        side = "A" if index == self.reference else ("B" if index == self.cursor else " ")
        line = join(
            f"{marker}{side}{shape} ",
            Content.styled(f"{point.label:<4}", "bold $run-a" if point.label == "A" else "bold $run-b"),
            safe(point.name, one_line=True).truncate(NAME_WIDTH, ellipsis=True, pad=True),
            f" {point.k:>3}",
            Content.styled("*" if point.k_source != "metadata" else " ", "dim"),
            *[f"{cell} " for cell in cells],
        )
        return line.stylize("reverse") if index == self.cursor else line

    def _pair(self) -> Content:
        assert self.tradeoff is not None
        left, right = self.tradeoff.points[self.reference], self.tradeoff.points[self.cursor]
        if left is right:
            return Content("The highlighted run is the reference: move to another run to open a pair.")
        return join(
            "Enter: ",
            Content.styled(left.label, "bold"), " ", safe(left.name, one_line=True, limit=18),
            " → ",
            Content.styled(right.label, "bold"), " ", safe(right.name, one_line=True, limit=18),
            " on the dashboard · a: as A",
        )

    # ---- keys -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_pair", "move", "set_reference", "cycle_category") and self.tradeoff is None:
            return False
        return True

    def action_move(self, delta: int) -> None:
        assert self.tradeoff is not None
        self.cursor = (self.cursor + delta) % len(self.tradeoff.points)
        self._redraw()

    def action_set_reference(self) -> None:
        self.reference = self.cursor
        self._redraw()

    def action_cycle_category(self) -> None:
        assert self.tradeoff is not None
        order: list[str | None] = [None, *self.tradeoff.categories]
        self.category = order[(order.index(self.category) + 1) % len(order)]
        self._redraw()

    def action_open_pair(self) -> None:
        if self.reference == self.cursor:
            self.notify("Pick two different runs: move the cursor to another run.", timeout=3)
            return
        self.post_message(OpenPair(self.reference, self.cursor))

    def action_back(self) -> None:
        self.app.pop_screen()
