"""One judge call over HTTP: cache first, then bounded, retried, redacted requests.

`JudgeClient.complete(messages, max_tokens, schema)` returns a Completion — from the
disk cache when this exact call was made before, else from the provider — or raises
CallError with a reason fit to be stored in `judge.error`. It never returns a guess.

- Concurrency: at most `settings.concurrency` requests in flight (one slot each, given
  back while a request waits to be retried). Identical calls in flight at once share one
  request, so a run with duplicated questions does not pay twice either.
- Retries: see retry.py. A 429 also pauses every worker for the wait the server asked
  for, instead of letting the others hammer it into more 429s.
- Timeouts: `settings.timeout` for each request as a whole (connect to last byte), and
  a reply of at most MAX_REPLY_BYTES.
- Fatal errors (401, 403, 404, and a server that refuses connections through every
  retry): every call would fail the same way, so CallError is raised with `fatal=True`;
  a run stops at once instead of recording 1,000 errors.
- Secrets: request headers are only ever logged redacted; every error message passes
  through `redact` (servers do echo keys back in 401 bodies).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import httpx

from ragtui.core.http_clients import MAX_REPLY_BYTES, NoReply, ReplyTooLarge, RequestSlots, post_bounded
from ragtui.core.judge.cache import CallCache, call_key
from ragtui.core.judge.providers import Completion, Provider, ResponseShapeError, error_message, make_provider
from ragtui.core.judge.redaction import redact, redact_headers
from ragtui.core.judge.retry import RetryPolicy, is_retryable_status
from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.loading.bounded_json import loads

log = logging.getLogger("ragtui.judge")
# A judge's reply is a few kilobytes of JSON; anything past this is not one.
FATAL_STATUS = {401: "authentication failed", 403: "access denied", 404: "not found (check --base-url and --model)"}


class CallError(Exception):
    """A judge call failed for good; the message is safe to store and show (redacted)."""

    def __init__(self, message: str, *, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


@dataclass
class CallResult:
    completion: Completion
    cached: bool
    key: str
    batch: bool = False  # answered through a provider's batch API (priced as such)


@dataclass
class ClientStats:
    """What the client did this session (cache hits cost nothing now)."""

    requests: int = 0
    paid_calls: int = 0
    cached_calls: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


class JudgeClient:
    """Sends judge calls for one provider/model; use as `async with JudgeClient(...)`."""

    def __init__(self, settings: JudgeSettings, prompt_version: str, cache: CallCache):
        self.settings = settings
        self.prompt_version = prompt_version
        self.cache = cache
        self.provider: Provider = make_provider(settings)
        self.policy = RetryPolicy(settings.max_retries, settings.backoff_base, settings.backoff_max, settings.retry_after_max)
        self.stats = ClientStats()
        self._slots = RequestSlots(settings.concurrency, settings.timeout)
        self._pause_until = 0.0
        self._inflight: dict[str, asyncio.Future[Completion]] = {}

    async def __aenter__(self) -> JudgeClient:
        self._slots.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._slots.aclose()

    def _redact(self, text: str) -> str:
        return redact(text, [self.settings.api_key])

    async def complete(self, messages: list[dict[str, str]], max_tokens: int, schema: dict[str, Any], repeat: int = 0) -> CallResult:
        """One call (repetition `repeat` of it), from the cache when possible. Raises CallError."""
        key, cached = cached_call(self.cache, self.settings, self.prompt_version, messages, max_tokens, self.stats, repeat)
        if cached is not None:
            return cached
        shared = self._inflight.get(key)
        if shared is not None:
            return CallResult(await asyncio.shield(shared), True, key)
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            completion = await self._request(messages, max_tokens, schema)
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc if isinstance(exc, CallError) else CallError("cancelled"))
                future.exception()  # mark retrieved: a lone failure must not log "never retrieved"
            raise
        finally:
            self._inflight.pop(key, None)
        future.set_result(completion)
        self.stats.paid_calls += 1
        self.stats.tokens_in += completion.tokens_in
        self.stats.tokens_out += completion.tokens_out
        self.cache.put(
            key,
            {
                "provider": self.settings.provider,
                "model": self.settings.model,
                "prompt_version": self.prompt_version,
                "request": {"messages": messages, "max_tokens": max_tokens, **({"repeat": repeat} if repeat else {})},
                "response": completion.to_json(),
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
        )
        return CallResult(completion, False, key)

    async def _wait_for_pause(self, slept_until: float) -> None:
        """Wait out a pause another request's 429 started (once: a new 429 sets a new one)."""
        if self._pause_until > slept_until and (delay := self._pause_until - time.monotonic()) > 0:
            await asyncio.sleep(delay)

    async def _request(self, messages: list[dict[str, str]], max_tokens: int, schema: dict[str, Any]) -> Completion:
        assert self._slots.pools, "use `async with JudgeClient(...)`"
        attempt = 0
        adaptations = 0
        slept_until = 0.0
        while True:
            await self._wait_for_pause(slept_until)
            headers: httpx.Headers | None = None
            status: int | None = None
            unreachable = False
            http = await self._slots.take()
            try:
                body = self.provider.body(messages, max_tokens, schema)
                request_headers = self.provider.headers()
                log.debug("POST %s headers=%s", self.provider.url, redact_headers(request_headers))
                self.stats.requests += 1
                started = time.monotonic()
                try:
                    status, headers, raw = await post_bounded(
                        http, self.provider.url, body, request_headers, timeout=self.settings.timeout, redact=self._redact, limit=MAX_REPLY_BYTES
                    )
                except NoReply as exc:
                    failure, unreachable = str(exc), exc.unreachable
                except ReplyTooLarge as exc:
                    raise CallError(str(exc)) from None
                else:
                    log.debug("HTTP %s from %s in %.2f s", status, self.provider.url, time.monotonic() - started)
                    text = raw.decode("utf-8", errors="replace")
                    if 200 <= status < 300:
                        try:
                            return self.provider.parse(loads(raw))
                        except (ValueError, ResponseShapeError) as exc:
                            failure = f"unexpected reply from the server ({self._redact(str(exc))[:200]})"
                    else:
                        if status == 400 and adaptations < 6 and (change := self.provider.adapt(status, text)):
                            adaptations += 1
                            log.warning("judge: %s", change)
                            continue  # the finally below gives the slot back
                        detail = self._redact(error_message(text))
                        if status in FATAL_STATUS:
                            raise CallError(f"HTTP {status} {FATAL_STATUS[status]}: {detail}", fatal=True)
                        if not is_retryable_status(status):
                            raise CallError(f"HTTP {status}: {detail}")
                        failure = f"HTTP {status}: {detail}"
            finally:
                self._slots.give_back(http)
            if attempt >= self.policy.max_retries:
                # A server that cannot be reached at all fails every question the same way.
                where = f" to {self.provider.url}" if unreachable else ""
                raise CallError(f"{failure}{where} (gave up after {attempt + 1} attempts; rerun to resume)", fatal=unreachable)
            too_long = self.policy.too_long(headers)
            if too_long is not None:
                raise CallError(f"{failure}: the server asks to wait {too_long:.0f} s, more than {self.policy.retry_after_max:g} s; rerun later to resume")
            delay = self.policy.delay(attempt, headers)
            if status in (429, 529):
                # Rate limited or overloaded: everyone waits, not only this request.
                self._pause_until = max(self._pause_until, time.monotonic() + delay)
            log.info("judge: %s; retry %d in %.2f s", failure, attempt + 1, delay)
            self.stats.retries += 1
            attempt += 1
            slept_until = time.monotonic() + delay
            await asyncio.sleep(delay)


def cached_call(
    cache: CallCache,
    settings: JudgeSettings,
    prompt_version: str,
    messages: list[dict[str, str]],
    max_tokens: int,
    stats: ClientStats,
    repeat: int = 0,
) -> tuple[str, CallResult | None]:
    """A call's cache key, and its answer when the cache already holds it (counted as cached).

    The interactive client and the batch call source both start every call here, so the
    two key and replay a call the same way.
    """
    key = call_key(settings.provider, settings.model, prompt_version, messages, max_tokens, repeat)
    entry = cache.get(key)
    if entry is None:
        return key, None
    stats.cached_calls += 1
    return key, CallResult(Completion.from_json(entry["response"]), True, key, batch=bool(entry.get("batch")))
