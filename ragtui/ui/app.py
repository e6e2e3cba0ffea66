"""The Textual app: load the comparison off the UI thread, then show the dashboard.

The app owns what is shared by every screen: the loaded `Comparison`, its start and
loading (`startup.py`), the themes (`themed_app.py`), several runs' trade-off
(`several_runs.py`), the keys that work everywhere (q, ?, Esc, Ctrl+P) and the way to
the failure list.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding

from ragtui.core.sanitize import neutralize
from ragtui.ui.commands import RagtuiCommands
from ragtui.ui.messages import GoldEdited, GoldRecomputed
from ragtui.ui.several_runs import SeveralRunsApp
from ragtui.ui.startup import StartupApp
from ragtui.ui.themed_app import ThemedApp
from ragtui.ui.user_config import load_keymap

if TYPE_CHECKING:
    from textual.driver import Driver

    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.gold.triage import GoldFixer
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
        kept: DashboardData | None = None,
        notes_path: Path | None = None,
        question: str | None = None,
        driver_class: type[Driver] | None = None,
    ) -> None:
        """Create the app; nothing is read until it runs (or `preloaded` is already reading).

        Args:
            inputs: the files to compare.
            theme_name: a bundled or user theme; unknown names fall back to the default.
            preloaded: a load already started by `launch` (`ragtui.ui.loader.start_loading`).
            kept: the dashboard kept from the last open of the same inputs (`dashboard_cache`):
                drawn first, and the runs loaded once it is on screen.
            notes_path: the marks sidecar (`--notes`); default: beside run B, or A alone.
            question: open the question view on this id once loaded (`--question`).
            driver_class: how to drive the terminal (`launch` gives `TerminalDriver`); else Textual's.
        """
        super().__init__(driver_class=driver_class)
        self.inputs = inputs
        self.notes_path = notes_path
        self.start_question = question
        self.notes: Notes | None = None
        self._gold_fixer: GoldFixer | None = None  # opened with the first question view (`gold_fixer`)
        self._preloaded = preloaded
        self._kept = kept
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
        self.push_screen(QuestionScreen(self.comparison, ids, ids.index(question_id), gold=self.gold_fixer()))

    def action_jump(self) -> None:
        """`:` where no screen has its own: ask for an id, then show it."""
        from ragtui.ui.screens.menus import Prompt

        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        ids = self.comparison.status.get_column("id").to_list()
        hint = "jump to a question id (Tab completes, Enter goes, Esc cancels)"
        self.push_screen(Prompt(":", hint, suggestions=ids), callback=lambda value: value and self.show_question(value.strip()))

    # ---- the gold set, fixed from triage ----------------------------------------------

    def gold_fixer(self) -> GoldFixer | None:
        """The gold set as on disk, its edits log and the corpus (`--corpus`); None without --gold.

        Opened once, on the UI thread: a gold set is 50 to a few thousand questions.
        A corpus or edits log that cannot be read is said, and the view goes on without it.
        """
        if self._gold_fixer is not None or self.inputs.gold is None or self.comparison is None:
            return self._gold_fixer
        from ragtui.core.errors import InputError
        from ragtui.core.gold.triage import GoldFixer
        from ragtui.core.loading.corpus import load_corpus
        from ragtui.core.loading.gold import load_gold

        edits_path = self.inputs.gold_edits_path()
        assert edits_path is not None  # there is a gold set
        try:
            gold = load_gold(self.inputs.gold)
        except InputError as exc:
            self.notify(neutralize(str(exc.problems[0])), title="Gold set", severity="error", timeout=10, markup=False)
            return None
        corpus = None
        if self.inputs.corpus is not None:
            try:
                corpus = load_corpus(self.inputs.corpus)
            except InputError as exc:
                self.notify(neutralize(f"corpus not read: {exc.problems[0]}"), title="Corpus", severity="warning", timeout=10, markup=False)
        self._gold_fixer = GoldFixer.open(gold, edits_path, corpus, self.comparison.config.unanswerable_categories)
        return self._gold_fixer

    def on_gold_edited(self, message: GoldEdited) -> None:
        self.recompute_with_gold_edits()

    @work(thread=True, exclusive=True, exit_on_error=False, group="gold", name="recompute with the gold edits")
    def recompute_with_gold_edits(self) -> None:
        """Load the comparison again: the core replays the edits log over the gold set."""
        from ragtui.core.errors import InputError
        from ragtui.ui.loader import start_loading
        from ragtui.ui.startup import wait_for_load

        try:
            data = wait_for_load(start_loading(self.inputs))
        except InputError as exc:
            self.call_from_thread(self.notify, neutralize(str(exc.problems[0])), title="Gold set", severity="error", timeout=10, markup=False)
            return
        except Exception as exc:  # noqa: BLE001 - a bug in ragtui: said, and the screens keep the last comparison
            message = f"the comparison could not be recomputed with the gold edits: {type(exc).__name__}: {exc}"
            self.call_from_thread(self.notify, neutralize(message), title="Gold set", severity="error", timeout=30, markup=False)
            return
        if data is not None:
            self.post_message(GoldRecomputed(data))

    def on_gold_recomputed(self, message: GoldRecomputed) -> None:
        """Every screen of the comparison shows the recomputed one; intervals follow."""
        from ragtui.ui.screens.dashboard import DashboardScreen
        from ragtui.ui.screens.question import QuestionScreen

        data = message.data
        assert data.comparison is not None
        self.data = data
        self.comparison = data.comparison
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.show_loaded(data)
            elif isinstance(screen, QuestionScreen):
                screen.use_comparison(data.comparison)
        if data.intervals_pending:
            self.compute_intervals(data)

    # ---- actions shared by every screen ----------------------------------------------

    def open_failures(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None:
        """Push the failure list, filtered by category, failure kind and/or diff status."""
        if self.comparison is None:
            self.notify("Still loading the runs.", timeout=3)
            return
        from ragtui.ui.screens.failures import FailureListScreen

        self.push_screen(FailureListScreen(self.comparison, category=category, failure_kind=failure_kind, status=status, gold=self.gold_fixer()))

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
