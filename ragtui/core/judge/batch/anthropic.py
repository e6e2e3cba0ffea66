"""Anthropic's Message Batches: the requests in the body of one call, results as JSONL.

    POST {base}/v1/messages/batches        {"requests": [{"custom_id", "params"}]} -> {"id": "msgbatch_…"}
    GET  {base}/v1/messages/batches/{id}   processing_status: in_progress → ended (canceling);
                                           request_counts {processing, succeeded, errored,
                                           canceled, expired}; results_url once ended
    GET  results_url                       JSONL lines {"custom_id", "result": {"type":
                                           succeeded | errored | expired | canceled, …}}

`params` is the body the interactive path would send to /v1/messages. Limits: 100,000
requests and 256 MB per job. Anthropic jobs carry no metadata, so a job created by a run
interrupted before it learnt the id is recognised by its creation time and size.
The key is sent to `results_url` only when it is on the configured server.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from ragtui.core.judge.batch.api import BatchAPI, BatchRequest, JobStatus, Limits, RequestResult
from ragtui.core.judge.client import CallError
from ragtui.core.loading import bounded_json

COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")
UNRUN = {
    "expired": "the batch expired before this request ran (24 h window)",
    "canceled": "the batch was cancelled before this request ran",
}
CLOCK_SKEW = 120.0  # seconds of disagreement allowed between our clock and the provider's


def _entry(request: BatchRequest) -> bytes:
    return json.dumps({"custom_id": request.custom_id, "params": request.body}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _timestamp(value: Any) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class AnthropicBatchAPI(BatchAPI):
    name = "anthropic"
    limits = Limits(max_requests=100_000, max_bytes=256_000_000)

    @property
    def jobs_url(self) -> str:
        return f"{self.base}/v1/messages/batches"

    def line_size(self, request: BatchRequest) -> int:
        return len(_entry(request)) + 1

    async def submit(self, requests: list[BatchRequest], intent: str) -> tuple[str, dict[str, Any]]:
        body = b'{"requests":[' + b",".join(_entry(r) for r in requests) + b"]}"
        created = await self.http.send("POST", self.jobs_url, content=body, headers={"content-type": "application/json"}, idempotent=False)
        return str(created.json()["id"]), {}

    async def find(self, intent: str, submitted_after: float, size: int) -> str | None:
        page = (await self.http.send("GET", self.jobs_url, params={"limit": 100})).json()
        matches = [
            str(job["id"])
            for job in page.get("data") or []
            if _timestamp(job.get("created_at")) >= submitted_after - CLOCK_SKEW
            and sum(int((job.get("request_counts") or {}).get(name) or 0) for name in COUNTS) == size
        ]
        if len(matches) > 1:
            raise CallError(
                f"an interrupted submission of {size} requests may have created any of the jobs {', '.join(matches)}: "
                f"cancel the ones that are not yours in the Anthropic console, then rerun",
                fatal=True,
            )
        return matches[0] if matches else None

    async def status(self, job_id: str) -> JobStatus:
        job = (await self.http.send("GET", f"{self.jobs_url}/{job_id}")).json()
        counts = {name: int((job.get("request_counts") or {}).get(name) or 0) for name in COUNTS}
        failed = counts["errored"] + counts["canceled"] + counts["expired"]
        status = str(job.get("processing_status"))
        refs = {"results_url": job["results_url"]} if job.get("results_url") else {}
        return JobStatus(status, status == "ended", counts["succeeded"] + failed, failed, sum(counts.values()), None, refs)

    def _results_url(self, job_id: str, status: JobStatus) -> str:
        given = status.result_refs.get("results_url")
        ours = urlsplit(self.base)
        if given and urlsplit(given)[:2] == ours[:2]:
            return str(given)
        return f"{self.jobs_url}/{job_id}/results"  # never send the key to another host

    async def results(self, job_id: str, status: JobStatus) -> list[RequestResult]:
        text = (await self.http.send("GET", self._results_url(job_id, status))).text
        return [self._read_line(bounded_json.loads(line)) for line in text.splitlines() if line.strip()]

    def _read_line(self, line: dict[str, Any]) -> RequestResult:
        custom_id = str(line.get("custom_id"))
        result = line.get("result") or {}
        kind = result.get("type")
        if kind == "succeeded":
            return self._completion(custom_id, result.get("message"))
        if kind in UNRUN:
            return RequestResult(custom_id, error=UNRUN[kind])
        error = (result.get("error") or {}).get("error") or result.get("error") or {}
        message = self.http.redact(str(error.get("message") or error.get("type") or "errored, no detail"))
        refusal = message if error.get("type") == "invalid_request_error" else None
        return RequestResult(custom_id, error=f"{error.get('type') or 'error'}: {message}", refusal=refusal)
