"""What a system under test gives back, checked field by field.

Every way of reaching a system (Python callables, an HTTP endpoint, a command) ends in a
`SystemAnswer`: the ranked passages, the answer, and the tokens, cost and per-stage
latency when the system reports them. A reply of the wrong shape raises `ShapeError`
naming the field, so the run can record it as that question's system error (or, on the
check call before a run, stop with one clear message).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PASSAGE_FIELDS = ("id", "text", "score")


class ShapeError(ValueError):
    """A reply that is not what the protocol asks for; `field` names where."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class SystemFailure(Exception):
    """One question failed in the system (an exception, an HTTP status, a timeout, bad JSON).

    The message is what the record's `error` holds: safe to store (no secret in it).
    """


class SystemStopped(Exception):
    """Every further question would fail the same way (server unreachable, command gone):
    the run stops, keeping what it recorded."""


@dataclass(frozen=True)
class Usage:
    """Tokens and cost one question took, as far as the system says (None: not given)."""

    tokens_in: float | None = None
    tokens_out: float | None = None
    cost_usd: float | None = None

    def plus(self, other: Usage) -> Usage:
        def add(a: float | None, b: float | None) -> float | None:
            return b if a is None else a if b is None else a + b

        return Usage(add(self.tokens_in, other.tokens_in), add(self.tokens_out, other.tokens_out), add(self.cost_usd, other.cost_usd))


@dataclass(frozen=True)
class SystemAnswer:
    """One question answered: passages best first, the answer, usage and stage latencies (ms)."""

    passages: list[dict[str, Any]]
    answer: str | None
    usage: Usage = Usage()
    retrieve_ms: float | None = None
    generate_ms: float | None = None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _number(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or value < 0:
        raise ShapeError(field, f"expected a number ≥ 0 or null, found {_type_name(value)} {value!r}"[:200])
    return float(value)


def passages_from(value: Any, field: str = "passages", names: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """A ranked list of `{"id", "text", "score"?}` (a bare id string is accepted), checked.

    `names` maps ragtui's field names (passage_id, text, score) to the system's own.
    """
    names = {"id": names.get("passage_id", "id"), **{n: names[n] for n in ("text", "score") if n in names}} if names else {}
    if not isinstance(value, list | tuple):
        raise ShapeError(field, f"expected a list of passages, found {_type_name(value)}")
    passages = []
    for rank, item in enumerate(value):
        where = f"{field}[{rank}]"
        if isinstance(item, str):
            passages.append({"id": item})
            continue
        if not isinstance(item, Mapping):
            raise ShapeError(where, f"expected {{id, text, score}}, found {_type_name(item)}")
        passage: dict[str, Any] = {}
        for name in PASSAGE_FIELDS:
            given = item.get(names.get(name, name))
            if given is not None:
                passage[name] = given
        if not isinstance(passage.get("id"), str | int) or isinstance(passage.get("id"), bool):
            raise ShapeError(f"{where}.{names.get('id', 'id')}", f"expected a passage id (string), found {_type_name(passage.get('id'))}")
        passage["id"] = str(passage["id"])
        if "text" in passage and not isinstance(passage["text"], str):
            raise ShapeError(f"{where}.{names.get('text', 'text')}", f"expected a string, found {_type_name(passage['text'])}")
        if "score" in passage:
            score = passage["score"]
            if isinstance(score, bool) or not isinstance(score, int | float) or math.isnan(score):
                raise ShapeError(f"{where}.{names.get('score', 'score')}", f"expected a number, found {_type_name(score)}")
        passages.append(passage)
    return passages


def generation_from(value: Any, field: str = "answer") -> tuple[str | None, Usage]:
    """A generator's return: a string, or `{"answer", "tokens_in"?, "tokens_out"?, "cost_usd"?}`."""
    if value is None or isinstance(value, str):
        return value, Usage()
    if not isinstance(value, Mapping):
        raise ShapeError(field, f"expected a string or {{answer, tokens_in, tokens_out, cost_usd}}, found {_type_name(value)}")
    if "answer" not in value:
        raise ShapeError(f"{field}.answer", "required, missing")
    answer = value["answer"]
    if answer is not None and not isinstance(answer, str):
        raise ShapeError(f"{field}.answer", f"expected a string, found {_type_name(answer)}")
    usage = Usage(
        _number(value.get("tokens_in"), f"{field}.tokens_in"),
        _number(value.get("tokens_out"), f"{field}.tokens_out"),
        _number(value.get("cost_usd"), f"{field}.cost_usd"),
    )
    return answer, usage


# A system's reply: ragtui's field name → the names accepted for it, first found wins.
REPLY_FIELDS: dict[str, tuple[str, ...]] = {"passages": ("passages", "retrieved"), "answer": ("answer",)}


def system_answer_from(value: Any, field: str = "reply", names: Mapping[str, str] | None = None) -> SystemAnswer:
    """A whole system's reply: `{"passages": [...], "answer": ...}` plus optional usage fields.

    `retrieved` is accepted for `passages`; `names` maps ragtui's names (passages, answer,
    passage_id, text, score, tokens_in, tokens_out, cost_usd) to the system's own.
    """
    names = names or {}
    if not isinstance(value, Mapping):
        raise ShapeError(field, f"expected an object {{passages, answer}}, found {_type_name(value)}")

    def pick(name: str) -> tuple[str, Any]:
        for candidate in (names[name],) if name in names else REPLY_FIELDS[name]:
            if candidate in value:
                return candidate, value[candidate]
        raise ShapeError(f"{field}.{names.get(name, name)}", "required, missing")

    passages_name, raw_passages = pick("passages")
    answer_name, raw_answer = pick("answer")
    passages = passages_from(raw_passages, f"{field}.{passages_name}", names)
    if raw_answer is not None and not isinstance(raw_answer, str):
        raise ShapeError(f"{field}.{answer_name}", f"expected a string or null, found {_type_name(raw_answer)}")
    usage = Usage(*(_number(value.get(names.get(n, n)), f"{field}.{names.get(n, n)}") for n in ("tokens_in", "tokens_out", "cost_usd")))
    return SystemAnswer(passages, raw_answer, usage)
