"""What shows while the loading worker reads and compares the runs.

Words, not a spinner: "Loading a.jsonl and b.jsonl… 12 s". The elapsed time ticks once
a second, which says the app is alive on a 100,000-question load without redrawing
sixteen times a second while the loader needs the CPU.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:  # the core (polars, numpy) loads in the worker, after the first paint
    from ragtui.core.loading.inputs import Inputs


class LoadingScreen(Screen):
    """Says what is loading and for how long."""

    IS_ROOT = True  # Esc does not leave it (RagtuiApp.action_back)

    DEFAULT_CSS = """
    LoadingScreen {
        align: center middle;
        & > Vertical { height: auto; width: 100%; }
        & Static { width: 100%; text-align: center; }
        & #loading-what { text-style: bold; }
    }
    """

    def __init__(self, inputs: Inputs) -> None:
        super().__init__(id="loading")
        self.inputs = inputs
        self._started = time.monotonic()

    def compose(self) -> ComposeResult:
        names = [path.name for path in (self.inputs.a, self.inputs.b) if path is not None]
        files = join(*[part for i, name in enumerate(names) for part in ((" and " if i else ""), safe(name, one_line=True))])
        with Vertical():
            yield Static(join("Loading ", files, "…"), id="loading-what")
            yield Static(Content.styled("Reading the runs, measuring each question, comparing A with B.", "dim"))
            yield Static(Content(""), id="loading-elapsed")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        seconds = round(time.monotonic() - self._started)
        self.query_one("#loading-elapsed", Static).update(Content.styled(f"{seconds} s", "dim"))
