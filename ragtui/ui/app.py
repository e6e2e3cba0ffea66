"""The Textual app: load the comparison off the UI thread, then show the dashboard.

The app owns what is shared by every screen: the loaded `Comparison`, the themes
(`themed_app.py`), several runs' trade-off (`several_runs.py`), the keys that work
everywhere (q, ?, Esc, Ctrl+P) and the way to the failure list. Loading runs off the UI
thread (harlequin's pattern, with `loader.py`'s daemon thread under a thread worker): the
screen paints "Loading…" at once, the core does its work, and a typed message brings
back the result or the problems — an `InputError` becomes an error screen listing them,
never a traceback. The dashboard first shows the values; a second worker then computes
the intervals and verdicts, and the dashboard fills them in.
"""

from __future__ import annotations

from concurrent.futures import Future, wait
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding
from textual.worker import Worker, WorkerState, get_current_worker

from ragtui.core.sanitize import neutralize
from ragtui.ui.commands import RagtuiCommands
from ragtui.ui.loader import start_intervals, start_loading
from ragtui.ui.messages import ComparisonFailed, ComparisonLoaded, IntervalsComputed
from ragtui.ui.screens.loading import LoadingScreen
from ragtui.ui.several_runs import SeveralRunsApp
from ragtui.ui.themed_app import ThemedApp
from ragtui.ui.user_config import load_keymap

if TYPE_CHECKING:
    from textual.driver import Driver

    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.triage.notes import Notes
    from ragtui.ui.models.dashboard import DashboardData


