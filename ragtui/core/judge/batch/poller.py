"""Wait for batch jobs: poll with a growing interval, report progress, survive blips.

A job takes minutes to 24 hours. The poller asks each open job's status, reports a
`BatchSnapshot` (jobs, requests done / failed, elapsed, estimated cost) after every
round, and sleeps `interval` seconds, growing by half each round up to `max_interval`.
A poll that fails after the HTTP retries (a network outage, a closed laptop lid) is
logged and polled again later: the jobs run at the provider whatever happens here.
Only a fatal error (key revoked, job not found) stops the wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragtui.core.judge.batch.api import BatchAPI, JobStatus
from ragtui.core.judge.client import CallError

log = logging.getLogger("ragtui.judge")
GROWTH = 1.5


@dataclass
class BatchSnapshot:
    """Where the open jobs stand, for the progress line."""

    jobs: int = 0
    requests: int = 0
    done: int = 0
    failed: int = 0
    elapsed: float = 0.0  # seconds since the oldest open job was submitted
    estimated_cost: float | None = 0.0  # of the open jobs, at batch prices
    statuses: dict[str, int] = field(default_factory=dict)  # provider status -> jobs


class BatchProgressSink(Protocol):
    """What the batch runner reports to while it waits (the CLI draws it on stderr)."""

    def update(self, snapshot: BatchSnapshot) -> None: ...

    def close(self) -> None: ...


def snapshot(jobs: list[dict[str, Any]], statuses: dict[str, JobStatus], now: float | None = None) -> BatchSnapshot:
    """The progress figures of `jobs` given their last known statuses."""
    now = time.time() if now is None else now
    view = BatchSnapshot(jobs=len(jobs))
    for job in jobs:
        status = statuses.get(job["intent"])
        view.requests += len(job["custom_ids"])
        view.done += status.done if status else 0
        view.failed += status.failed if status else 0
        word = status.status if status else "submitted"
        view.statuses[word] = view.statuses.get(word, 0) + 1
        cost = job.get("estimated_cost_usd")
        view.estimated_cost = None if cost is None or view.estimated_cost is None else view.estimated_cost + cost
    started = [job.get("created_ts") or now for job in jobs]
    view.elapsed = now - min(started) if started else 0.0
    return view


async def poll(
    api: BatchAPI,
    jobs: list[dict[str, Any]],
    on_ended: Callable[[dict[str, Any], JobStatus], Awaitable[None]],
    *,
    wait: bool,
    interval: float,
    max_interval: float,
    progress: BatchProgressSink | None = None,
) -> list[dict[str, Any]]:
    """Poll `jobs` until they all ended (or once, without `wait`); returns those still running.

    `on_ended(job, status)` collects a job as soon as it ends, so a long wait for the
    last job does not hold the results of the others hostage to an interruption.
    """
    running = list(jobs)
    statuses: dict[str, JobStatus] = {}
    while running:
        for job in list(running):
            try:
                status = await api.status(job["id"])
            except CallError as exc:
                if exc.fatal:
                    raise
                log.warning("judge batch: could not poll job %s (%s); trying again later", job["id"], exc)
                continue
            statuses[job["intent"]] = status
            job.update(status=status.status, done=status.done, failed=status.failed)
            if status.ended:
                await on_ended(job, status)
                running.remove(job)
        if progress is not None:
            progress.update(snapshot(jobs, statuses))
        if not running or not wait:
            break
        await asyncio.sleep(interval)
        interval = min(max_interval, interval * GROWTH)
    return running
