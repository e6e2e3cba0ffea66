"""The app's part that only exists with more than two runs: the trade-off and its pairs.

The first pair (A → B) loads as it always has, so the dashboard is on screen as soon as
with two runs. Then a worker compares A with every other candidate — the same engine as
`ragtui report A B1 B2 …` — and builds the trade-off; `T` shows it (saying it is still
loading until then). Picking two runs there compares them (reusing A → X when it was
already computed) and puts their dashboard in place of the current one, so every screen
below it (failures, question, verdicts) reads that pair.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App

from ragtui.core.sanitize import neutralize
from ragtui.ui.messages import PairLoaded, TradeoffFailed, TradeoffLoaded

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.comparing.tradeoff import Tradeoff


class SeveralRunsApp(App[int]):
    """`RagtuiApp`'s base: the trade-off of every run and the pairs picked from it."""

    inputs: Any
    comparison: Comparison | None
    data: Any

    def _init_several_runs(self) -> None:
        self.tradeoff: Tradeoff | None = None
        self.tradeoff_problems: list[str] = []
        # (position of A, position of B) among `inputs.runs` → their comparison.
        self.pairs: dict[tuple[int, int], Comparison] = {}
        self.current_pair = (0, 1)

    @property
    def several_runs(self) -> bool:
        """More than two runs were given: the trade-off view exists."""
        return bool(self.inputs.others)

    def start_tradeoff(self, first: Comparison) -> None:
        """After the first pair is on screen: compare A with the other candidates."""
        if self.several_runs and self.tradeoff is None and not self.tradeoff_problems:
            self.pairs[(0, 1)] = first
            self._load_tradeoff(first)

    @work(thread=True, exclusive=True, exit_on_error=False, group="tradeoff", name="load trade-off")
    def _load_tradeoff(self, first: Comparison) -> None:
        from ragtui.core import session
        from ragtui.core.comparing.tradeoff import build_tradeoff
        from ragtui.core.errors import InputError

        try:
            others = session.load_comparisons(replace(self.inputs, others=()), list(self.inputs.others))
        except InputError as exc:
            self.post_message(TradeoffFailed([str(problem) for problem in exc.problems]))
            return
        comparisons = [first, *others]
        self.post_message(TradeoffLoaded(build_tradeoff(comparisons), comparisons))

    def on_tradeoff_loaded(self, message: TradeoffLoaded) -> None:
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        self.tradeoff = message.tradeoff
        for position, comparison in enumerate(message.comparisons, start=1):
            self.pairs[(0, position)] = comparison
        for screen in self.screen_stack:
            if isinstance(screen, TradeoffScreen):
                screen.show_tradeoff(message.tradeoff)

    def on_tradeoff_failed(self, message: TradeoffFailed) -> None:
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        self.tradeoff_problems = list(message.problems)
        text = "Some runs could not be compared with A:\n" + "\n".join(neutralize(p) for p in message.problems)
        self.notify(text, title="Trade-off", severity="error", timeout=12, markup=False)
        for screen in self.screen_stack:
            if isinstance(screen, TradeoffScreen):
                screen.show_problem(text)

    def open_tradeoff(self) -> None:
        """T: the trade-off view (it says so while the other runs are still loading)."""
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        if not self.several_runs or isinstance(self.screen, TradeoffScreen):
            return
        names = self.comparison.config.categories if self.comparison is not None else {}
        screen = TradeoffScreen(self.tradeoff, names, pair=self.current_pair)
        if self.tradeoff is None and self.tradeoff_problems:
            screen.problem = "Some runs could not be compared with A:\n" + "\n".join(neutralize(p) for p in self.tradeoff_problems)
        self.push_screen(screen)

    def open_pair(self, left: int, right: int) -> None:
        """Compare run `left` (as A) with run `right` (as B) and show their dashboard."""
        if (left, right) == self.current_pair:
            self.pop_screen()
            return
        runs = self.inputs.runs
        self.notify(neutralize(f"Comparing {runs[left].name} with {runs[right].name}…"), timeout=3, markup=False)
        self._load_pair(left, right)

    @work(thread=True, exclusive=True, exit_on_error=False, group="pair", name="load pair")
    def _load_pair(self, left: int, right: int) -> None:
        from ragtui.core import session
        from ragtui.core.errors import InputError
        from ragtui.ui.models.dashboard import build_dashboard_data

        comparison = self.pairs.get((left, right))
        if comparison is None:
            runs = self.inputs.runs
            variants = tuple(self.inputs.variants[i] if i < 2 else None for i in (left, right))
            try:
                comparison = session.load_comparison(replace(self.inputs, a=runs[left], b=runs[right], others=(), variants=variants))
            except InputError as exc:
                self.post_message(TradeoffFailed([str(problem) for problem in exc.problems]))
                return
        self.post_message(PairLoaded(build_dashboard_data(comparison), (left, right)))

    async def on_pair_loaded(self, message: PairLoaded) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        self.pairs[message.pair] = message.data.comparison
        self.current_pair = message.pair
        self.data = message.data
        self.comparison = message.data.comparison
        # Down to the dashboard (the trade-off, help or the palette may be over it), then
        # replace it: awaited, so the old one is gone before the new one arrives.
        while not isinstance(self.screen, DashboardScreen) and len(self.screen_stack) > 2:
            await self.pop_screen()
        # An id of its own: Textual registers the new screen before it removes the old one.
        left, right = message.pair
        await self.switch_screen(DashboardScreen(message.data, several_runs=True, id=f"dashboard-{left}-{right}"))
        names = [self.inputs.runs[i].name for i in message.pair]
        self.notify(neutralize(f"Dashboard: A = {names[0]}, B = {names[1]}"), timeout=4, markup=False)
