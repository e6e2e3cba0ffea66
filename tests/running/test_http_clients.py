"""ragtui's HTTP clients (`http_clients`, `asyncio_network`), the judge's and the endpoint's,
against real servers on 127.0.0.1.

The endpoint's and the judge's hostile-server tests (test_endpoint.py,
tests/judge/test_hostile_servers.py) go through the same pools; these check what the
asyncio network backend itself must get right — refused connections, timeouts, a peer
that closes mid-reply or while idle, flow control both ways, TLS — and that a proxy named
in the environment carries the requests.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator

import httpcore
import pytest

from ragtui.core.asyncio_network import AsyncioBackend
from ragtui.core.http_clients import NoReply, RequestSlots, environment_names_a_proxy, post_bounded
from ragtui.core.judge.cache import CallCache
from ragtui.core.judge.client import JudgeClient
from ragtui.core.running.endpoint import EndpointSystem
from tests.judge.helpers import settings_for
from tests.running.fake_rag import FakeRag, answer_of

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy")


def no_redaction(text: str) -> str:
    return text


@pytest.fixture(autouse=True)
def no_proxy_variables(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def read_request(conn: socket.socket) -> tuple[bytes, bytes]:
    """(head, body) of one HTTP/1.1 request with a Content-Length; (b"", b"") at end of stream."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b"", b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = conn.recv(1 << 20)
        if not chunk:
            break
        body += chunk
    return head, body


