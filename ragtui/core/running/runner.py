"""Run a system on a gold set: workers over the questions not yet recorded, one line each.

`run_system(system, questions, out, meta, settings)` asks the questions `out` holds no
record for (the resumability rules are `run_file.py`'s), `settings.concurrency` at a
time — workers pulling from a queue, as the judge runner does — and appends each
question's record the moment it is answered. A finished run asks nothing.

A record (docs/formats.md): `id`, `question`, `category`, `retrieved` (ranked), `answer`,
`abstained` (from the fallback phrases), `latency_ms` (the whole question) with
`latency_stages_ms` (`retrieve`, `generate`) when the system is called in two stages,
`tokens_in`, `tokens_out`, `cost_usd` when the system gives them, and `error` when the
question failed in the system: a system error, recorded with its reason and no answer.

A system that checks its first call (Python callables) is asked the first question
alone: a reply of the wrong shape or an exception there stops the run before anything
else is asked, with one message (InputError). `SystemStopped` (a server that cannot be
reached, a command that died) stops the workers; what was recorded stays.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ragtui.core.errors import InputError, problem
from ragtui.core.heap import earlier_objects_left_out_of_collections
from ragtui.core.measuring.textnorm import has_any_phrase
from ragtui.core.running.answers import SystemAnswer, SystemFailure, SystemStopped
from ragtui.core.running.run_file import PreviousRun, RunWriter, read_previous
from ragtui.core.workers import run_workers


class System(Protocol):
    """A way to reach the system under test (callables.py, endpoint.py, command.py)."""

    @property
    def description(self) -> str: ...

    @property
    def sources(self) -> Sequence[Path]: ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc: object) -> None: ...

    @property
    def retries(self) -> int:
        """Requests sent again so far (HTTP retries; 0 where nothing is retried)."""
        ...

    async def ask(self, question_id: str, question: str, k: int) -> SystemAnswer: ...


class ProgressSink(Protocol):
    """What the runner reports to as questions finish (the CLI draws it on stderr)."""

    def begin(self, total: int) -> None: ...

    def update(self, *, error: bool, cost: float | None, cached: bool, retries: int | None, latency_ms: float | None = None) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class GoldQuestion:
    """What the system is asked, and what the record repeats of the gold set."""

    id: str
    question: str
    category: str | None = None


@dataclass(frozen=True)
class RunSettings:
    k: int = 5
    concurrency: int = 4
    rerun_errors: bool = False
    fallback_phrases: tuple[str, ...] = ("Je ne trouve pas cette information",)
    check_first_call: bool = False  # ask one question alone first; its failure is an InputError


@dataclass
class RunTotals:
    """What one invocation did."""

    questions: int = 0  # in the gold set
    recorded_before: int = 0  # already in the file: not asked
    asked: int = 0
    answered: int = 0
    errors: int = 0
    error_ids: list[str] = field(default_factory=list)
    rerun_ids: list[str] = field(default_factory=list)  # system errors asked again (--rerun-errors)
    latencies_ms: list[float] = field(default_factory=list)
    stopped: str | None = None  # why the run stopped before the end

    @property
    def p50_ms(self) -> float | None:
        return statistics.median(self.latencies_ms) if self.latencies_ms else None


@dataclass
class RunResult:
    path: Path
    meta: dict[str, Any]
    totals: RunTotals
    warnings: list[str]


def build_record(question: GoldQuestion, answer: SystemAnswer | None, error: str | None, latency_ms: float, phrases: tuple[str, ...]) -> dict[str, Any]:
    """One question's line of the run file."""
    record: dict[str, Any] = {"id": question.id, "question": question.question}
    if question.category is not None:
        record["category"] = question.category
    if answer is None:
        record.update({"answer": None, "latency_ms": round(latency_ms, 3), "error": error})
        return record
    record["retrieved"] = answer.passages
    record["answer"] = answer.answer
    record["abstained"] = answer.answer is not None and has_any_phrase(answer.answer, phrases)
    record["latency_ms"] = round(latency_ms, 3)
    if answer.retrieve_ms is not None and answer.generate_ms is not None:
        record["latency_stages_ms"] = {"retrieve": round(answer.retrieve_ms, 3), "generate": round(answer.generate_ms, 3)}
    for name in ("tokens_in", "tokens_out", "cost_usd"):
        value = getattr(answer.usage, name)
        if value is not None:
            record[name] = int(value) if name != "cost_usd" and float(value).is_integer() else value
    return record


