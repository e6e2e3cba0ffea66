"""Workers over a queue, as the judge and `ragtui run` use them: the first failure stops all.

`run_workers(work, count)` starts `count` tasks running `work` (each pulls items from a
queue of its caller's until it is empty: no task per item, so 100,000 questions do not
make 100,000 tasks), waits until all end or one raises, cancels the rest and waits for
them (their `finally` blocks run: a cache write or a flushed line is never cut), then
raises the first exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


async def run_workers(work: Callable[[], Coroutine[Any, Any, None]], count: int) -> None:
    """Run `count` copies of `work` to the end, or until one raises (re-raised here)."""
    tasks = [asyncio.create_task(work()) for _ in range(count)]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            raise error
