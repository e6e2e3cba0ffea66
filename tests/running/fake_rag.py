"""A scriptable fake RAG service on 127.0.0.1: `POST /ask {"id", "question", "k"}`.

Real HTTP (ThreadingHTTPServer, HTTP/1.1 keep-alive), so `ragtui run --endpoint`'s client,
retries and timeouts are exercised for real. What the service does on each attempt at a
question is scripted by id (`script={"q3": ["500", "ok"]}`; the last step repeats):
`ok` answers, `500` fails, `404` does not know the question, `malformed` sends a body
that is not JSON, `hang` holds the request for `hang_seconds`, `drip` sends a valid reply one
byte every 0.2 s, `huge` a 20 MB reply, `deep` JSON nested 100,000 deep. Unscripted questions are
answered. `latency` delays every reply (the bench's 50 ms endpoint).

Bookkeeping: `attempts[id]` counts requests, `answered[id]` the 200 replies with an
answer, `headers` the last request's headers. Run as a script (`python fake_rag.py
--latency 0.05`) it prints its port and serves until killed.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def answer_of(question_id: str, question: str, k: int) -> dict[str, Any]:
    """A deterministic answer: k passages named after the question, the answer quoting it."""
    passages = [{"id": f"p_{question_id}_{rank}", "text": f"passage {rank} for {question}", "score": 1.0 / (rank + 1)} for rank in range(k)]
    return {"passages": passages, "answer": f"answer to {question}", "tokens_in": 100 * k, "tokens_out": 20, "cost_usd": 0.001}


class _Server(ThreadingHTTPServer):
    # The default listen backlog (5) drops connections when 16 workers connect at once.
    request_queue_size = 256


class FakeRag:
    def __init__(self, *, script: dict[str, list[str]] | None = None, latency: float = 0.0, hang_seconds: float = 5.0, port: int = 0):
        self.script = script or {}
        self.latency = latency
        self.hang_seconds = hang_seconds
        self.attempts: collections.Counter[str] = collections.Counter()
        self.answered: collections.Counter[str] = collections.Counter()
        self.headers: dict[str, str] = {}
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", port), self._handler())
        self.server.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/ask"

    def _step(self, question_id: str) -> str:
        with self.lock:
            attempt = self.attempts[question_id]
            self.attempts[question_id] += 1
        steps = self.script.get(question_id, ["ok"])
        return steps[min(attempt, len(steps) - 1)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm
            # and the client's delayed ACK add ~40 ms to every reply.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length))
                fake.headers = dict(self.headers.items())
                question_id = str(request.get("id"))
                step = fake._step(question_id)
                if fake.latency:
                    time.sleep(fake.latency)
                if step == "hang":
                    time.sleep(fake.hang_seconds)
                    return
                if step == "500":
                    self._send(500, b'{"error": {"message": "the index is rebuilding"}}')
                elif step == "404":
                    self._send(404, b'{"error": "unknown question"}')
                elif step == "malformed":
                    self._send(200, b'{"passages": [ this is not json')
                elif step == "drip":
                    body = json.dumps(answer_of(question_id, request.get("question", ""), 1)).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    for i in range(len(body)):
                        try:
                            self.wfile.write(body[i : i + 1])
                            self.wfile.flush()
                        except OSError:  # the client gave up
                            return
                        time.sleep(0.2)
                elif step == "huge":
                    self._send(200, b'{"answer": "' + b"x" * 20_000_000 + b'"}')
                elif step == "deep":
                    self._send(200, b"[" * 100_000 + b"]" * 100_000)
                else:
                    body = json.dumps(answer_of(question_id, request.get("question", ""), int(request.get("k", 5)))).encode()
                    with fake.lock:
                        fake.answered[question_id] += 1
                    self._send(200, body)

        return Handler

    def start(self) -> FakeRag:
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeRag:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    options = parser.parse_args()
    fake = FakeRag(latency=options.latency)
    print(fake.server.server_address[1], flush=True)
    try:
        fake.server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
