"""The Textual app over one `Session`: its start, its workers, and the keys of every screen.

Start: "Loading…" paints at once while the session loads the runs (`loader.py`'s daemon
thread under a thread worker, harlequin's pattern); a typed message brings back the
dashboard data or the problems — an `InputError` becomes an error screen listing them,
never a traceback. A load that ended before the app mounted opens straight on the
dashboard; a key that needs the comparison, pressed while loading, waits for it
(`queued_actions`). The dashboard first shows the values; a second worker fills in the
intervals and verdicts. With more than two runs, a worker then compares A with the other
candidates for the trade-off (`T`), and a pair picked there becomes the dashboard.

Each worker wraps one session call and posts one message (`messages.py`); the handlers
here update the session and the screens. The themes are `ThemedApp`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from ragtui.core.errors import InputError
from ragtui.core.heap import freeze_start_up_heap
from ragtui.core.sanitize import neutralize
from ragtui.ui.content.safe_text import toast
from ragtui.ui.loader import start_intervals, start_loading
from ragtui.ui.messages import (
    ComparisonFailed,
    ComparisonLoaded,
    GoldEdited,
    GoldRecomputed,
    IntervalsComputed,
    OpenFailures,
    OpenPair,
    OpenTradeoff,
    PairLoaded,
    TradeoffFailed,
    TradeoffLoaded,
)
from ragtui.ui.models.session import Session
from ragtui.ui.screens.loading import LoadingScreen
from ragtui.ui.themed_app import ThemedApp
from ragtui.ui.user_config import load_keymap

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.driver import Driver

    from ragtui.core.comparing.compare import Comparison
    from ragtui.ui.models.dashboard import DashboardData


def ragtui_commands() -> type[Provider]:
    """ragtui's palette commands, imported when the palette first opens (Textual calls a
    provider given as a function then): nothing of them is needed to paint the dashboard."""
    from ragtui.ui.commands import RagtuiCommands

    return RagtuiCommands


class RagtuiApp(ThemedApp):
    """ragtui's TUI on one comparison (A against B), a single run, or several runs (the trade-off)."""

    TITLE = "ragtui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar = ThemedApp.COMMANDS | {ragtui_commands}

    # Each binding has an id, so a user's keymap.yaml can move it (docs/ui.md).
    BINDINGS: ClassVar = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave ragtui"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="app.quit_ctrl_c", tooltip="Leave ragtui"),
        Binding("question_mark", "help", "Help", key_display="?", id="app.help", tooltip="Keys of every screen, and the symbols"),
        Binding("escape", "back", "Back", show=False, id="app.back", tooltip="Back to the previous screen"),
        Binding("colon", "jump", "Jump", key_display=":", show=False, id="app.jump", tooltip="Jump to any question by id"),
        # Textual's own action: the terminal is restored, `fg` brings the same screen back.
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, id="app.suspend", tooltip="Suspend to the shell (fg to come back)"),
        Binding("L", "calibration_queue", "Label", key_display="L", id="app.calibration_queue",
                tooltip="The calibration queue: label a random sample of answers by keyboard"),
        Binding("C", "calibration", "Calibration", key_display="C", id="app.calibration",
                tooltip="The judge against people: agreement, κ, bias, corrected metrics"),
    ]

    def __init__(
        self,
        session: Session,
        theme_name: str | None = None,
        *,
        preloaded: Future[DashboardData] | None = None,
        question: str | None = None,
        driver_class: type[Driver] | None = None,
    ) -> None:
        """Create the app; nothing is read until it runs (or `preloaded` is already reading).

        Args:
            session: the inputs and everything the app will hold about them.
            theme_name: a bundled or user theme; unknown names fall back to the default.
            preloaded: a load already started by `launch` (`ragtui.ui.loader.start_loading`).
            question: open the question view on this id once loaded (`--question`).
            driver_class: how to drive the terminal (`launch` gives `TerminalDriver`); else Textual's.
        """
        super().__init__(theme_name, driver_class=driver_class)
        self.session = session
        self.start_question = question
        self._preloaded = preloaded
        # Problems that stopped loading; `launch` prints them after the screen closes.
        self.load_problems: list[str] = []
        # Keys pressed while loading that need the comparison: run, in order, once it is loaded.
        self.queued_actions: list[Callable[[], object]] = []
        self.keymap, keymap_problems = load_keymap()
        self.startup_notes += keymap_problems
        if self.keymap:
            self.set_keymap(self.keymap)

    @property
    def comparison(self) -> Comparison | None:
        """The comparison on screen (the session's)."""
        return self.session.comparison

    # ---- the start -------------------------------------------------------------------

    def on_mount(self) -> None:
        preloaded = self._preloaded
        if preloaded is not None and preloaded.done() and not preloaded.cancelled() and preloaded.exception() is None:
            # The load ended while Textual started (the bundled sample, a run read from the
            # cache): the dashboard is the first screen, without a "Loading…" to replace.
            self._show_loaded(preloaded.result(), replacing=False)
        else:
            # Pushed (not the default screen) so `switch_screen` can later replace it.
            assert self.session.inputs is not None, "the app loads the inputs of its session"
            self.push_screen(LoadingScreen(self.session.inputs))
            self.load_comparison()
        if self.startup_notes:
            # One notification for every theme and key map problem, not one per file.
            toast(self, "\n".join(neutralize(note) for note in self.startup_notes), title="Settings", severity="warning", timeout=12)

    @work(thread=True, exclusive=True, exit_on_error=False, group="load", name="load comparison")
    def load_comparison(self) -> None:
        """Wait for the session's load and post its result or its problems."""
        future = self._preloaded or start_loading(self.session)
        try:
            data = _wait_for(future)
        except InputError as exc:
            self.post_message(ComparisonFailed([str(problem) for problem in exc.problems]))
            return
        if data is not None:
            self.post_message(ComparisonLoaded(data))

    @work(thread=True, exclusive=True, exit_on_error=False, group="intervals", name="compute intervals")
    def compute_intervals(self, data: DashboardData) -> None:
        """Fill in the intervals, verdicts and target readings the load left pending."""
        filled = _wait_for(start_intervals(data))
        if filled is not None:
            self.post_message(IntervalsComputed(filled))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Anything but an InputError is a bug in ragtui: say so plainly, still no traceback.
        if event.worker.group == "intervals" and event.state == WorkerState.ERROR:
            # The values stay on screen; what the intervals decide is said to be missing, never shown as a pass.
            from ragtui.ui.screens.dashboard import DashboardScreen

            error = event.worker.error
            toast(self, f"The intervals could not be computed: {type(error).__name__}: {error}", title="Intervals", severity="error", timeout=30)
            for screen in self.screen_stack:
                if isinstance(screen, DashboardScreen) and screen.data.comparison is self.comparison:
                    screen.intervals_failed()
        if event.worker.group == "load" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(ComparisonFailed([f"{type(error).__name__}: {error}"], internal=True))

    def on_comparison_loaded(self, message: ComparisonLoaded) -> None:
        self._show_loaded(message.data, replacing=True)

    def _show_loaded(self, data: DashboardData, *, replacing: bool) -> None:
        """The dashboard of a loaded comparison: in place of "Loading…" when `replacing`,
        else as the first screen."""
        from ragtui.ui.screens.dashboard import DashboardScreen

        self.session.show(data)
        assert data.comparison is not None
        self._read_notes(data.comparison)
        dashboard = DashboardScreen(data, self.session)
        if replacing:
            self._replace_loading_screen(dashboard)
        else:
            self.push_screen(dashboard)
        self.call_after_refresh(freeze_start_up_heap)  # what exists now is long-lived (core/heap.py)
        if self.start_question is not None:  # the question view needs no interval: open it now
            self.call_after_refresh(self.show_question, self.start_question)
        queued, self.queued_actions = self.queued_actions, []
        for action in queued:
            self.call_after_refresh(action)
        if data.intervals_pending:
            # After the dashboard's first paint: the bootstrap would otherwise slow it down.
            self.call_after_refresh(self.compute_intervals, data)
        else:
            self.start_tradeoff(data.comparison)

    def on_intervals_computed(self, message: IntervalsComputed) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        pending = self.comparison
        self.session.show(message.data)
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen) and screen.data.comparison is pending:
                screen.show_intervals(message.data)
        # The other runs are compared after this one is whole: the two cores go to A → B first.
        assert message.data.comparison is not None
        self.start_tradeoff(message.data.comparison)

    def _read_notes(self, comparison: Comparison) -> None:
        """Read the marks sidecar; unreadable lines are skipped and named, never dropped silently."""
        notes = self.session.read_notes(comparison)
        if notes.problems:
            shown = "\n".join(neutralize(str(p)) for p in notes.problems[:5])
            more = f"\n… and {len(notes.problems) - 5} more" if len(notes.problems) > 5 else ""
            toast(self, f"{len(notes.problems)} line(s) of the notes file skipped:\n{shown}{more}", title="Notes", severity="warning", timeout=12)

    def on_comparison_failed(self, message: ComparisonFailed) -> None:
        from ragtui.ui.screens.error import ErrorScreen

        self.load_problems = list(message.problems)
        self._replace_loading_screen(ErrorScreen(message.problems, internal=message.internal))

    def _replace_loading_screen(self, screen: Screen) -> None:
        # Help or the palette may be open over "Loading…": close them, so that first screen
        # itself is what gets replaced and nothing is left beneath the result.
        while not isinstance(self.screen, LoadingScreen) and len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(screen)

    # ---- several runs: the trade-off and its pairs ------------------------------------------

    def start_tradeoff(self, first: Comparison) -> None:
        """After the first pair is on screen: compare A with the other candidates."""
        session = self.session
        if session.several_runs and session.tradeoff is None and not session.tradeoff_problems:
            session.pairs[(0, 1)] = first
            self._load_tradeoff(first)

    @work(thread=True, exclusive=True, exit_on_error=False, group="tradeoff", name="load trade-off")
    def _load_tradeoff(self, first: Comparison) -> None:
        try:
            tradeoff, comparisons = self.session.compare_others(first)
        except InputError as exc:
            self.post_message(TradeoffFailed([str(problem) for problem in exc.problems]))
            return
        self.post_message(TradeoffLoaded(tradeoff, comparisons))

    def on_tradeoff_loaded(self, message: TradeoffLoaded) -> None:
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        self.session.keep_tradeoff(message.tradeoff, message.comparisons)
        for screen in self.screen_stack:
            if isinstance(screen, TradeoffScreen):
                screen.show_tradeoff(message.tradeoff)

    def on_tradeoff_failed(self, message: TradeoffFailed) -> None:
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        self.session.tradeoff_problems = list(message.problems)
        text = _not_compared(message.problems)
        toast(self, text, title="Trade-off", severity="error", timeout=12)
        for screen in self.screen_stack:
            if isinstance(screen, TradeoffScreen):
                screen.show_problem(text)

    def on_open_tradeoff(self, message: OpenTradeoff) -> None:
        """T: the trade-off view (it says so while the other runs are still loading)."""
        from ragtui.ui.screens.tradeoff import TradeoffScreen

        session = self.session
        if not session.several_runs or isinstance(self.screen, TradeoffScreen):
            return
        names = self.comparison.config.categories if self.comparison is not None else {}
        screen = TradeoffScreen(session.tradeoff, names, pair=session.current_pair)
        if session.tradeoff is None and session.tradeoff_problems:
            screen.problem = _not_compared(session.tradeoff_problems)
        self.push_screen(screen)

    def on_open_pair(self, message: OpenPair) -> None:
        """Compare run `left` (as A) with run `right` (as B) and show their dashboard."""
        left, right = message.left, message.right
        if (left, right) == self.session.current_pair:
            self.pop_screen()
            return
        assert self.session.inputs is not None
        runs = self.session.inputs.runs
        toast(self, f"Comparing {runs[left].name} with {runs[right].name}…", timeout=3)
        self._load_pair(left, right)

    @work(thread=True, exclusive=True, exit_on_error=False, group="pair", name="load pair")
    def _load_pair(self, left: int, right: int) -> None:
        try:
            data = self.session.compare_pair(left, right)
        except InputError as exc:
            self.post_message(TradeoffFailed([str(problem) for problem in exc.problems]))
            return
        self.post_message(PairLoaded(data, (left, right)))

    async def on_pair_loaded(self, message: PairLoaded) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        self.session.show(message.data, message.pair)
        # Down to the dashboard (the trade-off, help or the palette may be over it), then
        # replace it: awaited, so the old one is gone before the new one arrives.
        while not isinstance(self.screen, DashboardScreen) and len(self.screen_stack) > 2:
            await self.pop_screen()
        # An id of its own: Textual registers the new screen before it removes the old one.
        left, right = message.pair
        await self.switch_screen(DashboardScreen(message.data, self.session, id=f"dashboard-{left}-{right}"))
        assert self.session.inputs is not None
        names = [self.session.inputs.runs[i].name for i in message.pair]
        toast(self, f"Dashboard: A = {names[0]}, B = {names[1]}", timeout=4)

    # ---- the comparison's screens -----------------------------------------------------------

    def show_question(self, question_id: str) -> None:
        """Open the question view on any question, the comparison's others a step away."""
        from ragtui.ui.screens.question import QuestionScreen

        if self.comparison is None:
            return
        ids = self.comparison.status.get_column("id").to_list()
        if question_id not in ids:
            toast(self, f"no question {question_id!r} in this comparison", severity="warning", timeout=6)
            return
        self._open_gold()
        self.push_screen(QuestionScreen(self.comparison, ids, ids.index(question_id), session=self.session))

    def _once_loaded(self, what: str, action: Callable[[], object]) -> bool:
        """Whether the comparison is loaded; if not, `action` is queued and runs once it is:
        a key pressed while loading is neither refused nor dropped."""
        if self.comparison is not None:
            return True
        self.queued_actions.append(action)
        self.notify(f"{what}: as soon as the runs are loaded.", timeout=3)
        return False

    def action_jump(self) -> None:
        """`:` where no screen has its own: ask for an id, then show it."""
        from ragtui.ui.screens.menus import Prompt

        if not self._once_loaded("Jump", self.action_jump):
            return
        assert self.comparison is not None
        ids = self.comparison.status.get_column("id").to_list()
        hint = "jump to a question id (Tab completes, Enter goes, Esc cancels)"

        def go(value: str | None) -> None:
            if value:
                self.show_question(value.strip())

        self.push_screen(Prompt(":", hint, suggestions=ids), callback=go)

    # ---- the gold set, fixed from triage ----------------------------------------------

    def _open_gold(self) -> None:
        """The session's gold fixer (the gold set, its edits log, the corpus), opened once on the
        UI thread — a gold set is 50 to a few thousand questions; what could not be read is said."""
        for title, severity, text in self.session.open_gold():
            toast(self, text, title=title, severity=severity, timeout=10)

    def on_gold_edited(self, message: GoldEdited) -> None:
        self.recompute_with_gold_edits()

    @work(thread=True, exclusive=True, exit_on_error=False, group="gold", name="recompute with the gold edits")
    def recompute_with_gold_edits(self) -> None:
        """Load the comparison again: the core replays the edits log over the gold set."""
        try:
            data = _wait_for(start_loading(self.session))
        except InputError as exc:
            self.call_from_thread(toast, self, str(exc.problems[0]), title="Gold set", severity="error", timeout=10)
            return
        except Exception as exc:  # noqa: BLE001 - a bug in ragtui: said, and the screens keep the last comparison
            message = f"the comparison could not be recomputed with the gold edits: {type(exc).__name__}: {exc}"
            self.call_from_thread(toast, self, message, title="Gold set", severity="error", timeout=30)
            return
        if data is not None:
            self.post_message(GoldRecomputed(data))

    def on_gold_recomputed(self, message: GoldRecomputed) -> None:
        """Every screen of the comparison shows the recomputed one; intervals follow."""
        from ragtui.ui.screens.dashboard import DashboardScreen
        from ragtui.ui.screens.question import QuestionScreen

        data = message.data
        self.session.show(data)
        assert data.comparison is not None
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.show_recomputed(data)
            elif isinstance(screen, QuestionScreen):
                screen.use_comparison(data.comparison)
        if data.intervals_pending:
            self.compute_intervals(data)


    def open_failures(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None:
        """Push the failure list, filtered by category, failure kind and/or diff status."""
        if not self._once_loaded("Failures", lambda: self.open_failures(category=category, failure_kind=failure_kind, status=status)):
            return
        assert self.comparison is not None
        from ragtui.ui.screens.failures import FailureListScreen

        self._open_gold()
        self.push_screen(FailureListScreen(self.comparison, category=category, failure_kind=failure_kind, status=status, session=self.session))

    def on_open_failures(self, message: OpenFailures) -> None:
        self.open_failures(category=message.category, failure_kind=message.failure_kind, status=message.status)

    def action_calibration_queue(self) -> None:
        """L: the calibration queue of the run under review (B, or A alone)."""
        if not self._once_loaded("Labelling", self.action_calibration_queue):
            return
        assert self.comparison is not None
        from ragtui.ui.screens.calibration_queue import CalibrationQueueScreen

        if isinstance(self.screen, CalibrationQueueScreen):
            return
        screen = CalibrationQueueScreen.for_comparison(self.comparison, self.session)
        if screen is None:
            self.notify("Every answer of the queue is labelled.", timeout=4)
        else:
            self.push_screen(screen)

    def action_calibration(self) -> None:
        """C: the calibration screen (agreement, bias, corrected metrics per run)."""
        if not self._once_loaded("Calibration", self.action_calibration):
            return
        assert self.comparison is not None
        from ragtui.ui.screens.calibration import CalibrationScreen

        if not isinstance(self.screen, CalibrationScreen):
            self.push_screen(CalibrationScreen(self.comparison, self.session))

    # ---- keys of every screen -------------------------------------------------------------------

    def action_help(self) -> None:
        from ragtui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(current=type(self.screen).__name__, keymap=self.keymap))

    async def action_back(self) -> None:
        """Esc: back to the previous screen; the dashboard (or loading, error) is the bottom."""
        if not getattr(self.screen, "IS_ROOT", False) and len(self.screen_stack) > 2:
            self.pop_screen()

    def action_toggle_side(self) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.action_toggle_side()
                return


def _not_compared(problems: list[str]) -> str:
    return "Some runs could not be compared with A:\n" + "\n".join(neutralize(p) for p in problems)


def _wait_for(future: Future[DashboardData]) -> DashboardData | None:
    """The future's result (its exception raised), or None once the worker is cancelled (the app is closing)."""
    worker = get_current_worker()
    # Polled on `done()`, not on `result(timeout=…)`'s TimeoutError: a load that itself
    # failed with a TimeoutError (ETIMEDOUT from a network file system is one) would read
    # as "not yet", forever.
    while not future.done():
        if worker.is_cancelled:  # do not keep a closing app waiting
            return None
        wait([future], timeout=0.1)
    return future.result()
