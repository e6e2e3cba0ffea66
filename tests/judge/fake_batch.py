"""A fake batch server on 127.0.0.1: OpenAI's Batch API and Anthropic's Message Batches.

Each request in a job is answered exactly as the interactive fake (fake_llm.py) would
answer it — same verdicts, same directives (`[[count]]`, `[[trunc]]`…), same token
counts — so a batch run and an interactive run can be compared file to file. Routes:
    OpenAI     POST /v1/files (multipart, purpose=batch) · POST /v1/batches ·
               GET /v1/batches · GET /v1/batches/{id} · GET /v1/files/{id}/content
    Anthropic  POST /v1/messages/batches · GET /v1/messages/batches ·
               GET /v1/messages/batches/{id} · GET /v1/messages/batches/{id}/results
The interactive routes (POST /v1/chat/completions, /v1/messages) answer the same way,
for `--batch-fallback` and for runs to compare with. Every GET of a job moves it one step: OpenAI validating → in_progress → completed,
Anthropic in_progress → ended. Scripted trouble:
- `expire={n, …}`: the n-th job created (1-based) expires — the first half of its
  requests answered, the rest `batch_expired` / `expired`;
- `invalid={n, …}`: the n-th OpenAI job fails validation (status `failed`, `errors`);
- `[[batcherror]]` in a question: that request errors (HTTP 400 / `errored`);
- `slow_create=S`: a job is created at once but its id comes back S seconds later (a
  client with a shorter timeout cannot tell whether it exists);
- `reject_prefill=True`: Anthropic requests ending with an assistant turn error, like
  newer Claude models do;
- results are written in a shuffled order (seeded);
- `hold = True` keeps every job short of its end until set back to False.
Bookkeeping: `submissions` (jobs created), `requests` (method, path, headers),
`paid[call]` (answered requests per exact call: a call answered twice was paid twice).
"""

from __future__ import annotations

import collections
import email.parser
import hashlib
import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.judge.fake_llm import DIRECTIVE, _first_user, _Handler, _Server, envelope, reply_text

OPENAI_STEPS = ("validating", "in_progress", "completed")


