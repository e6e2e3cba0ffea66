"""What ragtui does with Python's garbage collector: long-lived objects are kept out of it.

A full (generation 2) collection walks every container object the process tracks, and a
process that has imported polars, numpy and Textual holds about 100,000 of them, none of
which will become garbage: 65–77 ms of CPU a walk here, 90–290 ms on a busy machine. Such a
walk stalls whatever runs on the thread that triggers it. `gc.freeze()` moves what exists
into a generation no collection walks; what is made later is collected as before.

- The app freezes its start-up heap once the first comparison is painted
  (`freeze_start_up_heap`): reading a long question's rows in a worker set off a full walk
  before the step's first paint at one `n` in four to six.
- `ragtui run` freezes what exists before its questions are asked and gives it back after
  (`earlier_objects_left_out_of_collections`): at 320 questions/s every worker stalled for
  a cycle every few thousand questions.
- A run's slice decoded by msgspec pauses collections while its records are decoded and
  made columns (`collections_paused`, loading/typed_lean.py): each list decoded is a
  tracked container, and the collections they set off walk the slice's growing heap for
  nothing (the decode of a 100,000-question run: 1.2 s of CPU with them, 0.75 s without).

Neither freeze touches a process where something froze objects already (the tests' conftest):
unfreezing would give back theirs too, and a second freeze would keep what the first
app left behind. docs/performance.md has the figures.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_start_up_heap() -> None:
    """Keep every object that exists now out of later collections, for good."""
    if gc.get_freeze_count() == 0:
        gc.freeze()


@contextmanager
def earlier_objects_left_out_of_collections() -> Iterator[None]:
    """The objects alive on entry left out of full collections until the block ends."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


_pauses = threading.Lock()
_paused = 0  # blocks inside `collections_paused`, in every thread
_was_enabled = False  # whether collections ran when the first of them started


@contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic collection until the block ends (an exception included), then as before.

    Counted across threads: two runs read side by side overlap their blocks, and the one
    that ends first must not start collections under the other, nor the last one leave
    them off.
    """
    global _paused, _was_enabled
    with _pauses:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pauses:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
