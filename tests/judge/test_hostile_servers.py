"""Judge servers that attack: a reply dripped a byte at a time, a reply of gigabytes, JSON
nested thousands deep, the API key echoed back in base64 or in two halves. Each ends in
one clear, redacted error within the timeout. Against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import threading
import time
from collections.abc import Iterator

import pytest

from ragtui.core.judge import client as judge_client
from ragtui.core.judge.cache import CallCache
from ragtui.core.judge.client import CallError, JudgeClient
from ragtui.core.judge.redaction import MASK, redact

from .helpers import SECRET, settings_for

MESSAGES = [{"role": "user", "content": "Q ?"}]


class _Hostile(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "drip"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            getattr(self, f"_{self.mode}")()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _drip(self) -> None:  # a byte every 0.3 s: no single read ever waits a whole second
        body = json.dumps({"choices": []}).encode() * 10
        self._head(200, len(body))
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.3)

    def _huge(self) -> None:  # 20 MB of a reply that claims to be JSON
        chunk = b" " * 1_000_000
        self._head(200, 20 * len(chunk))
        for _ in range(20):
            self.wfile.write(chunk)

    def _deep(self) -> None:
        body = b"[" * 100_000 + b"]" * 100_000
        self._head(200, len(body))
        self.wfile.write(body)

    def _echo(self) -> None:  # the key back, in base64 and cut in two, in a 400's body
        auth = self.headers.get("Authorization", "")
        key = auth.removeprefix("Bearer ")
        text = f"bad header {base64.b64encode(auth.encode()).decode()}; key starts {key[:16]} and ends {key[16:]}"
        body = json.dumps({"error": {"message": text}}).encode()
        self._head(400, len(body))
        self.wfile.write(body)

    def _head(self, status: int, length: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()


@pytest.fixture
def hostile() -> Iterator[type[_Hostile]]:
    handler = type("Handler", (_Hostile,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()


async def one_call(url: str) -> str:
    settings = settings_for(url, timeout=1.0, max_retries=0)
    async with JudgeClient(settings, "v", CallCache(None)) as client:
        with pytest.raises(CallError) as failed:
            await client.complete(MESSAGES, 100, {})
    return str(failed.value)


def test_a_server_dripping_a_byte_at_a_time_ends_at_the_timeout(hostile):
    hostile.mode = "drip"
    started = time.perf_counter()
    message = asyncio.run(one_call(hostile.url))
    assert time.perf_counter() - started < 3
    assert message.startswith("timed out after 1 s")


def test_a_reply_larger_than_the_bound_is_refused_without_holding_it(hostile, monkeypatch):
    monkeypatch.setattr(judge_client, "MAX_REPLY_BYTES", 5_000_000)
    hostile.mode = "huge"
    message = asyncio.run(one_call(hostile.url))
    assert message == "the server's reply is larger than 5 MB: refused"


def test_a_reply_nested_thousands_deep_is_an_unexpected_reply(hostile):
    hostile.mode = "deep"
    message = asyncio.run(one_call(hostile.url))
    assert message.startswith("unexpected reply from the server (nested more than 64 levels deep")


def test_a_key_echoed_in_base64_or_in_two_halves_never_reaches_the_message(hostile):
    hostile.mode = "echo"
    message = asyncio.run(one_call(hostile.url))
    assert message.startswith("HTTP 400: bad header ")
    assert SECRET[:16] not in message and SECRET[16:] not in message
    assert base64.b64encode(f"Bearer {SECRET}".encode()).decode()[12:40] not in message
    assert MASK in message


@pytest.mark.parametrize(
    "encoded",
    [
        SECRET,
        base64.b64encode(f"Bearer {SECRET}".encode()).decode(),
        base64.urlsafe_b64encode(f"x:{SECRET}".encode()).decode().rstrip("="),
        SECRET.encode().hex(),
        json.dumps({"k": SECRET}),
        f"{SECRET[:10]} … {SECRET[10:]}",
    ],
)
def test_redaction_finds_the_key_in_the_usual_encodings(encoded):
    text = redact(f"echo: {encoded} end", [SECRET])
    assert text.startswith("echo: ") and text.endswith(" end") and MASK in text
    for piece in (SECRET[i : i + 8] for i in range(0, len(SECRET) - 8)):
        assert piece not in text


async def one_batch_call(url: str) -> str:
    from ragtui.core.judge.batch.api import BatchHTTP
    from ragtui.core.judge.providers import make_provider

    settings = settings_for(url, timeout=1.0, max_retries=0)
    async with BatchHTTP(settings, make_provider(settings)) as http:
        with pytest.raises(CallError) as failed:
            await http.send("POST", f"{url}/v1/batches", content=b"{}")
    return str(failed.value)


def test_a_batch_transfer_is_bounded_in_size_and_in_time(hostile, monkeypatch):
    from ragtui.core.judge.batch import api

    monkeypatch.setattr(api, "MAX_TRANSFER_BYTES", 5_000_000)
    hostile.mode = "huge"
    assert asyncio.run(one_batch_call(hostile.url)).endswith("the reply is larger than 5 MB: refused")
    monkeypatch.setattr(api, "TRANSFER_TIMEOUT", 1.0)
    hostile.mode = "drip"
    started = time.perf_counter()
    message = asyncio.run(one_batch_call(hostile.url))
    assert time.perf_counter() - started < 3 and "timed out" in message


@pytest.mark.parametrize(
    "reply",
    [
        '{"sentences": ' + "[" * 5000 + "]" * 5000 + "}",  # nested thousands deep
        "prose {" + '"a": {' * 3000 + "}" * 3000 + "} prose",  # an object inside prose, as deep
        '{"sentences": [{"text": "x", "attested": true}], "utility": {"score": ' + "9" * 5000 + "}}",
        '{"sentences": [{"text": "\\ud800", "attested": true}]}',
    ],
)
def test_a_hostile_judge_reply_is_a_parse_error_not_a_traceback(reply):
    from ragtui.core.judge.parsing import ParseError, parse_verdict

    with pytest.raises(ParseError):
        parse_verdict(reply, ["x"], ["p1"])
