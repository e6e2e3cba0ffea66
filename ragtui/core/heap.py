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

Neither touches a process where something froze objects already (the tests' conftest):
unfreezing would give back theirs too, and a second freeze would keep what the first
app left behind. docs/performance.md has the figures.
"""

from __future__ import annotations

import gc
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
