"""The first screen: did B help or hurt, where, and which questions to look at.

Top to bottom (the order of triage): who the runs are and what to be wary of
(headers, warnings), how many questions regressed / were fixed / still fail, one panel
per metric with its verdict (latency, cost and tokens share one, when the runs record
them), the category × metric grid, and the recall@k curve.
At 80×24 everything stacks in one scrolling column; from 120 columns the panels sit
three to a row, and from 160 four to a row with the grid and the curve side by side.
The values come first; the intervals and the verdicts they decide follow from a worker
(`show_intervals`), and until then the panels and the grid's legend say they are pending.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from ragtui.core.vocabulary import (
    INTERVALS_FAILED,
    INTERVALS_PENDING,
    MULTIPLE_TESTING_SHORT,
    TARGET_LEGEND,
    WORST,
)
from ragtui.ui.content.corrected_line import corrected_content
from ragtui.ui.messages import OpenFailures, OpenTradeoff
from ragtui.ui.models.dashboard import DashboardData
from ragtui.ui.models.session import Session
from ragtui.ui.widgets.category_grid import CategoryGrid, columns_cue
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.metric_panel import MetricPanel
from ragtui.ui.widgets.quantity_panel import QuantityPanel
from ragtui.ui.widgets.recall_curve import RecallCurve
from ragtui.ui.widgets.run_header import RunHeaderBox, WarningsPanel
from ragtui.ui.widgets.status_counts import StatusCounts
from ragtui.ui.widgets.tool_panels import ToolMetricsGroup, status_source_text


def breakpoint_class(breakpoints: list[tuple[int, str]], width: int) -> str:
    """The class Textual gives a screen `width` cells wide: the widest breakpoint it reaches."""
    return max((at, name) for at, name in breakpoints if width >= at)[1]


# Actions that only mean something with two runs (hidden from the footer otherwise).
_TWO_RUN_ACTIONS = {"toggle_side"}


class DashboardScreen(Screen):
    """The dashboard of one comparison (or of a single run, with the B columns absent)."""

    IS_ROOT = True  # Esc does not leave it (RagtuiApp.action_back)
    # Textual would focus the first focusable widget, the scroll that holds the whole
    # dashboard, before the first paint; focus restyles every widget inside it, which
    # delayed the sample's first paint by ~0.1 s (12 interleaved pairs, docs/performance.md).
    # `on_mount` focuses it right after the paint instead.
    AUTO_FOCUS = ""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide"), (160, "-very-wide")]

    BINDINGS = [
        Binding("f", "open_failures", "Failures", id="dashboard.failures", tooltip="Every failing question"),
        Binding("r", "open_status('regressed')", "Regressed", id="dashboard.regressed", tooltip="Questions that pass in A and fail in B"),
        Binding("x", "open_status('fixed')", "Fixed", id="dashboard.fixed", show=False, tooltip="Questions that fail in A and pass in B"),
        Binding("s", "open_status('still_failing')", "Still failing", id="dashboard.still_failing", show=False, tooltip="Questions that fail in both runs"),
        Binding("c", "focus_categories", "Categories", id="dashboard.categories", tooltip="Move to the category grid (arrows, Enter)"),
        Binding("b", "toggle_side", "A/B", id="dashboard.toggle_side", tooltip="Show A's or B's values in the category grid"),
        Binding("T", "tradeoff", "Trade-off", key_display="T", id="dashboard.tradeoff", tooltip="Recall against faithfulness for every run (more than two runs)"),
    ]

    side: reactive[str] = reactive("B", init=False)

    def __init__(self, data: DashboardData, session: Session | None = None, *, id: str = "dashboard") -> None:
        super().__init__(id=id)
        self.data = data
        self.session = session  # None: a dashboard drawn on its own (no labels, no trade-off)
        self.several_runs = session is not None and session.several_runs  # T shows the trade-off of every run
        self._labels_seen = 0
        self._resumed = False  # the first ScreenResume comes after the compose (`on_screen_resume`)
        self._pending = INTERVALS_PENDING  # what the grid's legend says while the intervals are not known
        self.set_reactive(DashboardScreen.side, "B" if data.two_runs else "A")

    def compose(self) -> ComposeResult:
        # The width's breakpoint class, before any widget below is styled: Textual gives it
        # at the first resize, after they are, and then styles them all again.
        width_class = breakpoint_class(self.HORIZONTAL_BREAKPOINTS, self.app.size.width)
        for _, name in self.HORIZONTAL_BREAKPOINTS:
            self.set_class(name == width_class, name)
        data = self.data
        with VerticalScroll(id="dashboard-scroll"):
            with Horizontal(id="runs"):
                for header in data.runs:
                    yield RunHeaderBox(header)
            yield WarningsPanel(data.warnings)
            yield StatusCounts(data.status_counts, two_runs=data.two_runs)
            if data.tool_groups:
                yield Static(status_source_text(data.status_from, [tool for tool, _ in data.tool_groups]), id="status-source")
            # When the tool's verdicts make the status, its metrics are what the team reads first.
            tools_first = data.status_from == "tool"
            if tools_first:
                yield from self._tool_groups()
            with Grid(id="metrics"):
                for metric in data.metrics:
                    yield MetricPanel(
                        metric, k=data.k, two_runs=data.two_runs, confidence=data.confidence, max_drop=data.max_drop,
                        corrected=corrected_content(metric.spec.key, data.corrections),
                    )
                if data.quantities:
                    yield QuantityPanel(data.quantities, k=data.k, two_runs=data.two_runs, max_drop=data.max_drop)
            if not tools_first:
                yield from self._tool_groups()
            with Horizontal(id="lower"):
                with Vertical(id="categories"):
                    yield Static(self._grid_title(), id="categories-title")
                    yield CategoryGrid(data, side=self.side, id="category-grid")
                    yield Static("", id="categories-more")
                    yield Static(self._grid_legend(), id="categories-legend")
                yield RecallCurve(data.curves, data.k, id="recall-curve")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.call_after_refresh(self._focus_after_paint)

    def _focus_after_paint(self) -> None:
        if self.focused is None:  # a key pressed meanwhile may have moved it (`c`)
            self.query_one("#dashboard-scroll", VerticalScroll).focus(scroll_visible=False)

    def show_recomputed(self, data: DashboardData) -> None:
        """The same inputs compared again (the gold set's edits replayed): drawn anew."""
        self.data = data
        self.refresh(recompose=True)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Back from labelling: the corrected values follow the labels just made."""
        if not self._resumed:
            # The first resume follows the compose, whose widgets were each styled as they
            # were registered (the theme and the breakpoint class set before): Textual
            # would style them all again before the first paint (about 9 ms of the sample's).
            self._resumed = True
            event.refresh_styles = False
        session = self.session
        if session is None or session.labelling is None or session.labels_version == self._labels_seen or self.data.comparison is None:
            return
        labelling = session.labelling
        self._labels_seen = labelling.version
        from ragtui.core.comparing.compare import relabelled
        from ragtui.ui.models.dashboard import corrections_of

        corrections = corrections_of(relabelled(self.data.comparison, labelling.labels))
        for panel in self.query("#metrics MetricPanel").results(MetricPanel):
            panel.set_corrected(corrected_content(panel.metric.spec.key, corrections))

    def show_intervals(self, data: DashboardData) -> None:
        """The same comparison with its intervals: verdicts, target marks and power fill in."""
        self.data = data
        by_key = {metric.spec.key: metric for metric in data.metrics}
        for panel in self.query("#metrics MetricPanel").results(MetricPanel):
            panel.set_metric(by_key[panel.metric.spec.key])
        for quantities in self.query(QuantityPanel).results(QuantityPanel):
            quantities.set_metrics(data.quantities)
        self.query_one(CategoryGrid).set_data(data)
        self.query_one("#categories-legend", Static).update(self._grid_legend())

    def intervals_failed(self) -> None:
        """The intervals could not be computed: say so where they would be (the app notifies why)."""
        self._pending = INTERVALS_FAILED
        for panel in self.query("#metrics MetricPanel").results(MetricPanel):
            panel.set_metric(panel.metric, pending=INTERVALS_FAILED)
        for quantities in self.query(QuantityPanel).results(QuantityPanel):
            quantities.set_metrics(quantities.metrics, pending=INTERVALS_FAILED)
        self.query_one("#categories-legend", Static).update(self._grid_legend())

    def _tool_groups(self) -> ComposeResult:
        data = self.data
        for tool, metrics in data.tool_groups:
            yield ToolMetricsGroup(tool, metrics, errors=data.tool_errors, k=data.k, two_runs=data.two_runs, confidence=data.confidence, max_drop=data.max_drop)

    def _grid_title(self) -> Content:
        shown = {"A": "A (reference)", "B": "B (candidate), Δ vs A in points"}[self.side]
        return Content.assemble(("By category", "bold"), (f" · values of {shown}", "dim"))

    def _grid_legend(self) -> Content:
        worst = "biggest drop" if self.side == "B" and self.data.two_runs else "weakest value"
        against = self._pending if self.data.intervals_pending else TARGET_LEGEND
        survives = f"underlined: Δ survives {MULTIPLE_TESTING_SHORT[self.data.multiple_testing]} · " if self.side == "B" and self.data.two_runs else ""
        return Content.styled(f"{WORST} {worst} per metric · {survives}vs target: {against} · arrows + Enter: that category's failures", "dim")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tradeoff" and not self.several_runs:
            return False
        if action in _TWO_RUN_ACTIONS and not self.data.two_runs:
            return False
        if action == "open_status" and parameters and parameters[0] in ("regressed", "fixed") and not self.data.two_runs:
            return False
        return True

    def action_open_failures(self) -> None:
        self.post_message(OpenFailures())

    def action_open_status(self, status: str) -> None:
        self.post_message(OpenFailures(status=status))

    def action_tradeoff(self) -> None:
        self.post_message(OpenTradeoff())

    def action_focus_categories(self) -> None:
        self.query_one(CategoryGrid).focus()

    def action_toggle_side(self) -> None:
        self.side = "A" if self.side == "B" else "B"

    def watch_side(self, side: str) -> None:
        self.query_one(CategoryGrid).set_side(side)
        self.query_one("#categories-title", Static).update(self._grid_title())
        self.query_one("#categories-legend", Static).update(self._grid_legend())
        self.notify(f"Category grid: values of run {side}", timeout=2)

    def on_category_grid_columns_in_view(self, message: CategoryGrid.ColumnsInView) -> None:
        message.stop()
        cue = columns_cue(message.left, message.right)
        more = self.query_one("#categories-more", Static)
        more.update(Content.styled(cue, "bold"))
        more.display = bool(cue)
