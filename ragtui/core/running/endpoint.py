"""A system behind an HTTP endpoint: one POST per question, with the judge's retry policy.

Request `{"id", "question", "k"}` as JSON; reply `{"passages": [{"id", "text", "score"?}],
"answer"}` (`retrieved` accepted for `passages`, usage fields optional). Other field
names come from ragtui.yaml's `run.endpoint.fields` (ragtui's name → the service's).

Retried with the judge's policy (`ragtui.core.judge.retry`): 408, 409, 429, every 5xx,
timeouts and broken connections, waiting what the server asks (`retry-after`) or an
exponential backoff with jitter. Not retried: other 4xx (the same request fails the
same way: 404 for a question the service does not know) and a 2xx whose body is not the
reply asked for. A failure that outlives its retries is that question's system error. A
server refusing connections through every retry stops the run (`SystemStopped`):
every other question would fail the same way. Each attempt has one deadline (`--timeout`)
for the whole exchange, and a reply is read up to `MAX_REPLY_BYTES` then refused, not
retried, as the judge's are.

Header values (`Authorization: env:TOKEN`) live only in the request: every message that
could echo them is redacted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from ragtui.core.http_clients import NoReply, ReplyTooLarge, RequestSlots, post_bounded
from ragtui.core.judge.providers import error_message
from ragtui.core.judge.redaction import redact
from ragtui.core.judge.retry import RetryPolicy, is_retryable_status
from ragtui.core.loading.bounded_json import loads
from ragtui.core.running.answers import ShapeError, SystemAnswer, SystemFailure, SystemStopped, system_answer_from

log = logging.getLogger("ragtui.run")
REQUEST_FIELDS = ("id", "question", "k")


def shown_url(url: str) -> str:
    """The address without credentials or query string: what the run's metadata keeps."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class EndpointSystem:
    """POSTs each question to `url`; use as `async with EndpointSystem(...) as system`."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        fields: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        policy: RetryPolicy | None = None,
        concurrency: int = 4,
    ):
        self.url = url
        self.headers = dict(headers or {})
        self.fields = dict(fields or {})
        self.timeout = timeout
        self.policy = policy or RetryPolicy()
        self.concurrency = concurrency
        self.retries = 0
        self._slots = RequestSlots(concurrency, timeout, self.headers)

    @property
    def description(self) -> str:
        return f"endpoint {shown_url(self.url)}"

    @property
    def sources(self) -> list[Any]:
        return []

    async def __aenter__(self) -> EndpointSystem:
        self._slots.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._slots.aclose()

    def _redact(self, text: str) -> str:
        return redact(text, self.headers.values())

    def _body(self, question_id: str, question: str, k: int) -> dict[str, Any]:
        values = {"id": question_id, "question": question, "k": k}
        return {self.fields.get(name, name): values[name] for name in REQUEST_FIELDS}

    async def ask(self, question_id: str, question: str, k: int) -> SystemAnswer:
        """One question. Raises SystemFailure, or SystemStopped when the server cannot be reached."""
        assert self._slots.pools, "use `async with EndpointSystem(...)`"
        body = self._body(question_id, question, k)
        attempt = 0
        while True:
            headers: httpx.Headers | None = None
            unreachable = False
            client = await self._slots.take()
            try:
                status, headers, raw = await post_bounded(client, self.url, body, timeout=self.timeout, redact=self._redact)
            except NoReply as exc:
                failure, unreachable = str(exc), exc.unreachable
            except ReplyTooLarge as exc:
                raise SystemFailure(str(exc)) from None
            else:
                if 200 <= status < 300:
                    return self._answer(raw)
                detail = self._redact(error_message(raw.decode("utf-8", errors="replace")))
                failure = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
                if not is_retryable_status(status):
                    raise SystemFailure(failure)
            finally:
                self._slots.give_back(client)
            if attempt >= self.policy.max_retries:
                tries = f"gave up after {attempt + 1} attempts"
                if unreachable:
                    raise SystemStopped(f"{failure} to {shown_url(self.url)} ({tries})")
                raise SystemFailure(f"{failure} ({tries})")
            too_long = self.policy.too_long(headers)
            if too_long is not None:
                raise SystemFailure(f"{failure}: the server asks to wait {too_long:.0f} s, more than {self.policy.retry_after_max:g} s")
            delay = self.policy.delay(attempt, headers)
            log.info("run: %s on %s; retry %d in %.2f s", failure, question_id, attempt + 1, delay)
            self.retries += 1
            attempt += 1
            await asyncio.sleep(delay)

    def _answer(self, raw: bytes) -> SystemAnswer:
        try:
            data = loads(raw)  # bounded: depth, number size, lone surrogates
        except ValueError as exc:
            raise SystemFailure(f"malformed JSON in the reply: {exc}") from None
        try:
            answer = system_answer_from(data, "reply", self.fields)
        except ShapeError as exc:
            raise SystemFailure(f"unexpected reply: {self._redact(str(exc))}") from None
        return answer


# ragtui's names a service may call otherwise (ragtui.yaml: run: endpoint: {passages: docs, …}).
MAPPABLE_FIELDS = ("id", "question", "k", "passages", "answer", "passage_id", "text", "score", "tokens_in", "tokens_out", "cost_usd")


def fields_from_config(section: Any, where: str) -> dict[str, str]:
    """`run.endpoint` of ragtui.yaml: ragtui's field name → the service's. Raises InputError."""
    from ragtui.core.errors import InputError, problem

    if section is None:
        return {}
    if not isinstance(section, Mapping):
        raise InputError(problem(where, None, "run.endpoint", f"expected a mapping of field names ({', '.join(MAPPABLE_FIELDS)})"))
    fields = {}
    for name, value in section.items():
        if name not in MAPPABLE_FIELDS:
            raise InputError(problem(where, None, f"run.endpoint.{name}", f"unknown field: expected one of {', '.join(MAPPABLE_FIELDS)}"))
        if not isinstance(value, str) or not value:
            raise InputError(problem(where, None, f"run.endpoint.{name}", f"expected the service's field name, found {value!r}"))
        fields[str(name)] = value
    return fields


def resolve_headers(specs: list[str], environ: Mapping[str, str]) -> dict[str, str]:
    """`--header 'NAME: VALUE'` options as headers; `env:VAR` in a value is read from the environment.

    `Authorization: env:TOKEN` and `Authorization: Bearer env:TOKEN` both work, so the
    secret is in neither the command line nor any file. Raises InputError.
    """
    from ragtui.core.errors import InputError, problem

    headers = {}
    for spec in specs:
        name, sep, value = spec.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not name or any(c.isspace() for c in name):
            raise InputError(problem("--header", None, name or None, "expected 'Name: value' (value may be env:VARIABLE)"))
        words = []
        for word in value.split(" "):
            if word.startswith("env:"):
                variable = word[4:]
                if variable not in environ:
                    raise InputError(problem("--header", None, name, f"the environment variable {variable} is not set"))
                word = environ[variable]
            words.append(word)
        headers[name] = " ".join(words)
    return headers
