"""What both providers' batch APIs have in common: requests, job states, results, HTTP.

A `BatchAPI` (openai.py, anthropic.py) turns judge calls into one provider's batch
wire format and back: `submit` a list of `BatchRequest` as one job, `status` of a job,
`results` of an ended job, and `find` a job whose creation was interrupted before its
id came back. The judge's own provider (providers.py) shapes each request body and
reads each reply, so a batch request is byte for byte the interactive one.

HTTP: every call goes through `BatchHTTP.send`, which retries 408/409/429/5xx and
transport failures like the interactive client (retry.py), stops at once on 401/403/404
(CallError, fatal), and redacts the key from every message. Creating a job is the one
call that must not be repeated blindly — a timeout may hide a job that was created —
so `send(..., idempotent=False)` raises `UncertainSubmission` instead of retrying a
request that may have reached the server, and the caller looks for the job first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from ragtui.core.judge.client import FATAL_STATUS, CallError
from ragtui.core.judge.providers import Completion, Provider, error_message
from ragtui.core.judge.redaction import redact, redact_headers
from ragtui.core.judge.retry import RetryPolicy, is_retryable_status
from ragtui.core.judge.settings import JudgeSettings

log = logging.getLogger("ragtui.judge")
TRANSFER_TIMEOUT = 600.0  # seconds to upload or download a job file of up to 256 MB
# A job's results: its requests' replies, a few kilobytes each, for at most 100,000 requests.
MAX_TRANSFER_BYTES = 2_000_000_000


@dataclass(frozen=True)
class Limits:
    """How much one job may hold: requests, and bytes of the submitted file or body."""

    max_requests: int
    max_bytes: int


@dataclass(frozen=True)
class BatchRequest:
    """One judge call as a batch request: its cache key is its custom id."""

    custom_id: str
    body: dict[str, Any]


@dataclass
class JobStatus:
    """Where a job stands at the provider."""

    status: str  # the provider's word: validating, in_progress, completed, ended, expired…
    ended: bool
    done: int = 0  # requests with a result (answered or failed)
    failed: int = 0
    total: int = 0
    detail: str | None = None  # why a whole job failed (validation errors), when it did
    result_refs: dict[str, Any] = field(default_factory=dict)  # where its results are (file ids, URL)


@dataclass(frozen=True)
class RequestResult:
    """The outcome of one request: a completion, or the provider's reason it has none."""

    custom_id: str
    completion: Completion | None = None
    error: str | None = None
    # The provider's refusal of a request feature (a 400's text), for Provider.adapt.
    refusal: str | None = None


class UncertainSubmission(Exception):
    """Creating a job failed in a way that does not tell whether the job exists."""


