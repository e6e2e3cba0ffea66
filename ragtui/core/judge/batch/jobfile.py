"""`OUT.batch.json`: the jobs a batch judge run submitted, so a rerun never pays twice.

Written atomically (ragtui.core.atomic) at every step that matters, before the step:
1. an *intent* (custom ids, time) before a job is created — a run killed while creating
   it leaves the intent, and the next run asks the provider whether the job exists
   (`BatchAPI.find`) before submitting anything again;
2. the job id right after the provider returns it;
3. `collected` once the job's results are in the cache (the cache is flushed first), with
   the provider's message for each request that got no answer.
A rerun polls the jobs not yet collected instead of submitting their requests again.

    {"format": "ragtui-judge-batch/1", "provider": "openai", "model": "gpt-4.1-mini",
     "base_url": "https://api.openai.com/v1", "prompt_version": "ragtui-fr@…",
     "jobs": [{"intent": "3f2a…", "id": "batch_…" | null, "state": "submitting" | "submitted" | "collected",
               "created_at": "…Z", "submitted_at": "…Z" | null, "collected_at": "…Z" | null,
               "custom_ids": ["<cache key>", …], "estimated_cost_usd": 0.41 | null,
               "status": "in_progress", "done": 120, "failed": 1, "input_file_id": "file-…"}],
     "failed": {"<cache key>": "<the provider's message>"},
     "adaptations": ["<a provider's 400 text that changed how requests are built>"]}

No key, header or prompt is stored: custom ids are the cache's sha256 keys.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtui.core.atomic import atomic_write_text
from ragtui.core.errors import InputError, problem
from ragtui.core.judge.batch.api import now_iso
from ragtui.core.loading import bounded_json
from ragtui.core.loading.own_files import BATCH_JOBS_SUFFIX

FORMAT = "ragtui-judge-batch/1"
OPEN_STATES = ("submitting", "submitted")


def job_file_path(out: str | Path) -> Path:
    """Where the job file of OUT lives: next to it, `OUT.batch.json`."""
    return Path(f"{out}{BATCH_JOBS_SUFFIX}")


def open_job_count(path: Path) -> int:
    """How many jobs the job file at `path` lists as submitted (or being submitted) and not
    collected: 0 when there is no file, or none can be read from it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return sum(1 for job in data["jobs"] if job.get("state") in OPEN_STATES)
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
        return 0


@dataclass
class JobFile:
    """The job file's contents; `save()` after each change."""

    path: Path
    data: dict[str, Any]

    @classmethod
    def open(cls, path: Path, identity: dict[str, str]) -> JobFile:
        """The job file at `path` (a fresh one when absent); InputError if it is another run's."""
        if not path.exists():
            return cls(path, {"format": FORMAT, **identity, "jobs": [], "failed": {}, "adaptations": []})
        try:
            data = bounded_json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(problem(path, None, None, f"unreadable batch job file ({exc}); it may list jobs still running at the provider")) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("jobs"), list):
            raise InputError(problem(path, None, "format", f"not a ragtui batch job file (expected format {FORMAT})"))
        for name, value in identity.items():
            if data.get(name) != value:
                raise InputError(
                    problem(
                        path,
                        None,
                        name,
                        f"the jobs in this file were submitted with {name} {data.get(name)!r}, not {value!r}: "
                        f"rerun with the same settings to collect them, or move the file away to start afresh",
                    )
                )
        data.setdefault("failed", {})
        data.setdefault("adaptations", [])
        return cls(path, data)

    def save(self) -> None:
        atomic_write_text(self.path, json.dumps(self.data, ensure_ascii=False, indent=1) + "\n")

    @property
    def jobs(self) -> list[dict[str, Any]]:
        return self.data["jobs"]

    @property
    def failed(self) -> dict[str, str]:
        return self.data["failed"]

    @property
    def adaptations(self) -> list[str]:
        return self.data["adaptations"]

    def open_jobs(self) -> Iterator[dict[str, Any]]:
        """Jobs submitted (or being submitted) whose results are not collected yet."""
        return (job for job in self.jobs if job["state"] in OPEN_STATES)

    def pending_ids(self) -> set[str]:
        """Custom ids waiting on an open job: never submitted again."""
        return {custom_id for job in self.open_jobs() for custom_id in job["custom_ids"]}

    def add_intent(self, custom_ids: list[str], estimated_cost: float | None) -> dict[str, Any]:
        """Record a job about to be created, and save: the first thing written, always."""
        job = {
            "intent": secrets.token_hex(8),
            "id": None,
            "state": "submitting",
            "created_at": now_iso(),
            "created_ts": time.time(),
            "submitted_at": None,
            "collected_at": None,
            "custom_ids": custom_ids,
            "estimated_cost_usd": None if estimated_cost is None else round(estimated_cost, 6),
        }
        self.jobs.append(job)
        self.save()
        return job

    def mark_submitted(self, job: dict[str, Any], job_id: str, extra: dict[str, Any]) -> None:
        job.update(extra, id=job_id, state="submitted", submitted_at=now_iso())
        self.save()

    def drop_intent(self, job: dict[str, Any]) -> None:
        """An intent the provider has no job for: its requests are submitted afresh."""
        self.jobs.remove(job)
        self.save()

    def forget_failures(self) -> None:
        """Forget the requests jobs failed (`--retry-errors`): the next round submits them again."""
        if self.failed:
            self.failed.clear()
            self.save()

    def mark_collected(self, job: dict[str, Any], failures: dict[str, str]) -> None:
        """Results are in the cache: remember the failures, stop polling this job."""
        self.failed.update(failures)
        job.update(state="collected", collected_at=now_iso())
        self.save()
