"""Start the app; kept apart so `ragtui.cli.tui` imports Textual only when it runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs


def one_blas_thread() -> None:
    """Ask numpy's BLAS for a single thread, before numpy is imported (a setting of the user's wins).

    The bootstrap's products are small ((10,000 resamples × a few dozen rows) by 4 columns):
    OpenBLAS's own threads only wait for one another on them, and spin on the core the
    screen needs. With one thread the sample's intervals took a third less CPU; each sum
    is computed by one thread either way, so the numbers are the same.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def launch(
    inputs: Inputs, *, theme: str | None = None, mouse: bool = True, notes: Path | None = None, question: str | None = None
) -> int:
    """Run the app until it exits; returns the process exit code."""
    one_blas_thread()
    # The runs are read while Textual is imported and starts.
    from ragtui.ui.loader import start_loading
    from ragtui.ui.models.session import Session

    session = Session(inputs, notes_path=notes)
    preloaded = start_loading(session)
    from ragtui.ui.app import RagtuiApp

    driver_class = None
    if os.name == "posix":
        from ragtui.ui.terminal_driver import TerminalDriver

        driver_class = TerminalDriver
    app = RagtuiApp(session, theme_name=theme, preloaded=preloaded, driver_class=driver_class, question=question)
    app.run(mouse=mouse)
    # The error screen is gone once the app exits: leave the problems in the terminal
    # too, in the CLI's `FILE:LINE: field: message` form.
    from ragtui.core.sanitize import neutralize

    for problem in app.load_problems:
        print(f"ragtui: {neutralize(problem, keep_newlines=False)}", file=sys.stderr)  # one line, like the CLI's `say`
    return app.return_code or 0