def _check_meta(out: Path, previous: PreviousRun, meta: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The metadata the file keeps (its own when resuming) and what differs from this invocation."""
    if previous.meta is None:
        return meta, []
    kept = previous.meta
    if kept.get("k") is not None and kept.get("k") != meta["k"]:
        raise InputError(problem(out, 1, "run.k", f"this run was started with k = {kept.get('k')}, not {meta['k']}: rerun with -k {kept.get('k')}, or write to another -o"))
    warnings = []
    if kept.get("gold_set_sha1") not in (None, meta.get("gold_set_sha1")):
        warnings.append(f"the gold set changed since {out} was started: the questions it does not record yet are asked; its metadata still names the first gold set")
    if kept.get("system") not in (None, meta.get("system")):
        warnings.append(f"{out} was started with {kept.get('system')!r}; now resumed with {meta.get('system')!r}")
    return kept, warnings


async def run_system(
    system: System,
    questions: Sequence[GoldQuestion],
    out: Path,
    meta: dict[str, Any],
    settings: RunSettings,
    *,
    progress: ProgressSink | None = None,
) -> RunResult:
    """Ask `system` every question `out` does not record yet; append each record as it comes.

    Raises:
        InputError: `out` cannot be resumed, or the first call of a checked system failed.
    """
    previous = read_previous(out, rerun_errors=settings.rerun_errors)
    kept_meta, warnings = _check_meta(out, previous, meta)
    todo = [q for q in questions if q.id not in previous.records]
    totals = RunTotals(questions=len(questions), recorded_before=len(questions) - len(todo), rerun_ids=list(previous.dropped_errors))
    if not todo:
        if previous.needs_rewrite or previous.meta is None:
            RunWriter(out, kept_meta, previous).close()
        if progress is not None:
            progress.close()
        return RunResult(out, kept_meta, totals, warnings)
    queue: asyncio.Queue[GoldQuestion] = asyncio.Queue()
    for question in todo:
        queue.put_nowait(question)
    if progress is not None:
        progress.begin(len(todo))

    async def ask(question: GoldQuestion, writer: RunWriter, *, checked: bool = False) -> None:
        """One question asked and recorded; `checked`: its failure stops the run (InputError)."""
        started = time.perf_counter()
        answer: SystemAnswer | None = None
        error = None
        try:
            answer = await system.ask(question.id, question.question, settings.k)
        except SystemFailure as exc:
            if checked:
                raise InputError(problem(system.description, None, None, f"the first call (question {question.id}) failed, nothing was recorded: {exc}")) from None
            error = str(exc)
        latency = (time.perf_counter() - started) * 1000.0
        totals.asked += 1
        writer.append(build_record(question, answer, error, latency, settings.fallback_phrases))
        if error is None:
            totals.answered += 1
            totals.latencies_ms.append(latency)
        else:
            totals.errors += 1
            totals.error_ids.append(question.id)
        if progress is not None:
            cost = None if answer is None else answer.usage.cost_usd
            progress.update(error=error is not None, cost=0.0 if cost is None else cost, cached=False, retries=system.retries, latency_ms=latency)

    async def worker(writer: RunWriter) -> None:
        while True:
            try:
                question = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await ask(question, writer)

    async with system:
        with RunWriter(out, kept_meta, previous) as writer, earlier_objects_left_out_of_collections():
            try:
                if settings.check_first_call:  # the first question alone: a broken system stops here
                    await ask(queue.get_nowait(), writer, checked=True)
                await run_workers(lambda: worker(writer), min(settings.concurrency, max(1, queue.qsize())))
            except SystemStopped as stopped:
                totals.stopped = str(stopped)
            finally:
                if progress is not None:
                    progress.close()
    return RunResult(out, kept_meta, totals, warnings)

