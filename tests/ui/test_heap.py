"""The start-up heap is kept out of the garbage collector (`ragtui/core/heap.py`): frozen
once a process, after the first dashboard is on screen. What it saves is measured in
bench/bench_triage.py --long-only (`n` with and without it, in alternate processes)."""

from __future__ import annotations

import subprocess
import sys

from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from tests.ui.conftest import wait_until_loaded


def test_the_heap_is_frozen_once_a_process_and_what_comes_later_is_not():
    program = """
import gc
from ragtui.core.heap import freeze_start_up_heap
assert gc.get_freeze_count() == 0
freeze_start_up_heap()
frozen = gc.get_freeze_count()
later = [[] for _ in range(1000)]
freeze_start_up_heap()
assert frozen > 0 and gc.get_freeze_count() == frozen, (frozen, gc.get_freeze_count())
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


async def test_the_app_freezes_its_heap_once_the_first_dashboard_is_painted(two_runs, monkeypatch):
    import ragtui.ui.app as app_module

    frozen_with: list[bool] = []
    app = RagtuiApp(Session(two_runs))
    monkeypatch.setattr(app_module, "freeze_start_up_heap", lambda: frozen_with.append(isinstance(app.screen, DashboardScreen)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert frozen_with == [True]
