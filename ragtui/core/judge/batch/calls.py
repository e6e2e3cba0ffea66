"""The judge's call source in batch mode: the cache, else "wait for the batch".

`JudgeSession` asks its client for each call (`complete(messages, max_tokens, schema)`)
and builds verdicts from the replies: the prompts, the repair and truncation steps and
the strict parser are the interactive ones. In batch mode its client is a `BatchCalls`:
- a call in the cache (answered interactively, or by a collected batch job) is returned;
- a call the provider failed in batch (recorded in the job file) is a judge error with
  the provider's message, or — with `--batch-fallback` — is made interactively by a
  real `JudgeClient`;
- any other call is noted as *wanted* and the question stops there (`Deferred`): the
  runner submits the wanted calls as jobs, collects them into the cache, and runs again.
Repairs and truncation retries thus become a second (third) round of batch requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragtui.core.judge.batch.api import BatchRequest
from ragtui.core.judge.batch.jobfile import JobFile
from ragtui.core.judge.cache import CallCache
from ragtui.core.judge.client import CallError, CallResult, ClientStats, JudgeClient, cached_call
from ragtui.core.judge.providers import Completion, Provider

# Rough output tokens of a verdict, for the cost estimate shown while jobs run.
ESTIMATED_TOKENS_PER_SENTENCE = 45
ESTIMATED_TOKENS_OF_UTILITY = 40


class Deferred(CallError):
    """Stops a question at a call the batch has not answered yet.

    JudgeSession.judge turns it into a judge error like any failed call; the runner
    throws that round's verdicts away whenever a call was deferred, so none is ever kept.
    """


@dataclass(frozen=True)
class WantedCall:
    """A call to submit, with what its cost estimate needs."""

    request: BatchRequest
    tokens_in: int  # estimated
    tokens_out: int  # estimated


class BatchCalls:
    """Stands in for JudgeClient inside a JudgeSession during a batch run."""

    def __init__(self, settings: Any, prompt_version: str, cache: CallCache, provider: Provider, jobs: JobFile):
        self.settings = settings
        self.prompt_version = prompt_version
        self.cache = cache
        self.provider = provider
        self.jobs = jobs
        self.stats = ClientStats()
        self.wanted: dict[str, WantedCall] = {}
        self.fallback: JudgeClient | None = None  # --batch-fallback: failed requests asked interactively

    async def complete(self, messages: list[dict[str, str]], max_tokens: int, schema: dict[str, Any], repeat: int = 0) -> CallResult:
        key, cached = cached_call(self.cache, self.settings, self.prompt_version, messages, max_tokens, self.stats, repeat)
        if cached is not None:
            return cached
        failure = self.jobs.failed.get(key)
        if failure is not None:
            if self.fallback is not None:
                return await self.fallback.complete(messages, max_tokens, schema, repeat)
            raise CallError(f"batch request failed: {failure} (rerun with --retry-errors to submit it again, or --batch-fallback to judge it interactively)")
        if key not in self.wanted:
            body = self.provider.body(messages, max_tokens, schema)
            characters = sum(len(m.get("content") or "") for m in messages)
            sentences = int(((schema.get("properties") or {}).get("sentences") or {}).get("minItems") or 1)
            estimate_out = ESTIMATED_TOKENS_OF_UTILITY + ESTIMATED_TOKENS_PER_SENTENCE * sentences
            self.wanted[key] = WantedCall(BatchRequest(key, body), characters // 4, min(estimate_out, max_tokens))
        raise Deferred(f"waiting for batch request {key}")

    def entry(self, key: str, completion: Completion, job_id: str, created_at: str) -> dict[str, Any]:
        """The cache entry of a batch answer: the interactive entry's fields, plus the job id."""
        wanted = self.wanted.get(key)
        return {
            "provider": self.settings.provider,
            "model": self.settings.model,
            "prompt_version": self.prompt_version,
            "request": {"body": wanted.request.body} if wanted else {},  # what the judge saw
            "response": completion.to_json(),
            "batch": job_id,
            "created_at": created_at,
        }
