"""What every ragtui HTTP client shares: httpcore without its slow `sniffio` probe,
request slots over small connection pools (`RequestSlots`, `ConnectionPool`), and a POST
whose reply is read up to a size (`post_bounded`).

httpx builds every request and reads every reply (headers, cookies, timeouts,
decompression, its exceptions). Where the environment names no proxy, a pool hands the
request straight to its own httpx transport on ragtui's asyncio network backend
(`asyncio_network`): about 0.6 ms of CPU per request instead of about 1 ms through
`AsyncClient.send` on anyio, which at 320 requests/s is the difference between the
client keeping up and replies queueing behind each other. Where a proxy variable is set
(`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, and `NO_PROXY` is not `*`), every request goes
through httpx's `AsyncClient`, which applies them (and `NO_PROXY`) as it always did.

httpcore 1.0 tries `import sniffio` several times per request to tell trio from
asyncio. Recent anyio no longer installs sniffio, and a failed import rescans sys.path
every time: about 1 ms of CPU per request, a tenth of the judge's throughput at
concurrency 16. A None entry makes the import fail at once; httpcore then assumes
asyncio, exactly as it does on the slow path.

httpcore guards each connection with anyio locks, and an anyio lock yields to the event
loop on every acquisition, even of a free lock: six times per request. With 16 replies
arriving together, each request's handling is then cut into pieces interleaved with the
15 others', so every worker sends its next request only once the whole batch is handled,
and the batch comes back together 50 ms later. Its locks are made with anyio's
`fast_acquire` (anyio >= 4.5), which skips that yield when the lock is free and still
honours a cancellation: a request is handled in one go, and the workers' requests spread
out (`_free_locks_do_not_yield`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import ssl
import sys
import urllib.request
from collections.abc import Callable

import httpcore
import httpx

from ragtui.core.asyncio_network import AsyncioBackend

if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]


def _free_locks_do_not_yield() -> None:
    """httpcore's asyncio locks made with anyio's `fast_acquire` (see the module's docstring).

    Left as they are where this httpcore or anyio does not have what it relies on.
    """
    from httpcore import _synchronization as synchronization

    anyio = synchronization.anyio
    setup = getattr(synchronization.AsyncLock, "setup", None)
    if anyio is None or setup is None or getattr(setup, "free_locks_do_not_yield", False):
        return
    try:
        anyio.Lock(fast_acquire=True)
    except TypeError:  # anyio < 4.5
        return

    def fast_setup(lock: synchronization.AsyncLock) -> None:
        setup(lock)
        if lock._backend == "asyncio":
            lock._anyio_lock = anyio.Lock(fast_acquire=True)

    fast_setup.free_locks_do_not_yield = True  # type: ignore[attr-defined]
    setattr(synchronization.AsyncLock, "setup", fast_setup)  # noqa: B010 - a class attribute replaced on purpose


_free_locks_do_not_yield()


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


def environment_names_a_proxy() -> bool:
    """Whether the environment names a proxy httpx would use (its own reading of the variables)."""
    proxies = urllib.request.getproxies()
    if "*" in (host.strip() for host in proxies.get("no", "").split(",")):
        return False  # NO_PROXY=*: httpx ignores every proxy variable
    return any(proxies.get(scheme) for scheme in ("http", "https", "all"))


class _AsyncioTransport(httpx.AsyncHTTPTransport):
    """httpx's transport (its request and reply models, its exception mapping) with its
    connection pool on AsyncioBackend."""

    def __init__(self, tls: ssl.SSLContext, limits: httpx.Limits) -> None:
        super().__init__(verify=tls, limits=limits)
        # httpx offers no network_backend option: the pool it made is replaced by one
        # that differs only in that (tests/running/test_http_clients.py checks it is used).
        assert isinstance(self._pool, httpcore.AsyncConnectionPool)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=tls,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncioBackend(),
        )


class ConnectionPool:
    """A few keep-alive connections; `send` one request built by `build`.

    `direct`: requests skip AsyncClient's sending machinery (auth and redirect flows,
    proxy routing: none of which ragtui uses where no proxy is set) and go to the pool's
    transport on AsyncioBackend; replies' cookies are kept as AsyncClient keeps them.
    """

    def __init__(self, size: int, timeout: float, headers: dict[str, str], tls: ssl.SSLContext, *, direct: bool) -> None:
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        self._transport = _AsyncioTransport(tls, limits) if direct else None
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(timeout), limits=limits, headers=headers, verify=tls, transport=self._transport)
        self._urls: dict[str, httpx.URL] = {}  # parsed once: ~20 µs a request

    @property
    def direct(self) -> bool:
        return self._transport is not None

    def build(self, url: str, body: object, headers: dict[str, str] | None) -> httpx.Request:
        """A POST of `body` as JSON, with the client's headers, cookies and timeouts."""
        target = self._urls.get(url)
        if target is None:
            target = self._urls[url] = httpx.URL(url)
        return self.client.build_request("POST", target, json=body, headers=headers)

    async def send(self, request: httpx.Request) -> httpx.Response:
        """The reply, its body not read yet: read it, then `aclose()` it."""
        if self._transport is None:
            return await self.client.send(request, stream=True)
        response = await self._transport.handle_async_request(request)
        response.request = request
        if "set-cookie" in response.headers:
            self.client.cookies.extract_cookies(response)
        return response

    async def aclose(self) -> None:
        await self.client.aclose()  # closes its transport too


async def post_bounded(
    pool: ConnectionPool,
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
            return await _post(pool, url, body, headers, limit)
    except (TimeoutError, httpx.TimeoutException):
        raise NoReply(f"timed out after {timeout:g} s") from None
    except httpx.TransportError as exc:
        detail = redact(str(exc)) or "no detail"
        raise NoReply(f"connection failed ({type(exc).__name__}: {detail})", unreachable=isinstance(exc, httpx.ConnectError)) from None


async def _post(pool: ConnectionPool, url: str, body: object, headers: dict[str, str] | None, limit: int) -> tuple[int, httpx.Headers, bytes]:
    response = await pool.send(pool.build(url, body, headers))
    try:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise ReplyTooLarge(f"the server's reply is larger than {limit // 1_000_000} MB: refused")
            chunks.append(chunk)
        return response.status_code, response.headers, b"".join(chunks)
    finally:
        await response.aclose()


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
        self.pools: list[ConnectionPool] = []
        self._slots: asyncio.Queue[ConnectionPool] = asyncio.Queue()

    def open(self) -> None:
        if self.pools:
            return
        count = -(-self.concurrency // POOL_SIZE)
        size = -(-self.concurrency // count)
        # One TLS context for every pool: loading the CA certificates costs ~20 ms a context.
        tls = httpx.create_ssl_context()
        direct = not environment_names_a_proxy()
        self.pools = [ConnectionPool(size, self.timeout, self.headers, tls, direct=direct) for _ in range(count)]
        for slot in range(self.concurrency):
            self._slots.put_nowait(self.pools[slot % count])

    async def take(self) -> ConnectionPool:
        """A pool to send one request with; give it back with `give_back`."""
        return await self._slots.get()

    def give_back(self, pool: ConnectionPool) -> None:
        self._slots.put_nowait(pool)

    async def aclose(self) -> None:
        pools, self.pools = self.pools, []
        for pool in pools:
            await pool.aclose()