class BatchHTTP:
    """Retried, redacted HTTP calls to a provider's batch endpoints."""

    def __init__(self, settings: JudgeSettings, provider: Provider):
        self.settings = settings
        self.provider = provider
        self.policy = RetryPolicy(settings.max_retries, settings.backoff_base, settings.backoff_max, settings.retry_after_max)
        self.requests = 0
        self._client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> BatchHTTP:
        timeout = httpx.Timeout(self.settings.timeout, read=max(self.settings.timeout, TRANSFER_TIMEOUT), write=max(self.settings.timeout, TRANSFER_TIMEOUT))
        self._client = httpx.AsyncClient(timeout=timeout)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def redact(self, text: str) -> str:
        return redact(text, [self.settings.api_key])

    async def send(self, method: str, url: str, *, idempotent: bool = True, **kwargs: Any) -> httpx.Response:
        """The 2xx response to one call; raises CallError (or UncertainSubmission)."""
        assert self._client is not None, "use `async with BatchHTTP(...)`"
        headers = {**self.provider.headers(), **kwargs.pop("headers", {})}
        attempt = 0
        while True:
            log.debug("%s %s headers=%s", method, url, redact_headers(headers))
            self.requests += 1
            response_headers = None
            try:
                # One deadline for the whole exchange (httpx's is per read) and a bounded body.
                async with asyncio.timeout(max(self.settings.timeout, TRANSFER_TIMEOUT)):
                    response = await self._bounded(method, url, headers, kwargs)
            except (httpx.TransportError, TimeoutError) as exc:
                reason = "timed out" if isinstance(exc, httpx.TimeoutException | TimeoutError) else f"connection failed ({type(exc).__name__})"
                # Refused before anything was sent: the job cannot exist, retrying is safe.
                if not idempotent and not isinstance(exc, httpx.ConnectError):
                    raise UncertainSubmission(f"{method} {url}: {reason}") from None
                failure = f"{reason}: {self.redact(str(exc)) or 'no detail'}"
            else:
                status, response_headers = response.status_code, response.headers
                log.debug("HTTP %s from %s", status, url)
                if 200 <= status < 300:
                    return response
                detail = self.redact(error_message(response.text))
                if status in FATAL_STATUS:
                    raise CallError(f"HTTP {status} {FATAL_STATUS[status]} from {url}: {detail}", fatal=True)
                if not is_retryable_status(status):
                    raise CallError(f"HTTP {status} from {url}: {detail}", fatal=True)
                failure = f"HTTP {status}: {detail}"
            if attempt >= self.policy.max_retries:
                raise CallError(f"{method} {url}: {failure} (gave up after {attempt + 1} attempts; rerun to resume)")
            delay = self.policy.delay(attempt, response_headers)
            log.info("judge batch: %s; retry %d in %.2f s", failure, attempt + 1, delay)
            attempt += 1
            await asyncio.sleep(delay)


    async def _bounded(self, method: str, url: str, headers: dict[str, str], kwargs: dict[str, Any]) -> httpx.Response:
        """The response with its body read, at most MAX_TRANSFER_BYTES of it (CallError past that)."""
        assert self._client is not None
        request = self._client.build_request(method, url, headers=headers, **kwargs)
        response = await self._client.send(request, stream=True)
        try:
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_TRANSFER_BYTES:
                    raise CallError(f"{method} {url}: the reply is larger than {MAX_TRANSFER_BYTES // 1_000_000:,} MB: refused", fatal=True)
                chunks.append(chunk)
        finally:
            await response.aclose()
        # The body is decoded already: its headers must not say to decode it again.
        kept = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        return httpx.Response(response.status_code, headers=kept, content=b"".join(chunks), request=request)


class BatchAPI:
    """One provider's batch endpoints; subclasses give the wire format."""

    name = ""
    limits = Limits(1, 1)

    def __init__(self, settings: JudgeSettings, provider: Provider, http: BatchHTTP, limits: Limits | None = None):
        self.settings = settings
        self.provider = provider
        self.http = http
        if limits is not None:
            self.limits = limits

    @property
    def base(self) -> str:
        return self.settings.resolved_base_url

    def line_size(self, request: BatchRequest) -> int:
        """Bytes the request takes in a job (to split jobs under `limits.max_bytes`)."""
        raise NotImplementedError

    async def submit(self, requests: list[BatchRequest], intent: str) -> tuple[str, dict[str, Any]]:
        """Create one job; returns its id and what else to remember (input file id…)."""
        raise NotImplementedError

    async def find(self, intent: str, submitted_after: float, size: int) -> str | None:
        """The id of the job created for `intent` by an interrupted submission, or None."""
        raise NotImplementedError

    async def status(self, job_id: str) -> JobStatus:
        raise NotImplementedError

    async def results(self, job_id: str, status: JobStatus) -> list[RequestResult]:
        """Every result an ended job has (requests without one are the caller's to count)."""
        raise NotImplementedError

    def _completion(self, custom_id: str, body: Any) -> RequestResult:
        """A successful reply's body read by the judge's provider, as for an interactive call."""
        try:
            return RequestResult(custom_id, completion=self.provider.parse(body))
        except (ValueError, TypeError, AttributeError) as exc:
            return RequestResult(custom_id, error=f"unexpected reply in the batch results ({self.http.redact(str(exc))[:200]})")


def now_iso(when: float | None = None) -> str:
    """A UTC timestamp as the job file records it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
