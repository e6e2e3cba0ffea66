"""What the app does with Python's garbage collector: the start-up heap is kept out of it.

A full (generation 2) collection walks every container object the process tracks. Once
the first comparison is on screen that is about 100,000 of them — modules, Textual, the
dashboard — none of which will become garbage, and each full collection walked them all:
65–77 ms of CPU here, 90–290 ms on the UI thread of a busy machine. Reading a long
question's rows in a worker (about 10,000 containers a run for a 5,000-sentence answer)
sets one off before the step's first paint at one `n` in four to six. `gc.freeze()` moves
what exists then into a generation no collection walks; what the session makes later is
collected as before. docs/performance.md has the figures (bench/bench_triage.py --long-only).
"""

from __future__ import annotations

import gc


def freeze_start_up_heap() -> None:
    """Keep every object that exists now out of later collections — once a process, and
    not where something froze objects already (the tests' conftest): a second freeze would
    keep what the first app left behind."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
