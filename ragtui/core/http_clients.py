"""What every ragtui HTTP client shares: httpcore without its slow `sniffio` probe,
request slots over small connection pools (`RequestSlots`), and a POST whose reply is read
up to a size (`post_bounded`).

httpcore 1.0 tries `import sniffio` several times per request to tell trio from
asyncio. Recent anyio no longer installs sniffio, and a failed import rescans sys.path
every time: about 1 ms of CPU per request, a tenth of the judge's throughput at
concurrency 16. A None entry makes the import fail at once; httpcore then assumes
asyncio, exactly as it does on the slow path.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Callable

import httpx

if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]


POOL_SIZE = 4  # connections per httpx pool (see RequestSlots)
MAX_REPLY_BYTES = 16_000_000  # a judge's or a RAG service's reply; far above any real one


class ReplyTooLarge(Exception):
    """A reply longer than its bound (after decompression): refused, not retried."""


class NoReply(Exception):
    """The exchange ended without a reply: its deadline passed or the connection failed.

    `unreachable`: nothing answered the connection (the service is down, not slow).
    """

    def __init__(self, message: str, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


async def post_bounded(
    http: httpx.AsyncClient,
    url: str,
    body: object,
    headers: dict[str, str] | None = None,
    *,
    timeout: float,
    redact: Callable[[str], str],
    limit: int = MAX_REPLY_BYTES,
) -> tuple[int, httpx.Headers, bytes]:
    """(status, reply headers, body) of one POST of `body` as JSON, the body read up to `limit` bytes.

    One deadline, `timeout`, for the whole exchange: httpx's own timeout is per read, and a
    server sending a byte a second never trips it. Raises NoReply (its message passed
    through `redact`, which removes the caller's secrets) or ReplyTooLarge.
    """
    try:
        async with asyncio.timeout(timeout):
            return await _post(http, url, body, headers, limit)
    except (TimeoutError, httpx.TimeoutException):
        raise NoReply(f"timed out after {timeout:g} s") from None
    except httpx.TransportError as exc:
        detail = redact(str(exc)) or "no detail"
        raise NoReply(f"connection failed ({type(exc).__name__}: {detail})", unreachable=isinstance(exc, httpx.ConnectError)) from None


async def _post(
    http: httpx.AsyncClient, url: str, body: object, headers: dict[str, str] | None, limit: int
) -> tuple[int, httpx.Headers, bytes]:
    async with http.stream("POST", url, json=body, headers=headers) as response:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise ReplyTooLarge(f"the server's reply is larger than {limit // 1_000_000} MB: refused")
            chunks.append(chunk)
        return response.status_code, response.headers, b"".join(chunks)


class RequestSlots:
    """At most `concurrency` requests in flight, spread over a few small connection pools.

    One slot per request allowed in flight, each bound to one pool: taking a slot is the
    concurrency bound. httpcore rescans its whole pool for every request it places
    (O(connections) per step, with a getpeername() per idle connection): pools of at most
    POOL_SIZE connections halve the client's CPU per request at concurrency 16. Open
    with `open()` inside the event loop, close with `aclose()`.
    """

    def __init__(self, concurrency: int, timeout: float, headers: dict[str, str] | None = None):
        self.concurrency = concurrency
        self.timeout = timeout
        self.headers = headers or {}
        self.pools: list[httpx.AsyncClient] = []
        self._slots: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()

    def open(self) -> None:
        if self.pools:
            return
        count = -(-self.concurrency // POOL_SIZE)
        size = -(-self.concurrency // count)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        # One TLS context for every pool: loading the CA certificates costs ~20 ms a context.
        tls = httpx.create_ssl_context()
        self.pools = [
            httpx.AsyncClient(timeout=httpx.Timeout(self.timeout), limits=limits, headers=self.headers, verify=tls) for _ in range(count)
        ]
        for slot in range(self.concurrency):
            self._slots.put_nowait(self.pools[slot % count])

    async def take(self) -> httpx.AsyncClient:
        """A pool to send one request with; give it back with `give_back`."""
        return await self._slots.get()

    def give_back(self, pool: httpx.AsyncClient) -> None:
        self._slots.put_nowait(pool)

    async def aclose(self) -> None:
        pools, self.pools = self.pools, []
        for pool in pools:
            await pool.aclose()