class RagtuiApp(SeveralRunsApp, ThemedApp):
    """ragtui's TUI on one comparison (A against B), a single run, or several runs (the trade-off)."""

    TITLE = "ragtui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar = SeveralRunsApp.COMMANDS | {RagtuiCommands}

    # Each binding has an id, so a user's keymap.yaml can move it (docs/ui.md).
    BINDINGS: ClassVar = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave ragtui"),
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
        inputs: Inputs,
        theme_name: str | None = None,
        *,
        preloaded: Future[DashboardData] | None = None,
        notes_path: Path | None = None,
        question: str | None = None,
        driver_class: type[Driver] | None = None,
    ) -> None:
        """Create the app; nothing is read until it runs (or `preloaded` is already reading).

        Args:
            inputs: the files to compare.
            theme_name: a bundled or user theme; unknown names fall back to the default.
            preloaded: a load already started by `launch` (`ragtui.ui.loader.start_loading`).
            notes_path: the marks sidecar (`--notes`); default: beside run B, or A alone.
            question: open the question view on this id once loaded (`--question`).
            driver_class: how to drive the terminal (`launch` gives `TerminalDriver`); else Textual's.
        """
        super().__init__(driver_class=driver_class)
        self.inputs = inputs
        self.notes_path = notes_path
        self.start_question = question
        self.notes: Notes | None = None
        self._preloaded = preloaded
        self.data: DashboardData | None = None
        self.comparison: Comparison | None = None
        # Problems that stopped loading; `launch` prints them after the screen closes.
        self.load_problems: list[str] = []
        self._init_several_runs()
        self._startup_notes: list[str] = self._setup_themes(theme_name)
        self.keymap, keymap_problems = load_keymap()
        self._startup_notes += keymap_problems
        if self.keymap:
            self.set_keymap(self.keymap)

    # ---- start-up and loading -------------------------------------------------------

    def on_mount(self) -> None:
        preloaded = self._preloaded
        if preloaded is not None and preloaded.done() and not preloaded.cancelled() and preloaded.exception() is None:
            # The load ended while Textual started (the bundled sample, a run read from the
            # cache): the dashboard is the first screen, without a "Loading…" to replace.
            self._show_loaded(preloaded.result(), replacing=False)
        else:
            # Pushed (not the default screen) so `switch_screen` can later replace it.
            self.push_screen(LoadingScreen(self.inputs))
            self.load_comparison()
        if self._startup_notes:
            # One notification for every theme and key map problem, not one per file.
            text = "\n".join(neutralize(note) for note in self._startup_notes)
            self.notify(text, title="Settings", severity="warning", timeout=12, markup=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="load", name="load comparison")
    def load_comparison(self) -> None:
        """Wait for the load (the core's `load_comparison`) and post its result or its problems."""
        from ragtui.core.errors import InputError

        future = self._preloaded or start_loading(self.inputs)
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
            self.notify(f"The intervals could not be computed: {type(error).__name__}: {neutralize(str(error))}",
                        title="Intervals", severity="error", timeout=30, markup=False)
            for screen in self.screen_stack:
                if isinstance(screen, DashboardScreen) and screen.data.comparison is self.comparison:
                    screen.intervals_failed()
        if event.worker.group == "load" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(ComparisonFailed([f"{type(error).__name__}: {error}"], internal=True))

    def on_comparison_loaded(self, message: ComparisonLoaded) -> None:
        self._show_loaded(message.data, replacing=True)

    def _show_loaded(self, data: DashboardData, *, replacing: bool) -> None:
        """The dashboard of a loaded comparison, in place of "Loading…" when `replacing`."""
        from ragtui.ui.screens.dashboard import DashboardScreen

        self.data = data
        self.comparison = data.comparison
        self._load_notes(self.comparison)
        dashboard = DashboardScreen(data, several_runs=self.several_runs)
        if replacing:
            self._replace_loading_screen(dashboard)
        else:
            self.push_screen(dashboard)
        if self.start_question is not None:  # the question view needs no interval: open it now
            self.call_after_refresh(self.show_question, self.start_question)
        if data.intervals_pending:
            # After the dashboard's first paint: the bootstrap would otherwise slow it down.
            self.call_after_refresh(self.compute_intervals, data)
        else:
            self.start_tradeoff(data.comparison)

    def on_intervals_computed(self, message: IntervalsComputed) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        pending = self.comparison
        self.data = message.data
        self.comparison = message.data.comparison
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen) and screen.data.comparison is pending:
                screen.show_intervals(message.data)
        # The other runs are compared after this one is whole: the two cores go to A → B first.
        self.start_tradeoff(message.data.comparison)

    def _load_notes(self, comparison: Comparison) -> None:
        """Read the marks sidecar; unreadable lines are skipped and named, never dropped silently."""
        from ragtui.core.triage.notes import Notes, default_notes_path

        run = comparison.b.run if comparison.b is not None else comparison.a.run
        self.notes = Notes.load(self.notes_path or default_notes_path(Path(run.path)))
        if self.notes.problems:
            shown = "\n".join(neutralize(str(p)) for p in self.notes.problems[:5])
            more = f"\n… and {len(self.notes.problems) - 5} more" if len(self.notes.problems) > 5 else ""
            self.notify(f"{len(self.notes.problems)} line(s) of the notes file skipped:\n{shown}{more}", title="Notes", severity="warning", timeout=12, markup=False)

    def show_question(self, question_id: str) -> None:
        """Open the question view on any question, the comparison's others a step away."""
        from ragtui.ui.screens.question import QuestionScreen

        if self.comparison is None:
            return
        ids = self.comparison.status.get_column("id").to_list()
        if question_id not in ids:
            self.notify(neutralize(f"no question {question_id!r} in this comparison"), severity="warning", timeout=6, markup=False)
            return
        self.push_screen(QuestionScreen(self.comparison, ids, ids.index(question_id)))

    def action_jump(self) -> None:
        """`:` where no screen has its own: ask for an id, then show it."""
        from ragtui.ui.screens.menus import Prompt

        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        ids = self.comparison.status.get_column("id").to_list()
        hint = "jump to a question id (Tab completes, Enter goes, Esc cancels)"
        self.push_screen(Prompt(":", hint, suggestions=ids), callback=lambda value: value and self.show_question(value.strip()))

    def on_comparison_failed(self, message: ComparisonFailed) -> None:
        from ragtui.ui.screens.error import ErrorScreen

        self.load_problems = list(message.problems)
        self._replace_loading_screen(ErrorScreen(message.problems, internal=message.internal))

    def _replace_loading_screen(self, screen) -> None:
        # Help or the palette may be open over "Loading…": close them, so the loading
        # screen itself is what gets replaced and nothing is left beneath the result.
        while not isinstance(self.screen, LoadingScreen) and len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(screen)

    # ---- actions shared by every screen ----------------------------------------------

    def open_failures(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None:
        """Push the failure list, filtered by category, failure kind and/or diff status."""
        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        from ragtui.ui.screens.failures import FailureListScreen

        self.push_screen(FailureListScreen(self.comparison, category=category, failure_kind=failure_kind, status=status))

    def action_calibration_queue(self) -> None:
        """L: the calibration queue of the run under review (B, or A alone)."""
        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        from ragtui.ui.screens.calibration_queue import CalibrationQueueScreen

        if isinstance(self.screen, CalibrationQueueScreen):
            return
        screen = CalibrationQueueScreen.for_comparison(self, self.comparison)
        if screen is not None:
            self.push_screen(screen)

    def action_calibration(self) -> None:
        """C: the calibration screen (agreement, bias, corrected metrics per run)."""
        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        from ragtui.ui.screens.calibration import CalibrationScreen

        if not isinstance(self.screen, CalibrationScreen):
            self.push_screen(CalibrationScreen(self.comparison))

    def action_help(self) -> None:
        from ragtui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(current=type(self.screen).__name__))

    def action_back(self) -> None:
        """Esc: back to the previous screen; the dashboard (or loading, error) is the bottom."""
        if not getattr(self.screen, "IS_ROOT", False) and len(self.screen_stack) > 2:
            self.pop_screen()

    def action_toggle_side(self) -> None:
        from ragtui.ui.screens.dashboard import DashboardScreen

        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.action_toggle_side()
                return


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
