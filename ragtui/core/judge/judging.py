"""Judge one question: ask, check, repair once, and always end with verdicts or a reason.

The flow for one answer (LLM providers):
1. ask for one verdict per ragtui sentence plus a utility score;
2. a reply cut off by the token bound (`length` / `max_tokens`) is asked again once with
   twice the bound; cut off again, it is a judge error;
3. a reply that does not validate (no JSON, wrong verdict count, score 7, …) gets one
   repair request that quotes the problem; failing again (or cut off: its bound is not
   raised again), it is a judge error;
4. an HTTP failure that outlived its retries is a judge error (not cached: a rerun
   tries again).
A judge error keeps the model's last reply in `judge.raw`. Nothing here raises for a
bad reply; only a fatal configuration error (HTTP 401/403/404) propagates, and only
when the caller asks for it (a whole run stops; the TUI gets an error verdict).

The `judge` object written for each record:
    {"model", "provider", "prompt_version",
     "faithfulness": {"sentences": [{"text", "attested", "evidence", "reason"}]} | null,
     "utility": {"score": 1-5, "reason"} | null,
     "error": null | "<why>", ["raw": "<last reply>" on error],
     ["injection": true when the judge says a block tried to instruct it],
     "usage": {"calls", "tokens_in", "tokens_out", "cost_usd"}}
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragtui.core.judge import lexical
from ragtui.core.judge.cache import CallCache
from ragtui.core.judge.fencing import NonceSource
from ragtui.core.judge.inputs import JudgeInputs, build_inputs
from ragtui.core.judge.parsing import ParseError, parse_verdict, verdict_schema
from ragtui.core.judge.pricing import PriceTable
from ragtui.core.judge.prompts import PromptSet, load_prompts
from ragtui.core.judge.redaction import redact
from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.judge_directed import QuestionFlags, question_flags

if TYPE_CHECKING:  # httpx loads only when a network judge starts
    from ragtui.core.judge.client import JudgeClient

log = logging.getLogger("ragtui.judge")
RAW_LIMIT = 20_000  # characters of a failed reply kept in judge.raw
TRUNCATION_GROWTH = 2


@dataclass
class Usage:
    """Calls, tokens and cost spent on one question (cached calls included: what it cost)."""

    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0
    replayed: list[str] = field(default_factory=list)  # keys answered by entries an earlier run cached

    def add(self, tokens_in: int, tokens_out: int, cost: float | None, cached: bool) -> None:
        self.calls += 1
        self.cached_calls += int(cached)
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost

    def to_json(self) -> dict[str, Any]:
        cost = None if self.cost_usd is None else round(self.cost_usd, 8)
        return {"calls": self.calls, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cost_usd": cost}


@dataclass
class Outcome:
    """The judge object for one question, and what it took (for totals and progress)."""

    judge: dict[str, Any]
    usage: Usage
    flags: QuestionFlags = field(default_factory=QuestionFlags)  # what the detector saw before judging
    failed_call: bool = False  # its error is no cached reply's: a call failed (or was deferred in batch), or a bug

    @property
    def error(self) -> str | None:
        return self.judge.get("error")

    @property
    def replayed(self) -> bool:
        """Every reply it rests on came from the cache, stored by an earlier run: a rerun
        gives the same verdict — or the same judge error — without asking anyone."""
        return not self.failed_call and self.usage.calls > 0 and len(self.usage.replayed) == self.usage.calls


class JudgeSession:
    """Prompts, prices, cache and HTTP client shared by the questions of one run.

    Use as `async with JudgeSession(settings) as session: await session.judge(record)`.
    With `retry_errors`, a question whose judge error was replayed from the cache (an
    unusable or cut-off reply an earlier run paid for) is asked again, once: the replies
    it rests on are forgotten from the cache, so only they are paid again.
    """

    def __init__(self, settings: JudgeSettings, *, retry_errors: bool = False):
        self.settings = settings.validated()
        self.retry_errors = retry_errors
        self.retried: set[str] = set()  # ids asked again this run (kept across batch rounds)
        self._retried_calls: set[tuple[str, int]] = set()  # (id, repetition) asked again: once each
        self.lexical = settings.provider == "lexical"
        self.prompts: PromptSet | None = None if self.lexical else load_prompts(settings.lang, settings.prompts_dir)
        self.prompt_version = lexical.PROMPT_VERSION if self.prompts is None else self.prompts.version
        self.model_label = lexical.MODEL_LABEL if self.lexical else settings.model
        self.prices = PriceTable(settings.prices)
        self.cache = CallCache(None if self.lexical else settings.cache_dir)
        # Kept with the cache: a resumed run renders the same prompts, so the cache answers.
        self.nonces = NonceSource.for_cache(None if self.lexical else settings.cache_dir)
        self.client: JudgeClient | None = None  # opened by __aenter__ for a network judge

    async def __aenter__(self) -> JudgeSession:
        if not self.lexical:
            from ragtui.core.judge.client import JudgeClient

            self.client = JudgeClient(self.settings, self.prompt_version, self.cache)
            await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.cache.close()
        finally:
            if self.client is not None:
                await self.client.__aexit__(*exc)

    @property
    def unknown_price(self) -> bool:
        return not self.lexical and self.prices.price(self.settings.model, self.settings.provider) is None

    async def judge(
        self, record: Mapping[str, Any], *, gold: Mapping[str, Any] | None = None, raise_fatal: bool = False, repeat: int = 0
    ) -> Outcome:
        """The new `judge` object for `record`. Never raises for a bad reply or HTTP failure.

        `repeat` numbers the repetitions of `ragtui judge --repeat N` (0 for the first):
        the same prompt, asked again, each repetition cached under its own key.
        """
        outcome = await self._judge_once(record, gold, raise_fatal, repeat)
        record_id = str(record.get("id"))
        if self.retry_errors and outcome.error and outcome.replayed and (record_id, repeat) not in self._retried_calls:
            self._retried_calls.add((record_id, repeat))
            self.retried.add(record_id)
            for key in outcome.usage.replayed:
                self.cache.forget(key)
            outcome = await self._judge_once(record, gold, raise_fatal, repeat)
        return outcome

    async def _judge_once(self, record: Mapping[str, Any], gold: Mapping[str, Any] | None, raise_fatal: bool, repeat: int = 0) -> Outcome:
        inputs = build_inputs(record, self.settings.k, gold, self.settings.unanswerable_categories)
        usage = Usage()
        if inputs.problem:
            return Outcome(self._result(usage, error=inputs.problem), usage)
        flags = question_flags(inputs.answer, [(p.id, p.text) for p in inputs.passages])
        if self.lexical:
            sentences = lexical.judge_sentences(inputs, self.settings.lexical_threshold)
            utility = lexical.judge_utility(inputs, self.settings.fallback_phrases)
            return Outcome(self._result(usage, sentences=sentences, utility=utility), usage, flags)
        from ragtui.core.judge.client import CallError

        failed_call = False
        try:
            judge = await self._judge_llm(inputs, usage, repeat)
        except CallError as exc:
            if exc.fatal and raise_fatal:
                raise
            failed_call = True
            judge = self._result(usage, error=f"judge call failed: {exc}")
        except Exception as exc:  # a bug must cost one question, not a 10,000-question run
            log.exception("judge: unexpected error on %s", inputs.record_id)
            detail = redact(f"{type(exc).__name__}: {exc}", [self.settings.api_key])
            failed_call = True
            judge = self._result(usage, error=f"internal error while judging ({detail}); please report it")
        return Outcome(judge, usage, flags, failed_call)

    async def _call(self, messages: list[dict[str, str]], max_tokens: int, schema: dict[str, Any], usage: Usage, repeat: int = 0):
        assert self.client is not None, "a network judge is used inside `async with`"
        result = await self.client.complete(messages, max_tokens, schema, repeat)
        c = result.completion
        cost = self.prices.cost(self.settings.model, c.tokens_in, c.tokens_out, self.settings.provider, batch=result.batch)
        usage.add(c.tokens_in, c.tokens_out, cost, result.cached)
        if result.cached and result.key not in self.cache.stored_now:
            usage.replayed.append(result.key)
        return c

    async def _judge_llm(self, inputs: JudgeInputs, usage: Usage, repeat: int = 0) -> dict[str, Any]:
        assert self.prompts is not None
        n = len(inputs.sentences)
        messages = prompt_messages(self.prompts, inputs, self.nonces)
        schema = verdict_schema(n)
        max_tokens = self.settings.max_tokens
        reply = await self._call(messages, max_tokens, schema, usage, repeat)
        grown = reply.truncated
        if grown:
            max_tokens *= TRUNCATION_GROWTH
            reply = await self._call(messages, max_tokens, schema, usage, repeat)
            if reply.truncated:
                return self._truncated(reply, max_tokens, usage, grown=True, repair=False)
        try:
            verdict = parse_verdict(reply.text, inputs.sentences, inputs.passage_ids)
        except ParseError as first:
            repair = [
                *messages,
                {"role": "assistant", "content": reply.text[:RAW_LIMIT] or "(empty reply)"},
                self.prompts.repair_message(str(first), n),
            ]
            reply = await self._call(repair, max_tokens, schema, usage, repeat)
            if reply.truncated:  # not asked again: the repair was the second chance
                return self._truncated(reply, max_tokens, usage, grown=grown, repair=True)
            try:
                verdict = parse_verdict(reply.text, inputs.sentences, inputs.passage_ids)
            except ParseError as second:
                error = f"unusable judge reply, even after one repair request: {second}"
                if str(second) != str(first):
                    error += f" (first reply: {first})"
                return self._result(usage, error=error, raw=reply.text)
        return self._result(usage, sentences=verdict.sentences, utility=verdict.utility, injection=verdict.injection)

    def _truncated(self, reply, max_tokens: int, usage: Usage, *, grown: bool, repair: bool) -> dict[str, Any]:
        """The error of a reply cut off at the token bound, saying what was tried (and only that).

        `grown`: the first reply was cut off and asked again with a larger bound;
        `repair`: the reply cut off is the answer to the repair request.
        """
        which = "judge reply to the repair request" if repair else "judge reply"
        bound = f"{reply.finish_reason}, {max_tokens} tokens"
        if grown and not repair:
            tried = f", even after one retry with {TRUNCATION_GROWTH}× the bound"
        elif grown:
            tried = f" (a bound already raised {TRUNCATION_GROWTH}× after a first truncated reply)"
        else:
            tried = ""
        error = f"{which} truncated at the output bound ({bound}){tried}: raise --max-tokens"
        return self._result(usage, error=error, raw=reply.text)

    def _result(
        self,
        usage: Usage,
        *,
        sentences: list[dict[str, Any]] | None = None,
        utility: dict[str, Any] | None = None,
        error: str | None = None,
        raw: str | None = None,
        injection: bool = False,
    ) -> dict[str, Any]:
        judge: dict[str, Any] = {
            "model": self.model_label,
            "provider": self.settings.provider,
            "prompt_version": self.prompt_version,
            "faithfulness": None if error else {"sentences": sentences or []},
            "utility": None if error else utility,
            "error": error,
        }
        if error and raw is not None:
            judge["raw"] = raw[:RAW_LIMIT]
        if injection:  # the verdict is kept as given: marked, and counted by the run
            judge["injection"] = True
        judge["usage"] = usage.to_json()
        return judge


def prompt_messages(prompts: PromptSet, inputs: JudgeInputs, nonces: NonceSource) -> list[dict[str, str]]:
    """The messages asking for the verdicts of `inputs`, their tags named by a nonce from `nonces`."""
    passages = [(p.id, p.text) for p in inputs.passages]
    nonce = nonces.nonce(prompts.version, inputs.question, inputs.sentences, passages, inputs.expected, inputs.unanswerable)
    return prompts.messages(inputs.question, inputs.sentences, inputs.passages, inputs.expected, inputs.unanswerable, nonce=nonce)


async def judge_record(record: dict, settings: JudgeSettings, *, gold: dict | None = None, retry_errors: bool = True) -> dict:
    """The new `judge` object for one question, using (and filling) the disk cache.

    This is the TUI's entry point for re-judging the selected question. It never raises
    for a failed call or an unusable reply: those come back as `{"error": "..."}`.
    Raises InputError only for unusable settings (no model, missing API key, bad prompts).
    A judge error the cache would replay is asked again (`retry_errors`, as
    `ragtui judge --retry-errors`): re-judging an errored question is asking again.

    Args:
        record: the run record (id, answer, retrieved, cited, question, …); not modified.
        settings: from JudgeSettings.from_env / from_config; set `cache_dir` to share the
            CLI's cache (`OUT.cache/`), and `k` to the run's k.
        gold: the question's gold-set record (question, expected_answer or French aliases).
    """
    async with JudgeSession(settings, retry_errors=retry_errors) as session:
        outcome = await session.judge(record, gold=gold)
    return outcome.judge
