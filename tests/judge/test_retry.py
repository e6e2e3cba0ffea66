"""The retry policy: what is retried, how long it waits, and that servers are obeyed."""

from __future__ import annotations

import email.utils
import random
import time

import httpx
import pytest

from ragtui.core.judge.cache import CallCache
from ragtui.core.judge.client import CallError, JudgeClient
from ragtui.core.judge.retry import RetryPolicy, is_retryable_status, retry_after_seconds
from tests.judge.helpers import settings_for

MESSAGES = [{"role": "system", "content": "juge"}]


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retried(status):
    assert is_retryable_status(status)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status):
    assert not is_retryable_status(status)


def test_retry_after_ms_wins_over_retry_after():
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "250", "retry-after": "30"})) == 0.25


def test_retry_after_in_seconds_and_as_an_http_date():
    assert retry_after_seconds(httpx.Headers({"retry-after": "7"})) == 7.0
    now = time.time()
    date = email.utils.formatdate(now + 20, usegmt=True)
    assert 18 <= retry_after_seconds(httpx.Headers({"retry-after": date}), now=now) <= 21


def test_an_unreadable_retry_after_is_ignored():
    assert retry_after_seconds(httpx.Headers({"retry-after": "soon"})) is None
    assert retry_after_seconds(httpx.Headers({})) is None


def test_backoff_doubles_with_jitter_and_stays_under_the_cap():
    policy = RetryPolicy(base=0.5, cap=4.0)
    rng = random.Random(1)
    for attempt, ceiling in enumerate([0.5, 1.0, 2.0, 4.0, 4.0, 4.0]):
        wait = policy.backoff(attempt, rng)
        assert ceiling * 0.5 <= wait <= ceiling


def test_a_server_hint_is_followed_never_shortened():
    policy = RetryPolicy(base=0.5, cap=1.0)
    for seed in range(20):
        wait = policy.delay(0, httpx.Headers({"retry-after": "3"}), random.Random(seed))
        assert 3.0 <= wait <= 3.3


def test_a_quota_wait_longer_than_the_limit_is_refused():
    policy = RetryPolicy(retry_after_max=60)
    assert policy.too_long(httpx.Headers({"retry-after": "3600"})) == 3600
    assert policy.too_long(httpx.Headers({"retry-after": "5"})) is None


async def _complete(settings, prompt_marker: str):
    async with JudgeClient(settings, "v", CallCache(None)) as client:
        messages = MESSAGES + [{"role": "user", "content": f"<phrase n=\"1\">x</phrase> {prompt_marker}"}]
        return await client.complete(messages, 100, {}), client


def _gap_between_attempts(server, marker: str) -> float:
    """Seconds between the server's first and second receipt of a prompt (its own clock)."""
    times = [at for at, prompt in server.arrivals if marker in prompt]
    return times[1] - times[0]


async def test_a_429_with_retry_after_waits_at_least_that_long(fake_llm):
    result, client = await _complete(settings_for(fake_llm.url), "[[429s]]")
    assert _gap_between_attempts(fake_llm, "[[429s]]") >= 1.0
    assert fake_llm.attempts_for("[[429s]]") == 2 and client.stats.retries == 1
    assert not result.completion.truncated


async def test_retry_after_ms_is_honoured_in_milliseconds(fake_llm):
    # 150 ms asked (retry-after: 30 s is in the same reply and must lose).
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "150", "retry-after": "30"})) == 0.15
    await _complete(settings_for(fake_llm.url), "[[429ms]]")
    assert _gap_between_attempts(fake_llm, "[[429ms]]") >= 0.15


async def test_a_hanging_request_times_out_and_is_retried(make_fake):
    server = make_fake(hang_seconds=3)
    result, _ = await _complete(settings_for(server.url, timeout=0.3), "[[hang]]")
    # Without the timeout the first attempt would have been answered (after 3 s): a
    # second attempt with an answer means the first was abandoned and retried.
    assert server.attempts_for("[[hang]]") == 2 and result.completion.text


async def test_retries_are_bounded_and_the_last_failure_is_explained(fake_llm):
    with pytest.raises(CallError, match=r"HTTP 500.*gave up after 4 attempts"):
        await _complete(settings_for(fake_llm.url, max_retries=3), "[[always500]]")
    assert fake_llm.attempts_for("[[always500]]") == 4


async def test_an_unreachable_server_is_retried_then_stops_the_run():
    settings = settings_for("http://127.0.0.1:9", max_retries=1)  # port 9: nothing listens
    with pytest.raises(CallError, match="connection failed.*gave up after 2 attempts") as caught:
        await _complete(settings, "x")
    assert caught.value.fatal


async def test_a_bad_key_stops_everything_instead_of_retrying(fake_llm):
    with pytest.raises(CallError) as caught:
        await _complete(settings_for(fake_llm.url), "[[401echo]]")
    assert caught.value.fatal and fake_llm.attempts_for("[[401echo]]") == 1
