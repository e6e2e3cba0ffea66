"""Judge a whole run: workers over the questions, totals into the run metadata.

`judge_run(raw, settings, gold=...)` gives every record a fresh `judge` object (keeping
every other field, known or not) and returns the new metadata with the totals:
`judge_model`, `judge_provider`, `judge_prompt_version`, `judge_cost_usd` (null when a
price is unknown), `judge_tokens_in`, `judge_tokens_out`, `judge_errors`,
`judge_injections` (verdicts whose judge reported a block trying to instruct it; kept),
and with `repeat=N` > 1 `judge_repeats` and `judge_repeat_errors`.

With `repeat=N`, every answer is judged N times with the same prompt (judge noise:
docs/judge.md). The first repetition is the record's verdict, exactly as a plain run
writes it, so every metric reads as before; the others go to `judge.repeats`, kept
slim (`repeat_verdict`). A worker judges one question's repetitions in turn, so the
first is always asked first, and each one is cached under its own key: a resumed run
pays for none twice.

`concurrency` workers pull questions from a queue (not one task per question: a
100,000-question run does not create 100,000 tasks); the HTTP client bounds the
requests in flight to the same number. Cancelling the run (Ctrl-C) stops the workers
and still waits for pending cache writes, so everything already paid for is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragtui.core.families import model_family, same_family_warning
from ragtui.core.judge.judging import JudgeSession, Outcome, Usage
from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.loading.records import RawRun
from ragtui.core.workers import run_workers


class ProgressSink(Protocol):
    """What the runner reports to as questions finish (the CLI draws it on stderr)."""

    def update(self, *, error: bool, cost: float | None, cached: bool, retries: int | None) -> None: ...

    def close(self) -> None: ...


# A judge from another family to suggest, per family of the generator.
_ALTERNATIVES = {
    "OpenAI": "--provider anthropic --model claude-sonnet-4-5",
    "Anthropic": "--provider openai --model gpt-4.1-mini",
}
_DEFAULT_ALTERNATIVE = "--provider anthropic --model claude-sonnet-4-5, or --provider openai --model gpt-4.1-mini"


@dataclass
class RunTotals:
    """What a judge run did, for the summary line and the metadata."""

    questions: int = 0
    judged: int = 0
    errors: int = 0
    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0
    repeat_errors: int = 0  # repetitions after the first that ended in a judge error
    error_ids: list[str] = field(default_factory=list)
    injection_ids: list[str] = field(default_factory=list)  # the judge said a block tried to instruct it
    directed_ids: list[str] = field(default_factory=list)  # the detector flagged the answer or a passage
    replayed_error_ids: list[str] = field(default_factory=list)  # judge errors given again by the cache
    retried_ids: list[str] = field(default_factory=list)  # judge errors from the cache asked again (--retry-errors)

    def add(self, record_id: str, usage: Usage, error: str | None) -> None:
        self.judged += 1
        self.calls += usage.calls
        self.cached_calls += usage.cached_calls
        self.tokens_in += usage.tokens_in
        self.tokens_out += usage.tokens_out
        self.cost_usd = None if usage.cost_usd is None or self.cost_usd is None else self.cost_usd + usage.cost_usd
        if error:
            self.errors += 1
            self.error_ids.append(record_id)

    def add_repeat(self, usage: Usage, error: str | None) -> None:
        """A repetition after the first: its calls and cost count, the question does not again."""
        self.calls += usage.calls
        self.cached_calls += usage.cached_calls
        self.tokens_in += usage.tokens_in
        self.tokens_out += usage.tokens_out
        self.cost_usd = None if usage.cost_usd is None or self.cost_usd is None else self.cost_usd + usage.cost_usd
        self.repeat_errors += int(error is not None)


@dataclass
class JudgeRunResult:
    meta: dict[str, Any]
    records: list[dict[str, Any]]
    totals: RunTotals
    warnings: list[str]


def repeat_verdict(judge: Mapping[str, Any]) -> dict[str, Any]:
    """What `judge.repeats` keeps of a repetition: each sentence's verdict, the score, the error.

    Texts and reasons stay with the first repetition: the repetitions exist to be compared
    with it, and N full copies would multiply the run file's size by N.
    """
    faithfulness = judge.get("faithfulness")
    utility = judge.get("utility")
    slim: dict[str, Any] = {
        "faithfulness": None if faithfulness is None else {"sentences": [{"attested": s["attested"]} for s in faithfulness["sentences"]]},
        "utility": None if utility is None else {"score": utility.get("score")},
        "error": judge.get("error"),
    }
    if judge.get("injection"):
        slim["injection"] = True
    slim["usage"] = judge.get("usage")
    return slim


def family_warning(generator_model: str | None, settings: JudgeSettings) -> str | None:
    """The same-family warning with a suggested judge from another family, or None."""
    if settings.provider == "lexical":
        return None
    warning = same_family_warning(generator_model, settings.model)
    if warning is None:
        return None
    suggestion = _ALTERNATIVES.get(model_family(settings.model) or "", _DEFAULT_ALTERNATIVE)
    return f"{warning} — for instance {suggestion}"


async def judge_run(
    raw: RawRun,
    settings: JudgeSettings,
    *,
    gold: Mapping[str, Mapping[str, Any]] | None = None,
    progress: ProgressSink | None = None,
    session: JudgeSession | None = None,
    repeat: int = 1,
    retry_errors: bool = False,
) -> JudgeRunResult:
    """Judge every record of `raw`, `repeat` times. Raises CallError (fatal) on an auth/endpoint error.

    `retry_errors`: ask again the questions whose judge error the cache would replay
    (see JudgeSession); a given `session` brings its own setting.
    """
    gold = gold or {}
    records = [dict(record) for record in raw.records]  # unknown fields kept as they are
    totals = RunTotals(questions=len(records))
    own_session = session is None
    session = session or JudgeSession(settings, retry_errors=retry_errors)
    warnings = []
    if session.unknown_price:
        warnings.append(
            f"no price known for model '{settings.model}': its cost is reported as unknown "
            f"(add it under judge: prices: in ragtui.yaml; 0 for a local model)"
        )
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(records)):
        queue.put_nowait(index)

    async def worker() -> None:
        while True:
            try:
                index = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            record = records[index]
            question_gold = gold.get(str(record.get("id")))
            outcome = await session.judge(record, gold=question_gold, raise_fatal=True)
            record["judge"] = outcome.judge
            totals.add(str(record.get("id")), outcome.usage, outcome.error)
            if outcome.judge.get("injection"):
                totals.injection_ids.append(str(record.get("id")))
            if outcome.flags:
                totals.directed_ids.append(str(record.get("id")))
            if outcome.error and outcome.replayed:
                totals.replayed_error_ids.append(str(record.get("id")))
            report(outcome)
            if repeat > 1:
                repeats = []
                for number in range(1, repeat):
                    again = await session.judge(record, gold=question_gold, raise_fatal=True, repeat=number)
                    repeats.append(repeat_verdict(again.judge))
                    totals.add_repeat(again.usage, again.error)
                    report(again)
                outcome.judge["repeats"] = repeats

    def report(outcome: Outcome) -> None:
        if progress is not None:
            retries = session.client.stats.retries if session.client is not None else 0
            cached = outcome.usage.calls > 0 and outcome.usage.cached_calls == outcome.usage.calls
            progress.update(error=outcome.error is not None, cost=outcome.usage.cost_usd, cached=cached, retries=retries)

    if own_session:
        await session.__aenter__()
    try:
        await run_workers(worker, min(settings.concurrency, max(1, queue.qsize())))
    finally:
        if own_session:
            await session.__aexit__(None, None, None)
        else:
            await session.cache.flush()
        if progress is not None:
            progress.close()
    if session.client is not None:
        warnings.extend(session.client.provider.warnings)
    totals.retried_ids = sorted(session.retried)
    meta = dict(raw.meta)
    meta.update(
        {
            "judge_model": session.model_label,
            "judge_provider": settings.provider,
            "judge_prompt_version": session.prompt_version,
            # What the verdicts cost, cached calls included: the same on a free rerun.
            "judge_cost_usd": None if totals.cost_usd is None else round(totals.cost_usd, 6),
            "judge_tokens_in": totals.tokens_in,
            "judge_tokens_out": totals.tokens_out,
            "judge_errors": totals.errors,
            "judge_injections": len(totals.injection_ids),
        }
    )
    meta.pop("judge_repeats", None)  # a run judged again once has no repetitions any more
    meta.pop("judge_repeat_errors", None)
    if repeat > 1:
        meta.update({"judge_repeats": repeat, "judge_repeat_errors": totals.repeat_errors})
    return JudgeRunResult(meta, records, totals, warnings)
