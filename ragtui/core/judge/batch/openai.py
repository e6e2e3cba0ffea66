"""OpenAI's Batch API: a JSONL file uploaded with `purpose=batch`, one job per file.

    POST {base}/files                 multipart: purpose=batch, file=<JSONL>  -> {"id": "file-…"}
    POST {base}/batches               {"input_file_id", "endpoint": "/v1/chat/completions",
                                       "completion_window": "24h", "metadata"} -> {"id": "batch_…"}
    GET  {base}/batches/{id}          status: validating → in_progress → finalizing → completed
                                      (or failed, expired, cancelling → cancelled);
                                      request_counts {total, completed, failed}
    GET  {base}/files/{id}/content    output_file_id / error_file_id: JSONL lines
                                      {"custom_id", "response": {"status_code", "body"}, "error"}

Each input line is `{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`
with the body the interactive path would send. Limits: 50,000 requests and 200 MB per
file. The job's `metadata.ragtui_intent` names the submission, so a job created by a run
interrupted before it learnt the id is found again by listing the jobs.
"""

from __future__ import annotations

import json
from typing import Any

from ragtui.core.judge.batch.api import BatchAPI, BatchRequest, JobStatus, Limits, RequestResult
from ragtui.core.judge.providers import error_message
from ragtui.core.loading import bounded_json

ENDPOINT = "/v1/chat/completions"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
LIST_PAGES = 5  # pages of 100 jobs searched for an interrupted submission


def _line(request: BatchRequest) -> bytes:
    line = {"custom_id": request.custom_id, "method": "POST", "url": ENDPOINT, "body": request.body}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class OpenAIBatchAPI(BatchAPI):
    name = "openai"
    limits = Limits(max_requests=50_000, max_bytes=200_000_000)

    def line_size(self, request: BatchRequest) -> int:
        return len(_line(request))

    async def submit(self, requests: list[BatchRequest], intent: str) -> tuple[str, dict[str, Any]]:
        data = b"".join(_line(request) for request in requests)
        upload = await self.http.send(
            "POST",
            f"{self.base}/files",
            data={"purpose": "batch"},
            files={"file": (f"ragtui-{intent}.jsonl", data, "application/jsonl")},
        )
        file_id = str(upload.json()["id"])
        body = {"input_file_id": file_id, "endpoint": ENDPOINT, "completion_window": "24h", "metadata": {"ragtui_intent": intent}}
        created = await self.http.send("POST", f"{self.base}/batches", json=body, idempotent=False)
        return str(created.json()["id"]), {"input_file_id": file_id}

    async def find(self, intent: str, submitted_after: float, size: int) -> str | None:
        params: dict[str, Any] = {"limit": 100}
        for _ in range(LIST_PAGES):
            page = (await self.http.send("GET", f"{self.base}/batches", params=params)).json()
            jobs = page.get("data") or []
            for job in jobs:
                if (job.get("metadata") or {}).get("ragtui_intent") == intent:
                    return str(job["id"])
            # Jobs are listed newest first: past the submission time, it is not there.
            if not page.get("has_more") or not jobs or (jobs[-1].get("created_at") or 0) < submitted_after - 300:
                return None
            params["after"] = jobs[-1]["id"]
        return None

    async def status(self, job_id: str) -> JobStatus:
        job = (await self.http.send("GET", f"{self.base}/batches/{job_id}")).json()
        counts = job.get("request_counts") or {}
        completed, failed = int(counts.get("completed") or 0), int(counts.get("failed") or 0)
        status = str(job.get("status"))
        detail = None
        errors = (job.get("errors") or {}).get("data") or []
        if errors:
            detail = "; ".join(str(e.get("message") or e.get("code")) for e in errors[:3])
        refs = {name: job.get(name) for name in ("output_file_id", "error_file_id") if job.get(name)}
        return JobStatus(status, status in ENDED, completed + failed, failed, int(counts.get("total") or 0), detail, refs)

    async def results(self, job_id: str, status: JobStatus) -> list[RequestResult]:
        results: list[RequestResult] = []
        for name in ("output_file_id", "error_file_id"):
            file_id = status.result_refs.get(name)
            if not file_id:
                continue
            text = (await self.http.send("GET", f"{self.base}/files/{file_id}/content")).text
            for raw_line in text.splitlines():
                if raw_line.strip():
                    results.append(self._read_line(bounded_json.loads(raw_line)))
        return results

    def _read_line(self, line: dict[str, Any]) -> RequestResult:
        custom_id = str(line.get("custom_id"))
        error = line.get("error")
        if error:
            message = error.get("message") or error.get("code") if isinstance(error, dict) else error
            return RequestResult(custom_id, error=self.http.redact(str(message)))
        response = line.get("response") or {}
        code = response.get("status_code")
        body = response.get("body")
        if code == 200:
            return self._completion(custom_id, body)
        detail = self.http.redact(error_message(json.dumps(body)))
        return RequestResult(custom_id, error=f"HTTP {code}: {detail}", refusal=detail if code == 400 else None)
