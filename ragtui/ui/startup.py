"""The app's start: the kept dashboard or "Loading…", the load, the intervals, and the
dashboard they lead to.

Loading runs off the UI thread (harlequin's pattern, with `loader.py`'s daemon thread
under a thread worker): the screen paints "Loading…" at once, the core does its work, and
a typed message brings back the result or the problems — an `InputError` becomes an error
screen listing them, never a traceback. A load that ended before the app mounted opens
straight on the dashboard; inputs opened before draw their kept dashboard first
(`models/dashboard_cache.py`) and load after its paint. The dashboard first shows the
values; a second worker then computes the intervals and verdicts, and it fills them in.
"""

from __future__ import annotations

from concurrent.futures import Future, wait
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.worker import Worker, WorkerState, get_current_worker

from ragtui.core.sanitize import neutralize
from ragtui.ui.loader import start_intervals, start_loading
from ragtui.ui.messages import ComparisonFailed, ComparisonLoaded, DashboardPainted, IntervalsComputed
from ragtui.ui.screens.loading import LoadingScreen

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison
    from ragtui.ui.models.dashboard import DashboardData


class StartupApp(App[int]):
    """Mixed into `RagtuiApp`, whose `__init__` sets what this reads: `inputs`, `_preloaded`,
    `_kept`, `_startup_notes`, `data`, `comparison`, `notes_path`, `load_problems`, `start_question`."""

    _load_started = False  # with a kept dashboard, the load waits for its paint

    def on_mount(self) -> None:
        preloaded = self._preloaded
        if self._kept is not None:
            # The same inputs were opened before: their dashboard first, the load after its
            # paint (before it, the load's imports and queries would hold up the drawing).
            from ragtui.ui.screens.dashboard import DashboardScreen

            self.data = self._kept
            self.push_screen(DashboardScreen(self._kept, several_runs=self.several_runs))
        elif preloaded is not None and preloaded.done() and not preloaded.cancelled() and preloaded.exception() is None:
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
            data = wait_for_load(future)
        except InputError as exc:
            self.post_message(ComparisonFailed([str(problem) for problem in exc.problems]))
            return
        if data is not None:
            self.post_message(ComparisonLoaded(data))

    @work(thread=True, exclusive=True, exit_on_error=False, group="intervals", name="compute intervals")
    def compute_intervals(self, data: DashboardData) -> None:
        """Fill in the intervals, verdicts and target readings the load left pending."""
        filled = wait_for_load(start_intervals(data))
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

    def on_dashboard_painted(self, message: DashboardPainted) -> None:
        if self._kept is not None and self.comparison is None and not self._load_started:
            self._load_started = True
            self.load_comparison()

    def on_comparison_loaded(self, message: ComparisonLoaded) -> None:
        self._show_loaded(message.data, replacing=True)

    def _show_loaded(self, data: DashboardData, *, replacing: bool) -> None:
        """The dashboard of a loaded comparison: over the kept copy when one is shown, else in
        place of "Loading…" when `replacing`, else as the first screen."""
        from ragtui.ui.screens.dashboard import DashboardScreen

        assert data.comparison is not None, "a load gives its comparison"
        self.data = data
        self.comparison = data.comparison
        self._load_notes(self.comparison)
        kept = [screen for screen in self.screen_stack if isinstance(screen, DashboardScreen) and screen.data.comparison is None]
        if kept:
            kept[0].show_loaded(data)
        elif replacing:
            self._replace_loading_screen(DashboardScreen(data, several_runs=self.several_runs))
        else:
            self.push_screen(DashboardScreen(data, several_runs=self.several_runs))
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

    def on_comparison_failed(self, message: ComparisonFailed) -> None:
        from ragtui.ui.screens.error import ErrorScreen

        self.load_problems = list(message.problems)
        self._replace_loading_screen(ErrorScreen(message.problems, internal=message.internal))

    def _replace_loading_screen(self, screen) -> None:
        # Help or the palette may be open over "Loading…" (or over a kept dashboard whose
        # load failed): close them, so that first screen itself is what gets replaced and
        # nothing is left beneath the result.
        while not isinstance(self.screen, LoadingScreen) and len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(screen)


def wait_for_load(future: Future[DashboardData]) -> DashboardData | None:
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
