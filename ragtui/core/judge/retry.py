"""When to retry a judge call, and how long to wait first.

Retried: 408 (timeout), 409 (conflict/lock), 429 (rate limit), every 5xx including
Anthropic's 529 "overloaded", and transport failures (timeouts, resets, refused
connections). Not retried: other 4xx — the same request would fail the same way.

The wait honours the server when it says how long: `retry-after-ms` (OpenAI-style,
milliseconds) first, then `retry-after` (seconds, or an HTTP date). Otherwise it is
exponential — base * 2**attempt, capped — times a random factor in [0.5, 1] ("equal
jitter"), so that workers rate-limited together do not come back together.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth retrying."""
    return status in RETRYABLE_STATUS or 500 <= status <= 599


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a server asks for, in seconds, or None when it does not say.

    `headers` must be case-insensitive (httpx.Headers) or use lower-case names.
    """
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and waits for one call; `rng` is injectable so tests are exact."""

    max_retries: int = 6
    base: float = 0.5
    cap: float = 30.0
    retry_after_max: float = 120.0

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """The wait before retry number `attempt` (0 for the first retry), without a server hint."""
        ceiling = min(self.cap, self.base * (2**attempt))
        factor = (rng or random).uniform(0.5, 1.0)
        return ceiling * factor

    def delay(self, attempt: int, headers: Mapping[str, str] | None = None, rng: random.Random | None = None) -> float:
        """The wait before retry `attempt`: the server's retry-after when given, else backoff.

        A server hint is followed as given (plus up to 10 % jitter, never less than asked),
        even above `cap`: the server knows its own limits. Hints above `retry_after_max`
        are the caller's to refuse (see `too_long`).
        """
        hint = retry_after_seconds(headers) if headers is not None else None
        if hint is None:
            return self.backoff(attempt, rng)
        return hint * (1.0 + 0.1 * (rng or random).random())

    def too_long(self, headers: Mapping[str, str] | None) -> float | None:
        """The server's wait when it exceeds retry_after_max (a quota, not a burst), else None."""
        hint = retry_after_seconds(headers) if headers is not None else None
        return hint if hint is not None and hint > self.retry_after_max else None
