"""Load a comparison in a daemon thread, so the screen never waits and quitting never hangs.

Textual's thread workers run in asyncio's default executor, whose threads the process
waits for at exit: pressing q during a 100,000-question load would hang until it ends.
The heavy work therefore runs in a daemon thread behind a `Future`; the app's worker
only polls that future (and stops when cancelled). `launch` starts the load before it
even imports Textual, so the two overlap.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs
    from ragtui.ui.models.dashboard import DashboardData


def _prepare(inputs: Inputs) -> DashboardData:
    # Looked up at call time (not imported at the top): the core loads in this thread.
    from ragtui.core import session
    from ragtui.ui.models.dashboard import build_dashboard_data

    return build_dashboard_data(session.load_comparison(inputs))


def start_loading(inputs: Inputs) -> Future[DashboardData]:
    """Begin reading, measuring and comparing the runs; the future holds the result or the error."""
    future: Future[DashboardData] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(_prepare(inputs))
        except BaseException as exc:  # handed to whoever waits on the future
            future.set_exception(exc)

    threading.Thread(target=run, name="ragtui-load", daemon=True).start()
    return future
