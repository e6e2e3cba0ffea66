"""Shown instead of a traceback when the inputs cannot be used.

Each problem names the file, the line and the field (the core's `Problem`), so the
user can fix the file. `q` leaves with exit code 2 (unreadable input, as the CLI).
Problems quote the files, so every line goes through `safe`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.widgets.key_footer import KeyFooter

INPUT_ERROR_CODE, INTERNAL_ERROR_CODE = 2, 1


class ErrorScreen(Screen):
    """The problems, one per line, and how to go on."""

    IS_ROOT = True  # Esc does not leave it (RagtuiApp.action_back)

    BINDINGS = [Binding("q", "leave", "Quit", id="error.quit")]

    DEFAULT_CSS = """
    ErrorScreen {
        & > #error-body { padding: 1 2; }
        & #error-title { color: $error; text-style: bold; margin-bottom: 1; }
        & #problems { height: auto; max-height: 1fr; border-left: thick $error; padding: 0 1; }
        & #error-hint { margin-top: 1; color: $text-muted; }
    }
    """

    def __init__(self, problems: list[str], *, internal: bool = False) -> None:
        super().__init__(id="error")
        self.problems = problems
        self.internal = internal

    def compose(self) -> ComposeResult:
        if self.internal:
            title = "✗ ragtui failed while loading (a bug in ragtui, not in your files)"
            hint = "Please report it with the message above. Press q to quit."
        else:
            count = len(self.problems)
            title = f"✗ ragtui cannot open these files: {count} problem{'s' if count != 1 else ''}"
            hint = "Fix the files (`ragtui validate FILE` lists every problem) and start ragtui again. Press q to quit."
        with Vertical(id="error-body"):
            yield Static(Content(title), id="error-title")
            with VerticalScroll(id="problems"):
                for text in self.problems:
                    yield Static(join(Content.styled("• ", "bold"), safe(text)), classes="problem")
            yield Static(Content(hint), id="error-hint")
        yield KeyFooter()

    def action_leave(self) -> None:
        self.app.exit(return_code=INTERNAL_ERROR_CODE if self.internal else INPUT_ERROR_CODE)
