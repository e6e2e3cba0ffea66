"""httpcore's network layer on plain asyncio: `AsyncioBackend`, for `httpcore.AsyncConnectionPool`.

httpcore's default backend goes through anyio, which opens a cancel scope around every
socket read and write and polls each idle connection's socket before reusing it: about
a third of the CPU an httpx request costs. This backend is httpcore's documented
extension point (`network_backend=`) on an asyncio protocol: a read waits for bytes the
event loop already received, a timeout is one timer, and a connection's end (the peer
closed it, or it failed) is known the moment the loop sees it, so no poll is needed.

Errors are httpcore's own (ConnectError, ReadTimeout, …), which httpx maps to its
exceptions as it does for its default backend. Only what ragtui uses is provided: TCP
and TLS over TCP (no Unix sockets).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

READ_BUFFER_HIGH = 256 * 1024  # bytes received and not yet read before the socket stops being read
WRITE_BATCH_MAX = 64 * 1024  # bytes written and held to be sent together, at most


class _Connection(asyncio.Protocol):
    """The bytes a connection received, its end, and its writing's flow control."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.received = bytearray()
        self.ended = False  # the peer closed its side, or the connection was lost
        self.failure: BaseException | None = None
        self._reading_paused = False
        self._waiter: asyncio.Future[None] | None = None  # a read waiting for bytes
        self._drain: asyncio.Future[None] | None = None  # a write waiting for the buffer to empty

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.received += data
        if len(self.received) > READ_BUFFER_HIGH and not self._reading_paused and self.transport is not None:
            self._reading_paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.failure = exc
        self._wake()
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)

    def pause_writing(self) -> None:
        self._drain = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def read(self, max_bytes: int) -> bytes:
        """Up to `max_bytes` received bytes; b"" once the peer closed and all was read."""
        while not self.received:
            if self.failure is not None:
                raise httpcore.ReadError(str(self.failure) or type(self.failure).__name__)
            if self.ended:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        data = bytes(self.received[:max_bytes])
        del self.received[:max_bytes]
        if self._reading_paused and len(self.received) <= READ_BUFFER_HIGH // 4 and self.transport is not None:
            self._reading_paused = False
            self.transport.resume_reading()
        return data

    @property
    def writing_paused(self) -> bool:
        return self._drain is not None

    async def drained(self) -> None:
        """Once the transport's write buffer is below its limit again."""
        if self._drain is not None:
            await asyncio.shield(self._drain)
        if self.failure is not None:
            raise httpcore.WriteError(str(self.failure) or type(self.failure).__name__)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One TCP connection (TLS or not), as httpcore reads and writes it."""

    def __init__(self, connection: _Connection) -> None:
        self._connection = connection
        self._unsent: list[bytes] = []  # written in this step of the task, sent together

    def _send(self) -> None:
        """Hand what was written to the transport in one piece: a request's head and body in
        one segment, one system call (two cost the client and the server a wake-up each)."""
        if self._unsent and not self._connection.ended:
            self._transport.write(b"".join(self._unsent))
        self._unsent.clear()

    @property
    def _transport(self) -> asyncio.Transport:
        assert self._connection.transport is not None
        return self._connection.transport

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._send()  # a reply is awaited: the request is complete
        connection = self._connection
        if connection.received:  # the loop already has them: no timer to arm
            return await connection.read(max_bytes)
        try:
            async with asyncio.timeout(timeout):
                return await connection.read(max_bytes)
        except TimeoutError:
            raise httpcore.ReadTimeout(f"no data within {timeout:g} s") from None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._connection.ended:
            raise httpcore.WriteError("the connection is closed")
        if not self._unsent:  # sent at the latest when the task next yields to the loop
            asyncio.get_running_loop().call_soon(self._send)
        self._unsent.append(buffer)
        if sum(map(len, self._unsent)) < WRITE_BATCH_MAX and not self._connection.writing_paused:
            return
        self._send()
        if not self._connection.writing_paused:
            return
        try:
            async with asyncio.timeout(timeout):
                await self._connection.drained()
        except TimeoutError:
            raise httpcore.WriteTimeout(f"could not send within {timeout:g} s") from None

    async def aclose(self) -> None:
        self._unsent.clear()
        self._transport.close()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(self._transport, self._connection, ssl_context, server_hostname=server_hostname)
        except TimeoutError:
            self._transport.close()
            raise httpcore.ConnectTimeout(f"TLS handshake not done within {timeout:g} s") from None
        except OSError as exc:  # ssl.SSLError and ConnectionError are OSErrors
            self._transport.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        if transport is None:
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        assert isinstance(transport, asyncio.Transport)
        self._connection.transport = transport
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # httpcore asks before reusing an idle connection: is it over?
            return self._connection.ended or bool(self._connection.received)
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info in ("ssl_object", "socket"):
            return self._transport.get_extra_info(info)
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """TCP connections (TLS added by httpcore through `start_tls`) on the running asyncio loop."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_connection(_Connection, host, port, local_addr=(local_address, 0) if local_address else None)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"could not connect within {timeout:g} s") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # asyncio already disables Nagle's algorithm on TCP; the caller's options come on top.
            for option in socket_options or ():
                sock.setsockopt(*option)
        return AsyncioStream(connection)

    async def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("Unix sockets are not supported by ragtui's HTTP clients")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

