"""The Textual app: load the comparison off the UI thread, then show the dashboard.

The app owns what is shared by every screen: the loaded `Comparison`, its start and
loading (`startup.py`), the themes (`themed_app.py`), several runs' trade-off
(`several_runs.py`), the keys that work everywhere (q, ?, Esc, Ctrl+P) and the way to
the failure list.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding

from ragtui.core.sanitize import neutralize
from ragtui.ui.commands import RagtuiCommands
from ragtui.ui.several_runs import SeveralRunsApp
from ragtui.ui.startup import StartupApp
from ragtui.ui.themed_app import ThemedApp
from ragtui.ui.user_config import load_keymap

if TYPE_CHECKING:
    from textual.driver import Driver

    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.triage.notes import Notes
    from ragtui.ui.models.dashboard import DashboardData


class RagtuiApp(StartupApp, SeveralRunsApp, ThemedApp):
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
        # Keys pressed while loading that need the comparison: run, in order, once it is loaded.
        self.queued_actions: list[Callable[[], object]] = []
        self._init_several_runs()
        self._startup_notes: list[str] = self._setup_themes(theme_name)
        self.keymap, keymap_problems = load_keymap()
        self._startup_notes += keymap_problems
        if self.keymap:
            self.set_keymap(self.keymap)

    # ---- the comparison, once loaded -----------------------------------------------

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

        if not self._once_loaded("Jump", self.action_jump):
            return
        assert self.comparison is not None
        ids = self.comparison.status.get_column("id").to_list()
        hint = "jump to a question id (Tab completes, Enter goes, Esc cancels)"
        self.push_screen(Prompt(":", hint, suggestions=ids), callback=lambda value: value and self.show_question(value.strip()))

    def _once_loaded(self, what: str, action: Callable[[], object]) -> bool:
        """Whether the comparison is loaded; if not, `action` is queued and runs once it is:
        a key pressed while loading is neither refused nor dropped."""
        if self.comparison is not None:
            return True
        self.queued_actions.append(action)
        self.notify(f"{what}: as soon as the runs are loaded.", timeout=3)
        return False

    # ---- actions shared by every screen ----------------------------------------------

    def open_failures(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None:
        """Push the failure list, filtered by category, failure kind and/or diff status."""
        if not self._once_loaded("Failures", lambda: self.open_failures(category=category, failure_kind=failure_kind, status=status)):
            return
        assert self.comparison is not None
        from ragtui.ui.screens.failures import FailureListScreen

        self.push_screen(FailureListScreen(self.comparison, category=category, failure_kind=failure_kind, status=status))

    def action_calibration_queue(self) -> None:
        """L: the calibration queue of the run under review (B, or A alone)."""
        if not self._once_loaded("Labelling", self.action_calibration_queue):
            return
        assert self.comparison is not None
        from ragtui.ui.screens.calibration_queue import CalibrationQueueScreen

        if isinstance(self.screen, CalibrationQueueScreen):
            return
        screen = CalibrationQueueScreen.for_comparison(self, self.comparison)
        if screen is not None:
            self.push_screen(screen)

    def action_calibration(self) -> None:
        """C: the calibration screen (agreement, bias, corrected metrics per run)."""
        if not self._once_loaded("Calibration", self.action_calibration):
            return
        assert self.comparison is not None
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