class FakeBatch:
    """The server; `with FakeBatch() as server:` or start()/stop()."""

    def __init__(self, *, expire: set[int] | frozenset[int] = frozenset(), invalid: set[int] | frozenset[int] = frozenset(), reject_prefill: bool = False, slow_create: float = 0.0, seed: int = 7):
        self.expire = set(expire)
        self.invalid = set(invalid)
        self.slow_create = slow_create  # seconds a job creation takes to be answered (after the job exists)
        self.reject_prefill = reject_prefill
        self.hold = False  # True: jobs stay in progress (to interrupt a run while it waits)
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.jobs: dict[str, dict[str, Any]] = {}
        self.submissions = 0
        self.requests: list[tuple[str, str, dict]] = []
        self.attempts: collections.Counter[str] = collections.Counter()
        self.paid: collections.Counter[str] = collections.Counter()
        self._server: _Server | None = None

    def start(self) -> FakeBatch:
        fake = self

        class Handler(_BatchHandler):
            server_fake = fake

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeBatch:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def paid_twice(self) -> list[str]:
        with self.lock:
            return [key for key, count in self.paid.items() if count > 1]

    # -- answering ----------------------------------------------------------------------
    def answer(self, route: str, body: dict) -> tuple[int, dict]:
        """What the interactive fake would reply to `body` on `route`: (status, payload)."""
        messages = body.get("messages") or []
        prompt = _first_user(messages)
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        with self.lock:
            attempt = self.attempts[prompt]
            self.attempts[prompt] += 1
        if "batcherror" in DIRECTIVE.findall(prompt):
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "scripted batch error"}}
        if self.reject_prefill and route == "/v1/messages" and messages and messages[-1].get("role") == "assistant":
            message = "This model does not support assistant message prefill. The conversation must end with a user message."
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        if body.get("temperature") != 0 or not isinstance(max_tokens, int):
            return 400, {"error": {"message": "the fake wants temperature 0 and a bound on output tokens"}}
        text, truncated = reply_text(_Handler._action(prompt, attempt), prompt)
        call = hashlib.sha256(json.dumps([route, messages, max_tokens], sort_keys=True).encode()).hexdigest()
        with self.lock:
            self.paid[call] += 1
        return 200, envelope(route, body, prompt, text, truncated)

    def run_job(self, job: dict[str, Any]) -> None:
        """Answer a job's requests (all of them, or half when it expires), in a shuffled order."""
        items = list(job["items"])
        ran = items[: len(items) // 2] if job["expires"] else items
        results = [(custom_id, *self.answer(job["route"], body)) for custom_id, body in ran]
        unrun = [custom_id for custom_id, _ in items[len(ran) :]]
        self.random.shuffle(results)
        job["results"], job["unrun"] = results, unrun


class _BatchHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_fake: FakeBatch

    def log_message(self, *args: object) -> None:
        pass

    # -- plumbing -------------------------------------------------------------------------
    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def _log(self, method: str) -> None:
        with self.server_fake.lock:
            self.server_fake.requests.append((method, self.path, dict(self.headers)))

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self._log("POST")
        data = self._body()
        if self.path == "/v1/files":
            return self._upload(data)
        if self.path == "/v1/batches":
            return self._create_openai(json.loads(data))
        if self.path == "/v1/messages/batches":
            return self._create_anthropic(json.loads(data))
        if self.path in ("/v1/chat/completions", "/v1/messages"):  # interactive calls, answered alike
            return self._send(*self.server_fake.answer(self.path, json.loads(data)))
        self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_GET(self) -> None:  # noqa: N802
        self._log("GET")
        path = self.path.split("?", 1)[0]
        fake = self.server_fake
        if path in ("/v1/batches", "/v1/messages/batches"):
            kind = "openai" if path == "/v1/batches" else "anthropic"
            jobs = [self._job_view(job) for job in reversed(fake.jobs.values()) if job["kind"] == kind]
            return self._send(200, {"data": jobs, "has_more": False})
        if match := re.fullmatch(r"/v1/(?:messages/)?batches/([\w-]+)", path):
            job = fake.jobs.get(match.group(1))
            if job is None:
                return self._send(404, {"error": {"message": "no such batch"}})
            self._advance(job)
            return self._send(200, self._job_view(job))
        if match := re.fullmatch(r"/v1/files/([\w-]+)/content", path):
            content = fake.files.get(match.group(1))
            return self._send(200, content, "application/jsonl") if content is not None else self._send(404, {"error": {"message": "no such file"}})
        if match := re.fullmatch(r"/v1/messages/batches/([\w-]+)/results", path):
            job = fake.jobs.get(match.group(1))
            if job is None or job["step"] < 1:
                return self._send(404, {"error": {"message": "no results yet"}})
            return self._send(200, self._anthropic_results(job), "application/binary")
        self._send(404, {"error": {"message": f"no route {path}"}})

    # -- OpenAI -------------------------------------------------------------------------------
    def _upload(self, data: bytes) -> None:
        message = email.parser.BytesParser().parsebytes(b"Content-Type: " + self.headers["content-type"].encode() + b"\r\n\r\n" + data)
        parts = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True) for part in message.get_payload()}
        if parts.get("purpose") != b"batch" or not parts.get("file"):
            return self._send(400, {"error": {"message": "purpose must be batch, with a file"}})
        fake = self.server_fake
        with fake.lock:
            file_id = f"file-{len(fake.files) + 1}"
            fake.files[file_id] = parts["file"]
        self._send(200, {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(parts["file"])})

    def _create_openai(self, body: dict) -> None:
        fake = self.server_fake
        content = fake.files.get(body.get("input_file_id"))
        if content is None or body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return self._send(400, {"error": {"message": "bad batch creation"}})
        lines = [json.loads(line) for line in content.decode("utf-8").splitlines() if line.strip()]
        if len({line["custom_id"] for line in lines}) != len(lines) or any(line.get("url") != "/v1/chat/completions" for line in lines):
            return self._send(400, {"error": {"message": "custom ids must be unique and urls /v1/chat/completions"}})
        job = self._new_job("openai", "batch", "/v1/chat/completions", [(line["custom_id"], line["body"]) for line in lines])
        job["metadata"] = body.get("metadata") or {}
        self._reply_created(job)

    # -- Anthropic ----------------------------------------------------------------------------
    def _create_anthropic(self, body: dict) -> None:
        requests = body.get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if not requests or len(set(ids)) != len(ids) or not all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", str(i)) for i in ids):
            return self._send(400, {"error": {"type": "invalid_request_error", "message": "bad custom ids"}})
        job = self._new_job("anthropic", "msgbatch", "/v1/messages", [(r["custom_id"], r["params"]) for r in requests])
        self._reply_created(job)

    def _reply_created(self, job: dict) -> None:
        if self.server_fake.slow_create:
            time.sleep(self.server_fake.slow_create)
        try:
            self._send(200, self._job_view(job))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _anthropic_results(self, job: dict) -> bytes:
        lines = []
        for custom_id, status, payload in job["results"]:
            if status == 200:
                result = {"type": "succeeded", "message": payload}
            else:
                result = {"type": "errored", "error": {"type": "error", "error": payload.get("error")}}
            lines.append({"custom_id": custom_id, "result": result})
        lines += [{"custom_id": custom_id, "result": {"type": "expired"}} for custom_id in job["unrun"]]
        return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")

    # -- jobs -----------------------------------------------------------------------------------
    def _new_job(self, kind: str, prefix: str, route: str, items: list) -> dict:
        fake = self.server_fake
        with fake.lock:
            fake.submissions += 1
            job = {"id": f"{prefix}_{fake.submissions}", "kind": kind, "route": route, "items": items, "step": 0, "expires": fake.submissions in fake.expire, "invalid": fake.submissions in fake.invalid, "created_at": 1_900_000_000 + fake.submissions}
            fake.jobs[job["id"]] = job
        return job

    def _advance(self, job: dict) -> None:
        fake = self.server_fake
        last = len(OPENAI_STEPS) - 1 if job["kind"] == "openai" else 1
        if job["step"] < last and not (fake.hold and job["step"] + 1 == last):
            job["step"] += 1
            if job["step"] == last and job["invalid"]:
                job["results"], job["unrun"] = [], []
            elif job["step"] == last:
                fake.run_job(job)
                if job["kind"] == "openai":
                    self._write_openai_files(job)

    def _write_openai_files(self, job: dict) -> None:
        fake = self.server_fake
        output, errors = [], []
        for n, (custom_id, status, payload) in enumerate(job["results"]):
            line = {"id": f"batch_req_{n}", "custom_id": custom_id, "response": {"status_code": status, "request_id": f"req_{n}", "body": payload}, "error": None}
            (output if status == 200 else errors).append(line)
        for custom_id in job["unrun"]:
            errors.append({"id": "batch_req_x", "custom_id": custom_id, "response": None, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
        for name, lines in (("output_file_id", output), ("error_file_id", errors)):
            if lines:
                with fake.lock:
                    file_id = f"file-{len(fake.files) + 1}"
                    fake.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
                job[name] = file_id

    def _job_view(self, job: dict) -> dict:
        done = job["step"] == (2 if job["kind"] == "openai" else 1)
        results = job.get("results") or []
        ok = sum(1 for _, status, _ in results if status == 200)
        if job["kind"] == "openai":
            status = OPENAI_STEPS[job["step"]]
            if done and job["expires"]:
                status = "expired"
            if done and job["invalid"]:
                status = "failed"
            counts = {"total": len(job["items"]), "completed": ok, "failed": len(job["items"]) - ok if done else 0}
            view = {"id": job["id"], "object": "batch", "endpoint": "/v1/chat/completions", "status": status, "created_at": job["created_at"],
                    "metadata": job.get("metadata"), "request_counts": counts,
                    "errors": {"object": "list", "data": [{"code": "invalid_model", "message": "scripted: the model is not available for batch", "line": 1}]} if done and job["invalid"] else None,
                    "output_file_id": job.get("output_file_id"), "error_file_id": job.get("error_file_id")}  # fmt: skip
            return view
        counts = {"processing": 0 if done else len(job["items"]), "succeeded": ok, "errored": len(results) - ok, "canceled": 0, "expired": len(job.get("unrun") or [])}
        return {
            "id": job["id"],
            "type": "message_batch",
            "processing_status": "ended" if done else "in_progress",
            "request_counts": counts,
            "created_at": "2030-03-17T17:46:40Z",
            "results_url": f"{self._base()}/v1/messages/batches/{job['id']}/results" if done else None,
        }

    def _base(self) -> str:
        return f"http://{self.headers.get('host')}"
