"""Progress of a judge run on stderr: a live line on a terminal, plain lines elsewhere.

On a terminal the line is redrawn in place (at most 10 times a second):
    judge  412/1000  41%  38.2/s  ETA 0:00:15  errors 2  retries 3  $0.0412  cached 120
`ragtui run` draws the same line with the median latency of the questions so far and
without the cache count:
    run  412/1000  41%  38.2/s  ETA 0:00:15  errors 2  p50 412 ms  retries 0  $0.0000
("cost unknown" in place of the cost when the model has no price)
In CI or when stderr is a file, the same text is printed as a new line every
`interval` seconds (and at the end), so a log stays readable. Plain stdlib: no rich.
"""

from __future__ import annotations

import bisect
import collections
import statistics
import sys
import time
from collections.abc import Callable
from typing import TextIO

from ragtui.core.vocabulary import COST_UNKNOWN, cost_text


def format_duration(seconds: float) -> str:
    """H:MM:SS."""
    seconds = max(0, int(seconds + 0.5))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def verdicts_cost(cost: float | None) -> str:
    """`cost of the verdicts $0.0412` for a summary line, or `cost unknown` (a model without a price)."""
    return COST_UNKNOWN if cost is None else f"cost of the verdicts {cost_text(cost)}"


class Progress:
    """Counts finished questions and shows rate, ETA, errors, retries and cost."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        label: str = "judge",
        show_cached: bool = True,
    ):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval if not self.tty else 0.1
        self.clock = clock
        self.label = label
        self.show_cached = show_cached
        self.latencies: list[float] = []  # ms of each question, when the caller times them (`ragtui run`)
        self.done = 0
        self.errors = 0
        self.cached = 0
        self.retries = 0
        self.cost: float | None = 0.0
        self.started = clock()
        self._last_draw = float("-inf")
        self._window: collections.deque[tuple[float, int]] = collections.deque([(self.started, 0)])
        self._closed = False

    def begin(self, total: int) -> None:
        """Start counting `total` questions now (a run knows them once it has read what is recorded)."""
        self.total = total
        self.started = self.clock()
        self._window = collections.deque([(self.started, 0)])

    def update(
        self, *, error: bool = False, cost: float | None = 0.0, cached: bool = False, retries: int | None = None, latency_ms: float | None = None
    ) -> None:
        """One more question finished (in `latency_ms`, when it was timed)."""
        if latency_ms is not None:
            bisect.insort(self.latencies, latency_ms)  # kept sorted: the median is read at each draw
        self.done += 1
        self.errors += int(error)
        self.cached += int(cached)
        self.cost = None if cost is None or self.cost is None else self.cost + cost
        if retries is not None:
            self.retries = retries
        now = self.clock()
        self._window.append((now, self.done))
        while len(self._window) > 2 and now - self._window[0][0] > 30.0:
            self._window.popleft()
        if now - self._last_draw >= self.interval or self.done == self.total:
            self._draw(now)

    def rate(self, now: float | None = None) -> float:
        """Questions per second over the last 30 s."""
        now = self.clock() if now is None else now
        first_time, first_done = self._window[0]
        elapsed = now - first_time
        return (self.done - first_done) / elapsed if elapsed > 0 else 0.0

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        rate = self.rate(now)
        share = self.done / self.total if self.total else 1.0
        remaining = self.total - self.done
        eta = format_duration(remaining / rate) if rate > 0 and remaining else ("0:00:00" if not remaining else "?")
        parts = [
            f"{self.label}  {self.done}/{self.total}  {share:4.0%}",
            f"{rate:.1f}/s",
            f"ETA {eta}",
            f"errors {self.errors}",
        ]
        if self.latencies:
            parts.append(f"p50 {statistics.median(self.latencies):.0f} ms")
        parts += [f"retries {self.retries}", cost_text(self.cost)]
        if self.show_cached:
            parts.append(f"cached {self.cached}")
        return "  ".join(parts)

    def _draw(self, now: float) -> None:
        self._last_draw = now
        if self.tty:
            self.stream.write("\r" + self.line(now) + "\x1b[K")
        else:
            self.stream.write(self.line(now) + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Finish the line (terminal) or print the last figures (plain)."""
        if self._closed:
            return
        self._closed = True
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line(now) + "\x1b[K\n")
        elif now - self._last_draw > 0 and self.done != self.total:
            self.stream.write(self.line(now) + "\n")
        self.stream.flush()
