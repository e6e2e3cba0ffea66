"""A scriptable fake LLM server on 127.0.0.1, speaking OpenAI, Anthropic and Ollama.

Real HTTP (ThreadingHTTPServer, HTTP/1.1 keep-alive) so the judge's client, retries,
timeouts and connection handling are exercised for real. Routes:
    POST /v1/chat/completions   OpenAI-compatible
    POST /v1/messages           Anthropic Messages (prefill "{" understood)
    POST /api/chat              Ollama native

The reply is built from the prompt: the number of `<phrase-NONCE n=..>` /
`<sentence-NONCE n=..>` tags is the sentence count, the first `<passage-NONCE id=..>` is
the evidence, a sentence containing "FAUX" is not attested; `[[injection]]` in the
question makes the judge report an injection attempt; `[[flip]]` makes its second
answer to that question reverse the last sentence's verdict and score 2. Directives written in a question as `[[name]]`
script misbehaviour, by attempt number for that question (see BEHAVIOURS).

Bookkeeping for the assertions:
- `attempts[input]`: every request per question (keyed by its first user message);
- `paid[call]`: 200 replies per exact call (messages + max tokens): a call answered
  twice was paid twice;
- `requests`: (path, headers, body) of every request;
- `max_in_flight`: the most requests it was serving at once (during the latency).

`hold_after=N` answers N calls, then holds every further request until `release()`
(which drops them unanswered: nothing more is paid) — to interrupt a run at a known
point. `settled` says the point is reached: a request is held and none is still being
answered (the hold decision and the count move under one lock, so no answer can be in
transit when a test interrupts the client). Run as a script (`python fake_llm.py --latency 0.1`) it prints its port and
serves until killed (the bench uses it in its own process).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRECTIVE = re.compile(r"\[\[([a-z0-9_-]+)\]\]")
SENTENCE_TAG = re.compile(r'<(?:phrase|sentence)(?:-[0-9a-f]+)? n="\d+">(.*?)</(?:phrase|sentence)(?:-[0-9a-f]+)?>')
PASSAGE_TAG = re.compile(r'<passage(?:-[0-9a-f]+)? id="([^"]+)">')

# directive -> what happens on attempt 0, 1, … ("ok" once the list runs out, unless it ends with "*").
BEHAVIOURS = {
    "429ms": ["429ms"],
    "429s": ["429s"],
    "500": ["500"],
    "529": ["529"],
    "408": ["408"],
    "409": ["409"],
    "hang": ["hang"],
    "always500": ["500*"],
    "fenced": ["fenced*"],
    "prose": ["prose*"],
    "french": ["french*"],
    "trunc": ["trunc"],
    "truncalways": ["trunc*"],
    "nojsonthentrunc": ["nojson", "trunc*"],  # an unusable reply, then a cut-off repair reply
    "truncthencount": ["trunc", "count", "trunc*"],  # cut off, wrong count, cut-off repair reply
    "count": ["count"],
    "countalways": ["count*"],
    "nojson": ["nojson*"],
    "nojsontwice": ["nojson", "nojson"],  # unusable, unusable after the repair, then (asked again) fine
    "badscore": ["badscore"],
    "401echo": ["401echo*"],
    "400": ["400*"],
    "empty": ["empty"],
    "injection": ["injection*"],
    "flip": ["ok", "flip"],  # asked again (judge --repeat), the judge changes its mind once
}


def _first_user(messages: list[dict]) -> str:
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def verdict_object(
    prompt: str, *, french: bool = False, drop_one: bool = False, score: int = 4, injection: bool = False, flip: bool = False
) -> dict:
    """The verdicts a well-behaved judge would give for `prompt` (`flip`: the last sentence's reversed)."""
    sentences = SENTENCE_TAG.findall(prompt)
    passages = PASSAGE_TAG.findall(prompt)
    items = []
    for number, text in enumerate(sentences, start=1):
        attested = bool(passages) and "FAUX" not in text
        if flip and number == len(sentences):
            attested = not attested
        evidence = passages[:1] if attested else []
        if french:
            items.append({"texte": text, "atteste": attested, "preuves": evidence, "raison": "selon le passage"})
        else:
            items.append({"n": number, "reason": "stated in the passage" if attested else "not in the passages", "evidence": evidence, "attested": attested})
    if drop_one:
        items = items[:-1] if items else [{"n": 1, "reason": "extra", "evidence": [], "attested": True}]
    key = "phrases" if french else "sentences"
    verdict = {key: items, "utility": {"reason": "answers the question", "score": score}}
    if injection:
        verdict["injection"] = True
    return verdict


def reply_text(action: str, prompt: str) -> tuple[str, bool]:
    """The text a judge gives for `prompt` under a scripted `action`, and whether it is cut off."""
    truncated = False
    if action == "nojson":
        text = "La réponse me semble correcte et bien sourcée."
    elif action == "empty":
        text = ""
    else:
        score = {"badscore": 7, "flip": 2}.get(action, 4)
        verdict = verdict_object(
            prompt, french=action == "french", drop_one=action == "count", score=score, injection=action == "injection", flip=action == "flip"
        )
        text = json.dumps(verdict, ensure_ascii=False)
        if action == "fenced":
            text = f"Voici mon évaluation :\n```json\n{json.dumps(verdict, ensure_ascii=False, indent=2)}\n```\nJ'espère que cela aide."
        elif action == "prose":
            text = f"Here is the verdict you asked for: {text} Let me know if you need more."
        elif action == "trunc":
            text, truncated = text[: len(text) // 2], True
    return text, truncated


def envelope(path: str, body: dict, prompt: str, text: str, truncated: bool) -> dict:
    """The reply of the route `path` carrying `text` (the batch fake wraps the same one)."""
    tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(text) // 4)
    if path == "/v1/messages":
        if (body.get("messages") or [{}])[-1].get("role") == "assistant" and text.startswith("{"):
            text = text[1:]  # the prefill "{" is the caller's; Claude continues after it
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "max_tokens" if truncated else "end_turn",
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    if path == "/api/chat":
        return {
            "model": body.get("model"),
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "length" if truncated else "stop",
            "prompt_eval_count": tokens_in,
            "eval_count": tokens_out,
        }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": body.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length" if truncated else "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


class FakeLLM:
    """The server; `with FakeLLM() as server:` or start()/stop()."""

    def __init__(self, *, latency: float = 0.0, reject_json_schema: bool = False, reject_prefill: bool = False, hang_seconds: float = 5.0, hold_after: int | None = None, error_detail: str = ""):
        self.latency = latency
        self.error_detail = error_detail  # appended to every scripted error message (hostile server text)
        self.reject_json_schema = reject_json_schema
        self.reject_prefill = reject_prefill
        self.hang_seconds = hang_seconds
        self.hold_after = hold_after
        self.lock = threading.Lock()
        self.attempts: collections.Counter[str] = collections.Counter()
        self.paid: collections.Counter[str] = collections.Counter()
        self.requests: list[tuple[str, dict, dict]] = []
        self.arrivals: list[tuple[float, str]] = []  # (time.monotonic(), first user message)
        self.held = 0
        self.answering = 0  # requests past the hold decision, not yet answered
        self.in_flight = 0
        self.max_in_flight = 0
        self._stop = threading.Event()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> FakeLLM:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def drop_held(self) -> None:
        """Drop held requests unanswered, and any later one past the point too (a client
        still retrying while it stops must not be answered: that answer would be paid and lost)."""
        self._release.set()

    def release(self) -> None:
        """Drop held requests unanswered and stop holding: later requests are answered."""
        self.hold_after = None
        self._release.set()

    # -- statistics -------------------------------------------------------------------
    @property
    def settled(self) -> bool:
        """Held at the interruption point: a request waits and no answer is still on its way."""
        with self.lock:
            return self.held >= 1 and self.answering == 0

    @property
    def total_paid(self) -> int:
        with self.lock:
            return sum(self.paid.values())

    def paid_twice(self) -> list[str]:
        with self.lock:
            return [key for key, count in self.paid.items() if count > 1]

    def attempts_for(self, marker: str) -> int:
        """Requests made for the questions whose prompt contains `marker`."""
        with self.lock:
            return sum(count for key, count in self.attempts.items() if marker in key)

    def bodies(self, path: str | None = None) -> list[dict]:
        with self.lock:
            return [body for p, _, body in self.requests if path is None or p == path]


class _Server(ThreadingHTTPServer):
    # The default listen backlog (5) drops connections when 16 workers connect at once;
    # the kernel then retries the SYN a second later, which a bench would blame on the judge.
    request_queue_size = 256


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm and
    # the client's delayed ACK add ~40 ms to every reply, which is not the judge's doing.
    disable_nagle_algorithm = True
    server_fake: FakeLLM

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        """`GET /stats`: request and paid-call totals, for a bench running the server apart."""
        fake = self.server_fake
        if self.path != "/stats":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        with fake.lock:
            stats = {"requests": len(fake.requests), "paid": sum(fake.paid.values()), "paid_twice": sum(1 for c in fake.paid.values() if c > 1)}
        self._send(200, stats)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        fake = self.server_fake
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self._send(400, {"error": {"message": "malformed JSON body"}})
        if self.path not in ("/v1/chat/completions", "/v1/messages", "/api/chat"):
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        messages = body.get("messages") or []
        prompt = _first_user(messages)
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens", (body.get("options") or {}).get("num_predict")))
        call = hashlib.sha256(json.dumps([self.path, messages, max_tokens], sort_keys=True).encode()).hexdigest()
        with fake.lock:
            fake.requests.append((self.path, dict(self.headers), body))
            fake.arrivals.append((time.monotonic(), prompt))
            attempt = fake.attempts[prompt]
            fake.attempts[prompt] += 1
        problem = self._check_request(body, max_tokens)
        if problem:
            return self._send(422, {"error": {"message": problem}})
        with fake.lock:
            hold = fake.hold_after is not None and sum(fake.paid.values()) + fake.answering >= fake.hold_after
            if hold:
                fake.held += 1
            else:
                fake.answering += 1
        if hold:
            fake._release.wait()
            self.close_connection = True  # dropped unanswered: not paid
            return None
        try:
            self._answer(body, prompt, call, max_tokens, attempt)
        finally:
            with fake.lock:
                fake.answering -= 1

    def _answer(self, body: dict, prompt: str, call: str, max_tokens: int, attempt: int) -> None:
        fake = self.server_fake
        with fake.lock:
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
        try:
            if fake.latency:
                time.sleep(fake.latency)
        finally:
            with fake.lock:
                fake.in_flight -= 1
        rejection = self._rejection(body)
        if rejection:
            return self._send(400, {"type": "error", "error": {"type": "invalid_request_error", "message": rejection}})
        action = self._action(prompt, attempt)
        self._perform(action, body, prompt, call, max_tokens)

    def _check_request(self, body: dict, max_tokens: object) -> str | None:
        temperature = body.get("temperature", (body.get("options") or {}).get("temperature"))
        if temperature != 0:
            return f"the fake wants temperature 0, got {temperature!r}"
        if not isinstance(max_tokens, int) or max_tokens < 1:
            return "the fake wants a bound on output tokens"
        return None

    def _rejection(self, body: dict) -> str | None:
        fake = self.server_fake
        if fake.reject_json_schema and (body.get("response_format") or {}).get("type") == "json_schema":
            return "response_format 'json_schema' is not supported by this server"
        if fake.reject_prefill and self.path == "/v1/messages" and (body.get("messages") or [{}])[-1].get("role") == "assistant":
            return "This model does not support assistant message prefill. The conversation must end with a user message."
        return None

    @staticmethod
    def _action(prompt: str, attempt: int) -> str:
        for name in DIRECTIVE.findall(prompt):
            script = BEHAVIOURS.get(name)
            if not script:
                continue
            if attempt < len(script):
                return script[attempt].rstrip("*")
            if script[-1].endswith("*"):
                return script[-1].rstrip("*")
        return "ok"

    def _perform(self, action: str, body: dict, prompt: str, call: str, max_tokens: int) -> None:
        fake = self.server_fake
        if action == "hang":
            fake._stop.wait(fake.hang_seconds)
            self.close_connection = True
            return
        statuses = {"500": 500, "529": 529, "408": 408, "409": 409, "400": 400}
        if action in statuses:
            return self._send(statuses[action], {"type": "error", "error": {"type": "api_error", "message": f"scripted {action}{fake.error_detail}"}})
        if action == "429ms":  # retry-after-ms wins; the 30 s retry-after would time the test out
            return self._send(429, {"error": {"message": "rate limited"}}, {"retry-after-ms": "150", "retry-after": "30"})
        if action == "429s":
            return self._send(429, {"error": {"message": "rate limited"}}, {"retry-after": "1"})
        if action == "401echo":  # a careless server echoing the credentials back
            echoed = f"invalid key: {self.headers.get('authorization')} {self.headers.get('x-api-key')}"
            return self._send(401, {"error": {"message": echoed}})
        text, truncated = reply_text(action, prompt)
        with fake.lock:
            fake.paid[call] += 1
        self._send(200, envelope(self.path, body, prompt, text, truncated))

    def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeLLM(latency=args.latency).start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
    sys.exit(0)
