"""Start the app; kept apart so `ragtui.cli.tui` imports Textual only when it runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs


def has_terminal() -> bool:
    """Whether stdin and stdout are a terminal the app can draw on and read keys from."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def launch(
    inputs: Inputs, *, theme: str | None = None, mouse: bool = True, notes: Path | None = None, question: str | None = None
) -> int:
    """Run the app until it exits; returns the process exit code (2 without a terminal)."""
    if not has_terminal():
        # Textual would wait for keys that never come: say so and stop.
        print("ragtui: the app needs a terminal (stdin or stdout is not one); `ragtui report` gives the numbers without a screen", file=sys.stderr)
        return 2
    from ragtui.ui.loader import start_loading

    # The runs load while Textual is imported and starts: the two overlap.
    preloaded = start_loading(inputs)
    from ragtui.ui.app import RagtuiApp

    app = RagtuiApp(inputs, theme_name=theme, preloaded=preloaded, notes_path=notes, question=question)
    app.run(mouse=mouse)
    # The error screen is gone once the app exits: leave the problems in the terminal
    # too, in the CLI's `FILE:LINE: field: message` form.
    from ragtui.core.sanitize import neutralize

    for problem in app.load_problems:
        print(f"ragtui: {neutralize(problem)}", file=sys.stderr)
    return app.return_code or 0
