"""Load a comparison in a daemon thread, so the screen never waits and quitting never hangs.

Textual's thread workers run in asyncio's default executor, whose threads the process
waits for at exit: pressing q during a 100,000-question load would hang until it ends.
The heavy work therefore runs in a daemon thread behind a `Future`; the app's worker
only polls that future (and stops when cancelled). `launch` starts the load before it
imports Textual: a large one is read while Textual is imported, a small one is finished
first (`launch.preload`).

The load stops at the values: the bootstrap intervals (and the verdicts and target
readings they decide) are most of the comparison's time on a small run, so they are
computed afterwards, in a second daemon thread (`start_intervals`), while the dashboard
already shows the values and says the intervals are being computed.

A daemon thread still inside numpy or polars when the interpreter shuts down is stopped
by `pthread_exit` as it takes the GIL back, and unwinding through their C++ frames
aborts the process (exit -6, "terminate called without an active exception"). So
`busy()` tells `launch` whether one of these threads is still working: if so, the app
ends the process without the interpreter's shutdown.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ragtui.ui.models.dashboard import DashboardData
    from ragtui.ui.models.session import Session

T = TypeVar("T")


def _prepare(session: Session) -> DashboardData:
    """What `start_loading` runs in its thread (tests hold or break it here)."""
    return session.load_values()


def fill_intervals(data: DashboardData) -> DashboardData:
    """What `start_intervals` runs in its thread (tests hold or break it here)."""
    from ragtui.ui.models.session import Session

    return Session.fill_intervals(data)


_threads: list[threading.Thread] = []


def busy() -> bool:
    """Whether a load or interval thread started here is still running."""
    return any(thread.is_alive() for thread in _threads)


def _in_daemon_thread(work: Callable[[], T], name: str) -> Future[T]:
    future: Future[T] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(work())
        except BaseException as exc:  # handed to whoever waits on the future
            future.set_exception(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    _threads[:] = [*(alive for alive in _threads if alive.is_alive()), thread]
    thread.start()
    return future


def start_loading(session: Session) -> Future[DashboardData]:
    """Begin reading, measuring and comparing the session's runs; the future holds the result or the error.

    The core (polars, numpy, yaml and ragtui's own modules) is imported here, before the
    thread starts: imports hold the GIL, so the load's imports and the caller's Textual
    import, run at once, took longer than one after the other (the bundled sample's first
    paint 1.44 s against 1.18 s, docs/performance.md), while the load's polars work,
    which releases the GIL, still overlaps Textual's import.
    """
    import ragtui.core.session  # noqa: F401 (imported for its cost, here)
    import ragtui.ui.models.dashboard  # noqa: F401

    return _in_daemon_thread(lambda: _prepare(session), "ragtui-load")


def start_intervals(data: DashboardData) -> Future[DashboardData]:
    """Begin computing the intervals and verdicts `start_loading` left pending."""
    return _in_daemon_thread(lambda: fill_intervals(data), "ragtui-intervals")
