"""Start the app; kept apart so `ragtui.cli.tui` imports Textual only when it runs."""

from __future__ import annotations

import os
import stat
import sys
from concurrent.futures import Future, wait
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs
    from ragtui.ui.models.dashboard import DashboardData
    from ragtui.ui.models.session import Session

# Inputs (runs, gold set, config, labels, corpus) of at most this many bytes in all are
# loaded before Textual is imported: the bundled sample's 1.85 MB take about 0.25 s of CPU.
SMALL_LOAD_BYTES = 4_000_000


def one_blas_thread() -> None:
    """Ask numpy's BLAS for a single thread, before numpy is imported (a setting of the user's wins).

    The bootstrap's products are small ((10,000 resamples × a few dozen rows) by 4 columns):
    OpenBLAS's own threads only wait for one another on them, and spin on the core the
    screen needs. With one thread the sample's intervals took a third less CPU; each sum
    is computed by one thread either way, so the numbers are the same.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def input_bytes(inputs: Inputs, limit: int) -> int | None:
    """The size of the local files a load reads (a folder's files included), counted up to
    just past `limit`; None when one is not a plain local file or folder (an address, a FIFO)."""
    total = 0
    for path in (inputs.a, inputs.b, inputs.gold, inputs.config, inputs.labels, inputs.corpus):
        if path is None:
            continue
        if not isinstance(path, Path):
            return None
        try:
            found = path.stat()
            if stat.S_ISREG(found.st_mode):
                total += found.st_size
            elif not stat.S_ISDIR(found.st_mode):
                return None
            else:
                for entry in path.rglob("*"):
                    total += entry.stat().st_size if entry.is_file() else 0
                    if total > limit:
                        break
        except OSError:
            return None  # the load says what is wrong with it, on its screen
        if total > limit:
            break
    return total


def preload(session: Session) -> Future[DashboardData]:
    """Start loading the session's runs before Textual is imported (the app takes the future).

    A large load runs in its thread while Textual is imported and starts, so "Loading…"
    paints at once. A small one is finished first: run at the same time, the load and
    Textual's import take turns at the GIL, and the bundled sample's dashboard came with
    its values after 0.69 s of CPU instead of 0.83 s (docs/performance.md).
    """
    from ragtui.ui.loader import start_loading

    preloaded = start_loading(session)
    inputs = session.inputs
    size = input_bytes(inputs, SMALL_LOAD_BYTES) if inputs is not None else None
    if size is not None and size <= SMALL_LOAD_BYTES:
        wait([preloaded])
    return preloaded


def launch(
    inputs: Inputs, *, theme: str | None = None, mouse: bool = True, notes: Path | None = None, question: str | None = None
) -> int:
    """Run the app until it exits; returns the process exit code."""
    one_blas_thread()
    from ragtui.ui.models.session import Session

    session = Session(inputs, notes_path=notes)
    preloaded = preload(session)
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