def reply(status: int, body: bytes, *extra: str) -> bytes:
    headers = [f"HTTP/1.1 {status} X", "Content-Type: application/json", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


class RawServer:
    """A TCP server on 127.0.0.1 calling `serve(conn)` for each connection, in a thread each."""

    def __init__(self, serve: Callable[[socket.socket], None], tls: ssl.SSLContext | None = None):
        self.serve = serve
        self.tls = tls
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.done = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            self.serve(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.done.set()
        self.listener.close()


@pytest.fixture
def raw_server() -> Iterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    def start(serve: Callable[[socket.socket], None], tls: ssl.SSLContext | None = None) -> RawServer:
        servers.append(RawServer(serve, tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


async def post_once(url: str, body: object = None, *, timeout: float = 5.0, deadline: float = 10.0) -> tuple[int, bytes]:
    slots = RequestSlots(1, timeout)
    slots.open()
    try:
        pool = await slots.take()
        status, _, raw = await post_bounded(pool, url, body or {"q": 1}, timeout=deadline, redact=no_redaction)
        return status, raw
    finally:
        await slots.aclose()


def serve_each_request(respond: Callable[[bytes, bytes], bytes]) -> Callable[[socket.socket], None]:
    """A connection's server: `respond(head, body)` is sent back for each request, until the client closes."""

    def serve(conn: socket.socket) -> None:
        while True:
            head, body = read_request(conn)
            if not head:
                return
            conn.sendall(respond(head, body))

    return serve


def answer_each_request(conn: socket.socket, body: Callable[[bytes], bytes] = lambda _: b'{"ok": true}') -> None:
    serve_each_request(lambda _, request_body: reply(200, body(request_body)))(conn)


# --- which path a request takes -------------------------------------------------------


async def test_without_a_proxy_requests_go_through_the_asyncio_backend(monkeypatch):
    connects = []
    original = AsyncioBackend.connect_tcp

    async def counted(self, host, port, **options):
        connects.append((host, port))
        return await original(self, host, port, **options)

    monkeypatch.setattr(AsyncioBackend, "connect_tcp", counted)
    with FakeRag() as fake:
        slots = RequestSlots(4, 5.0)
        slots.open()
        try:
            assert all(pool.direct for pool in slots.pools)
            pool = await slots.take()
            for question_id in ("q1", "q2"):  # the second on the kept-alive connection
                status, _, raw = await post_bounded(pool, fake.url, {"id": question_id, "question": "Q?", "k": 2}, timeout=5.0, redact=no_redaction)
                assert status == 200 and json.loads(raw) == answer_of(question_id, "Q?", 2)
        finally:
            await slots.aclose()
    assert connects == [("127.0.0.1", fake.server.server_address[1])]


def test_a_proxy_variable_turns_the_direct_path_off_and_no_proxy_star_turns_it_back_on(monkeypatch):
    assert environment_names_a_proxy() is False
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert environment_names_a_proxy() is True
    monkeypatch.setenv("NO_PROXY", "localhost, *")
    assert environment_names_a_proxy() is False


async def test_a_proxy_from_the_environment_carries_the_endpoints_requests(monkeypatch, raw_server):
    seen: list[bytes] = []

    def proxy(head: bytes, body: bytes) -> bytes:
        seen.append(head.split(b"\r\n")[0])
        answer = {"passages": [{"id": "p1", "text": "t"}], "answer": f"via the proxy: {json.loads(body)['question']}"}
        return reply(200, json.dumps(answer).encode())

    server = raw_server(serve_each_request(proxy))
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
    # A name that does not resolve: only the proxy can answer for it.
    async with EndpointSystem("http://rag.invalid:8080/ask", timeout=5.0, concurrency=2) as system:
        assert not any(pool.direct for pool in system._slots.pools)
        answer = await system.ask("q1", "Combien ?", 3)
    assert answer.answer == "via the proxy: Combien ?"
    assert seen == [b"POST http://rag.invalid:8080/ask HTTP/1.1"]


async def test_a_proxy_from_the_environment_carries_the_judges_requests(monkeypatch, raw_server):
    seen: list[bytes] = []

    def proxy(conn: socket.socket) -> None:
        head, _ = read_request(conn)
        seen.append(head.split(b"\r\n")[0])
        completion = {"choices": [{"message": {"content": "via the proxy"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
        conn.sendall(reply(200, json.dumps(completion).encode()))

    server = raw_server(proxy)
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{server.port}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{server.port}")
    settings = settings_for("http://judge.invalid:8080", timeout=5.0, max_retries=0)
    async with JudgeClient(settings, "v", CallCache(None)) as client:
        result = await client.complete([{"role": "user", "content": "Q ?"}], 100, {})
    assert result.completion.text == "via the proxy" and not result.cached
    assert seen == [b"POST http://judge.invalid:8080/v1/chat/completions HTTP/1.1"]


async def test_no_proxy_naming_the_host_sends_it_directly_even_with_a_proxy_set(monkeypatch, raw_server):
    proxied: list[bytes] = []
    proxy = raw_server(lambda conn: proxied.append(read_request(conn)[0]))
    target = raw_server(answer_each_request)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert await post_once(f"http://127.0.0.1:{target.port}/ask") == (200, b'{"ok": true}')
    assert proxied == [] and target.connections == 1


async def test_a_cookie_the_server_sets_is_sent_back_as_httpx_sends_it(raw_server):
    cookies: list[bytes] = []

    def session(head: bytes, _: bytes) -> bytes:
        cookies.append(next((line for line in head.split(b"\r\n") if line.lower().startswith(b"cookie:")), b""))
        return reply(200, b"{}", "Set-Cookie: affinity=node-2; Path=/")

    server = raw_server(serve_each_request(session))
    url = f"http://127.0.0.1:{server.port}/ask"
    slots = RequestSlots(1, 5.0)
    slots.open()
    try:
        pool = await slots.take()
        assert pool.direct
        for _ in range(2):
            await post_bounded(pool, url, {"q": 1}, timeout=5.0, redact=no_redaction)
    finally:
        await slots.aclose()
    assert cookies == [b"", b"Cookie: affinity=node-2"]


# --- the asyncio backend against misbehaving peers ------------------------------------


async def test_a_refused_connection_is_no_reply_marked_unreachable():
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with pytest.raises(NoReply) as caught:
        await post_once(f"http://127.0.0.1:{port}/ask")
    assert caught.value.unreachable
    assert str(caught.value).startswith("connection failed (ConnectError: ")


async def test_a_silent_server_trips_the_read_timeout_not_only_the_overall_deadline(raw_server):
    server = raw_server(lambda conn: (read_request(conn), time.sleep(3)))
    started = time.perf_counter()
    with pytest.raises(NoReply, match="timed out"):
        await post_once(f"http://127.0.0.1:{server.port}/ask", timeout=0.3, deadline=10.0)
    assert time.perf_counter() - started < 2.0  # httpx's 0.3 s per read, through the backend


async def test_the_overall_deadline_ends_a_reply_dripping_a_byte_at_a_time(raw_server):
    def drip(conn: socket.socket) -> None:
        read_request(conn)
        for byte in reply(200, b'{"answer": "' + b"x" * 100 + b'"}'):
            conn.sendall(bytes([byte]))
            time.sleep(0.05)

    server = raw_server(drip)
    started = time.perf_counter()
    with pytest.raises(NoReply, match=r"timed out after 0.5 s"):
        await post_once(f"http://127.0.0.1:{server.port}/ask", timeout=5.0, deadline=0.5)
    assert time.perf_counter() - started < 2.0


async def test_a_peer_closing_in_the_middle_of_the_reply_is_a_failed_connection(raw_server):
    def half(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(reply(200, b'{"answer": "' + b"x" * 1000 + b'"}')[:-500])

    server = raw_server(half)
    with pytest.raises(NoReply, match=r"^connection failed \(RemoteProtocolError: ") as caught:
        await post_once(f"http://127.0.0.1:{server.port}/ask")
    assert not caught.value.unreachable


async def test_a_connection_the_server_closed_while_idle_is_not_reused(raw_server):
    def one_then_close(conn: socket.socket) -> None:  # keep-alive announced, then closed
        read_request(conn)
        conn.sendall(reply(200, b'{"ok": true}'))

    server = raw_server(one_then_close)
    url = f"http://127.0.0.1:{server.port}/ask"
    slots = RequestSlots(1, 5.0)
    slots.open()
    try:
        pool = await slots.take()
        for _ in range(3):
            status, _, raw = await post_bounded(pool, url, {"q": 1}, timeout=5.0, redact=no_redaction)
            assert (status, raw) == (200, b'{"ok": true}')
            await asyncio.sleep(0.3)  # time for the server's close to reach the client's event loop
    finally:
        await slots.aclose()
    assert server.connections == 3


async def test_large_bodies_cross_whole_both_ways(raw_server):
    """A 6 MB request and a 3 MB reply: more than the kernel's and the backend's buffers."""
    server = raw_server(lambda conn: answer_each_request(conn, lambda body: json.dumps({"received": len(body), "echo": "y" * 3_000_000}).encode()))
    request = {"text": "z" * 6_000_000}
    status, raw = await post_once(f"http://127.0.0.1:{server.port}/ask", request)
    assert status == 200
    assert json.loads(raw) == {"received": len(json.dumps(request, separators=(",", ":"))), "echo": "y" * 3_000_000}


async def test_a_gzip_reply_is_decompressed(raw_server):
    body = gzip.compress(b'{"answer": "quatre mois"}')

    def gzipped(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(reply(200, body, "Content-Encoding: gzip"))

    server = raw_server(gzipped)
    assert await post_once(f"http://127.0.0.1:{server.port}/ask") == (200, b'{"answer": "quatre mois"}')


async def test_a_server_that_never_reads_trips_the_write_timeout(raw_server):
    stop = threading.Event()
    server = raw_server(lambda conn: stop.wait(10))
    started = time.perf_counter()
    try:
        with pytest.raises(NoReply, match="timed out"):
            await post_once(f"http://127.0.0.1:{server.port}/ask", {"text": "w" * 64_000_000}, timeout=0.5, deadline=10.0)
    finally:
        stop.set()
    assert time.perf_counter() - started < 5.0


async def test_the_backend_maps_a_refused_connection_and_a_read_timeout_to_httpcores_errors(raw_server):
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with pytest.raises(httpcore.ConnectError):
        await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=2.0)
    stop = threading.Event()
    server = raw_server(lambda conn: stop.wait(5))
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", server.port, timeout=2.0)
    try:
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(1024, timeout=0.1)
        await stream.write(b"hello", timeout=1.0)
        assert stream.get_extra_info("is_readable") is False
    finally:
        stop.set()
        await stream.aclose()


# --- TLS ------------------------------------------------------------------------------


@pytest.fixture
def certificate_authority(tmp_path):
    trustme = pytest.importorskip("trustme", reason="trustme (a test dependency) makes the local certificates")
    ca = trustme.CA()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_tls)
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return server_tls, ca_file


async def test_an_https_endpoint_is_reached_through_the_asyncio_backend(monkeypatch, raw_server, certificate_authority):
    server_tls, ca_file = certificate_authority
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))  # httpx's TLS context trusts the test's CA
    server = raw_server(answer_each_request, tls=server_tls)
    slots = RequestSlots(2, 5.0)
    slots.open()
    try:
        pool = await slots.take()
        assert pool.direct
        for _ in range(2):  # the second on the kept-alive TLS connection
            status, _, raw = await post_bounded(pool, f"https://localhost:{server.port}/ask", {"q": 1}, timeout=5.0, redact=no_redaction)
            assert (status, raw) == (200, b'{"ok": true}')
    finally:
        await slots.aclose()
    assert server.connections == 1


async def test_a_certificate_from_an_unknown_authority_is_refused(raw_server, certificate_authority):
    server_tls, _ = certificate_authority
    server = raw_server(answer_each_request, tls=server_tls)
    with pytest.raises(NoReply, match=r"^connection failed \(ConnectError: .*CERTIFICATE_VERIFY_FAILED"):
        await post_once(f"https://localhost:{server.port}/ask")


# --- scheduling -----------------------------------------------------------------------


async def test_httpcores_free_locks_do_not_yield_to_the_event_loop():
    """Each request takes httpcore's connection locks several times: had each of them yielded,
    16 replies arriving together would be handled interleaved and finish together."""
    from httpcore._synchronization import AsyncLock

    others_ran = []
    asyncio.get_running_loop().call_soon(others_ran.append, True)
    lock = AsyncLock()
    for _ in range(3):
        async with lock:
            pass
    assert others_ran == []  # the callback ready before the acquisitions has not run yet
    await asyncio.sleep(0)
    assert others_ran == [True]
