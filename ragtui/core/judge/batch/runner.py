"""Judge a whole run through a provider's batch API, in rounds, resumable at any point.

`judge_run_batch(raw, settings, options, gold=...)` repeats, until no call is missing:
1. *judge* the run with the interactive runner (`judge_run`) whose client is a
   `BatchCalls` (calls.py): calls in the cache are used, failed ones are judge errors
   (or asked interactively with `fallback`), the others are deferred and collected as
   wanted. When nothing was deferred, that run is the result: OUT is the interactive OUT;
2. *submit* the wanted calls that no open job already holds, split within the
   provider's limits (requests and bytes per job), each job's intent and then its id
   saved in the job file (`OUT.batch.json`) before anything else happens;
3. *poll* the open jobs (poller.py) and *collect* each ended one: answers into the cache
   (flushed), then the job marked collected with the provider's message for each
   request without an answer. Repairs and truncation retries are the next round's calls.
Without `wait`, step 3 polls once: jobs still running are left to a later run.
A rerun of a finished run is step 1 alone: no request at all. With `retry_errors`, the
requests earlier jobs failed are forgotten first (so submitted again), and a question
whose judge error the cache replays has those replies forgotten (so they are wanted again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.judge.batch.anthropic import AnthropicBatchAPI
from ragtui.core.judge.batch.api import BatchAPI, BatchHTTP, BatchRequest, JobStatus, Limits, UncertainSubmission, now_iso
from ragtui.core.judge.batch.calls import BatchCalls, WantedCall
from ragtui.core.judge.batch.jobfile import JobFile
from ragtui.core.judge.batch.openai import OpenAIBatchAPI
from ragtui.core.judge.batch.poller import BatchProgressSink, poll
from ragtui.core.judge.client import CallError, JudgeClient
from ragtui.core.judge.judging import JudgeSession
from ragtui.core.judge.pricing import PriceTable
from ragtui.core.judge.providers import make_provider
from ragtui.core.judge.runner import JudgeRunResult, judge_run
from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.loading.records import RawRun

log = logging.getLogger("ragtui.judge")
APIS: dict[str, type[BatchAPI]] = {"openai": OpenAIBatchAPI, "anthropic": AnthropicBatchAPI}
MAX_ROUNDS = 8  # first call, truncation retry, repair, a few step-downs: never more


@dataclass(frozen=True)
class BatchOptions:
    """How a batch run submits and waits."""

    job_path: Path
    wait: bool = True
    fallback: bool = False
    poll_interval: float = 10.0
    poll_max_interval: float = 300.0
    limits: Limits | None = None  # the provider's own when None (tests pass small ones)
    retry_errors: bool = False  # submit again what jobs failed, ask again errors the cache replays


@dataclass
class BatchOutcome:
    """What a batch run did; `result` is None when jobs are left running (no wait)."""

    result: JudgeRunResult | None
    jobs_submitted: int = 0
    requests_submitted: int = 0
    answers_collected: int = 0
    requests_failed: int = 0  # recorded in the job file, this run and before
    fallback_calls: int = 0
    open_jobs: int = 0
    http_requests: int = 0  # to the batch endpoints (submit, poll, download)


def check_batch_settings(settings: JudgeSettings) -> None:
    """InputError when a batch run cannot work with these settings."""
    if settings.provider not in APIS:
        raise InputError(problem("judge settings", None, "provider", f"--batch works with --provider openai or anthropic, not {settings.provider}"))
    if settings.cache_dir is None:
        raise InputError(problem("judge settings", None, "cache", "--batch keeps the answers in the cache: drop --no-cache"))


async def judge_run_batch(
    raw: RawRun,
    settings: JudgeSettings,
    options: BatchOptions,
    *,
    gold: Mapping[str, Mapping[str, Any]] | None = None,
    progress: BatchProgressSink | None = None,
) -> BatchOutcome:
    """Judge `raw` through the batch API. Raises CallError (fatal) or InputError."""
    check_batch_settings(settings)
    session = JudgeSession(settings, retry_errors=options.retry_errors)
    provider = make_provider(session.settings)
    identity = {"provider": settings.provider, "model": settings.model, "base_url": settings.resolved_base_url}
    jobs = JobFile.open(options.job_path, identity)
    if options.retry_errors:
        jobs.forget_failures()  # their requests become wanted again, and are submitted
    for refusal in jobs.adaptations:  # requests are built as the provider last accepted them
        provider.adapt(400, refusal)
    calls = BatchCalls(session.settings, session.prompt_version, session.cache, provider, jobs)
    session.client = calls  # type: ignore[assignment]  # JudgeSession types its client loosely (None until entered)
    outcome = BatchOutcome(None)
    try:
        if options.fallback:
            calls.fallback = JudgeClient(session.settings, session.prompt_version, session.cache)
            await calls.fallback.__aenter__()
        async with BatchHTTP(session.settings, provider) as http:
            api = APIS[settings.provider](session.settings, provider, http, options.limits)
            run = _BatchRun(api, calls, jobs, session.prices, options, progress, outcome)
            try:
                outcome.result = await run.rounds(raw, gold or {}, session)
            finally:
                outcome.http_requests = http.requests
        if calls.fallback is not None:
            outcome.fallback_calls = calls.fallback.stats.paid_calls
        if outcome.result is not None and session.prices.price(settings.model, settings.provider, batch=True) is None and not session.unknown_price:
            outcome.result.warnings.append(
                f"no batch price known for model '{settings.model}': its cost is reported as unknown "
                f"(add batch_input and batch_output under judge: prices: in ragtui.yaml)"
            )
        return outcome
    finally:
        outcome.requests_failed = len(jobs.failed)
        if calls.fallback is not None:
            await calls.fallback.__aexit__(None, None, None)
        await session.cache.close()
        if progress is not None:
            progress.close()


class _BatchRun:
    """The rounds of one batch run: judge from the cache, submit, poll, collect."""

    def __init__(self, api: BatchAPI, calls: BatchCalls, jobs: JobFile, prices: PriceTable, options: BatchOptions, progress: BatchProgressSink | None, outcome: BatchOutcome):
        self.api = api
        self.calls = calls
        self.jobs = jobs
        self.prices = prices
        self.options = options
        self.progress = progress
        self.outcome = outcome

    async def rounds(self, raw: RawRun, gold: Mapping[str, Mapping[str, Any]], session: JudgeSession) -> JudgeRunResult | None:
        """The judged run once every call is answered or failed; None when jobs are left running."""
        await self._settle_interrupted_submissions()
        for _ in range(MAX_ROUNDS):
            # Each round is the interactive runner; the calls the cache cannot answer are deferred.
            self.calls.wanted.clear()
            result = await judge_run(raw, session.settings, gold=gold, session=session)
            if not self.calls.wanted:
                return result
            pending = self.jobs.pending_ids()
            await self._submit([wanted for key, wanted in self.calls.wanted.items() if key not in pending])
            running = await poll(
                self.api,
                list(self.jobs.open_jobs()),
                self._collect,
                wait=self.options.wait,
                interval=self.options.poll_interval,
                max_interval=self.options.poll_max_interval,
                progress=self.progress,
            )
            if running:
                self.outcome.open_jobs = len(running)
                return None
        raise CallError(f"batch judging did not settle after {MAX_ROUNDS} rounds; please report it", fatal=True)

    async def _settle_interrupted_submissions(self) -> None:
        """Intents without a job id: adopt the job the provider has, or forget the intent."""
        for job in [job for job in self.jobs.open_jobs() if job["id"] is None]:
            found = await self.api.find(job["intent"], job["created_ts"], len(job["custom_ids"]))
            if found:
                log.warning("judge batch: found job %s, created by an interrupted run: collecting it", found)
                self.jobs.mark_submitted(job, found, {})
            else:
                self.jobs.drop_intent(job)

    def _chunks(self, wanted: list[WantedCall]) -> list[list[WantedCall]]:
        """Jobs within the provider's limits; a request too big for any job fails at once."""
        limits = self.api.limits
        chunks: list[list[WantedCall]] = []
        size = 0
        for call in wanted:
            line = self.api.line_size(call.request)
            if line > limits.max_bytes:
                self.jobs.failed[call.request.custom_id] = f"request of {line} bytes, more than a batch job takes ({limits.max_bytes})"
                continue
            if not chunks or len(chunks[-1]) >= limits.max_requests or size + line > limits.max_bytes:
                chunks.append([])
                size = 0
            chunks[-1].append(call)
            size += line
        return chunks

    def _estimate(self, chunk: list[WantedCall]) -> float | None:
        settings = self.calls.settings
        total = 0.0
        for call in chunk:
            cost = self.prices.cost(settings.model, call.tokens_in, call.tokens_out, settings.provider, batch=True)
            if cost is None:
                return None
            total += cost
        return total

    async def _submit(self, wanted: list[WantedCall]) -> None:
        for chunk in self._chunks(wanted):
            requests = [call.request for call in chunk]
            job = self.jobs.add_intent([r.custom_id for r in requests], self._estimate(chunk))
            job["adaptations_at_submit"] = len(self.jobs.adaptations)
            job_id, extra = await self._create(job, requests)
            self.jobs.mark_submitted(job, job_id, extra)
            self.outcome.jobs_submitted += 1
            self.outcome.requests_submitted += len(requests)
            log.info("judge batch: submitted job %s (%d requests)", job_id, len(requests))

    async def _create(self, job: dict[str, Any], requests: list[BatchRequest]) -> tuple[str, dict[str, Any]]:
        """Create the job; after an ambiguous failure, look for it before trying again."""
        policy = self.api.http.policy
        for attempt in range(policy.max_retries + 1):
            try:
                return await self.api.submit(requests, job["intent"])
            except UncertainSubmission as exc:
                log.warning("judge batch: %s; checking whether the job was created", exc)
                await asyncio.sleep(policy.backoff(attempt))
                found = await self.api.find(job["intent"], job["created_ts"], len(requests))
                if found:
                    return found, {}
            except CallError:
                self.jobs.drop_intent(job)  # the server said no: there is no job
                raise
            # Interrupted (Ctrl-C) mid-request, the intent stays: the next run settles it with find().
        raise CallError("could not create the batch job (no answer from the server); rerun the same command to resume")

    async def _collect(self, job: dict[str, Any], status: JobStatus) -> None:
        """An ended job's answers into the cache, then the job marked collected."""
        expected = set(job["custom_ids"])
        failures: dict[str, str] = {}
        refused: list[tuple[str, str]] = []
        seen: set[str] = set()
        collected_at = now_iso()
        results = await self.api.results(job["id"], status) if status.result_refs else []
        for result in results:
            if result.custom_id not in expected or result.custom_id in seen:
                continue
            seen.add(result.custom_id)
            if result.completion is not None:
                entry = self.calls.entry(result.custom_id, result.completion, job["id"], collected_at)
                self.calls.cache.put(result.custom_id, entry)
                self.outcome.answers_collected += 1
            elif result.refusal is not None:
                refused.append((result.custom_id, result.refusal))
            else:
                failures[result.custom_id] = result.error or "failed, no detail"
        missing = status.detail or f"no result for this request (job {job['id']} {status.status})"
        failures.update({custom_id: missing for custom_id in expected - seen})
        failures.update(self._adapt(job, refused))
        await self.calls.cache.flush()  # answers on disk before the job file says collected
        self.jobs.mark_collected(job, failures)

    def _adapt(self, job: dict[str, Any], refused: list[tuple[str, str]]) -> dict[str, str]:
        """Step down on a refused request feature; the refused requests go in the next round."""
        if not refused:
            return {}
        provider = self.calls.provider
        if job.get("adaptations_at_submit", 0) < len(self.jobs.adaptations):
            return {}  # the provider already stepped down since this job was built
        change = provider.adapt(400, refused[0][1]) if len(self.jobs.adaptations) < 6 else None
        if change is None:
            return {custom_id: f"HTTP 400: {text}" for custom_id, text in refused}
        log.warning("judge: %s", change)
        self.jobs.adaptations.append(refused[0][1])
        return {}
