"""One inspect_ai sample as a ragtui record: its question, answer, target, scores and the
RAG fields a task keeps in its metadata.

A sample: `id`, `epoch`, `input` (a string or chat messages), `target`, `output`
(`choices[0].message.content`, a string or content parts, else `completion`), `scores`
({scorer: {value, answer, explanation, metadata}}), `metadata`, `error`, and the texts
inspect moved out of it, `attachments`. Letter grades read as inspect's `value_to_float`
reads them; an errored sample's scores are errors, never values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtui.core.errors import Problem, problem
from ragtui.core.importers.common import (
    GOLD_ID_KEYS,
    RETRIEVED_ID_KEYS,
    add_score,
    build_retrieved,
    id_list,
    identify,
    set_tool_verdict,
    short,
    string_or_none,
)

_ATTACHMENT = "attachment://"
# inspect's value_to_float: the letter grades of its model-graded scorers.
_GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_MAPPED_METADATA = {"id", "category", "retrieved", "retrieved_contexts", *GOLD_ID_KEYS, *RETRIEVED_ID_KEYS}


def with_attachments(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample with each `attachment://KEY` string replaced by the text it refers to.

    inspect moves long texts out of a sample into `attachments` (keyed by a hash, or by
    index in a chunked sample); a reference without its attachment stays as written.
    """
    attachments = sample.get("attachments")
    if not isinstance(attachments, dict) or not attachments:
        return sample

    def resolve(value: Any) -> Any:
        if isinstance(value, str):
            found = attachments.get(value.removeprefix(_ATTACHMENT)) if value.startswith(_ATTACHMENT) else None
            return found if isinstance(found, str) else value
        if isinstance(value, list):
            return [resolve(item) for item in value]
        if isinstance(value, dict):
            return {key: resolve(item) for key, item in value.items()}
        return value

    return {key: (resolve(value) if key in ("input", "target", "output", "metadata") else value) for key, value in sample.items()}


def sample_record(
    path: Path, index: int, where: str, sample: dict[str, Any], gold_questions: dict[str, str] | None, problems: list[Problem]
) -> tuple[dict[str, Any] | None, bool]:
    """One sample as a ragtui record (None, with a problem, when it has no question), and
    whether its retrieved ids are positional."""
    metadata: dict[str, Any] = sample["metadata"] if isinstance(sample.get("metadata"), dict) else {}
    question = _message_text(sample.get("input"))
    if question is None:
        problems.append(problem(path, index, "input", f"in {where}: no user message to take the question from"))
        return None, False
    notes: list[str] = []
    record: dict[str, Any] = {}
    identify(record, sample.get("id", metadata.get("id")), question, gold_questions, f"inspect_{index:04d}", notes)
    category = string_or_none(metadata.get("category"))
    if category is not None:
        record["category"] = category
    gold = id_list(metadata, GOLD_ID_KEYS)
    if gold is not None:
        record["gold_passages"] = gold
    expected = _target_text(sample.get("target"))
    if expected is not None:
        record["expected_answer"] = expected
    positional = False
    if isinstance(metadata.get("retrieved"), list):
        record["retrieved"] = metadata["retrieved"]
    else:
        ids = id_list(metadata, RETRIEVED_ID_KEYS)
        retrieved, positional = build_retrieved(ids, _string_list(metadata, ("retrieved_contexts",)), notes)
        if retrieved is not None:
            record["retrieved"] = retrieved
    _answer(sample, record)
    for scorer, score in (sample.get("scores") or {}).items():
        _add_scores(record, str(scorer), score)
    if record.get("generation_error"):
        # inspect scores what an errored sample left; its mean leaves it out, and so does ragtui.
        for name in record.get("scores", {}):
            record.setdefault("score_details", {}).setdefault(name, {})["error"] = f"the sample errored: {record['generation_error']}"
    # inspect has no verdict of its own on a sample: ragtui's reading (every scorer
    # correct) is made from the scores; an errored sample is a tool error.
    set_tool_verdict(record, None, record.get("generation_error"))
    kept = {key: value for key, value in metadata.items() if key not in _MAPPED_METADATA}
    if kept:
        record["tool_fields"] = {"metadata": kept}
    record["source"] = {"id": sample.get("id"), "epoch": sample.get("epoch", 1), "entry": where, **record.pop("source", {})}
    if notes:
        record["import_notes"] = notes
    return record, positional


def _answer(sample: dict[str, Any], record: dict[str, Any]) -> None:
    output: dict[str, Any] = sample["output"] if isinstance(sample.get("output"), dict) else {}
    choices = output.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    answer = _content_text(message.get("content")) if isinstance(message, dict) else None
    if answer is None:
        answer = string_or_none(output.get("completion"))
    error = sample.get("error")
    if error is not None and not (answer or "").strip():
        answer = None  # the "" an errored sample leaves is no answer
    if answer is not None or error is not None or output:
        record["answer"] = answer
    if error is not None:
        record["generation_error"] = string_or_none(error.get("message") if isinstance(error, dict) else error) or short(error)
    usage: dict[str, Any] = output["usage"] if isinstance(output.get("usage"), dict) else {}
    for field, value in (("tokens_in", usage.get("input_tokens")), ("tokens_out", usage.get("output_tokens"))):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            record[field] = value
    seconds = output.get("time")
    if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0:
        record["latency_ms"] = seconds * 1000


def _add_scores(record: dict[str, Any], scorer: str, score: Any) -> None:
    """One scorer's value; a dict of values gives one score each, `scorer.key`."""
    if not isinstance(score, dict):
        add_score(record, scorer, None, {"note": f"not an inspect Score: {short(score)}"})
        return
    details = {"answer": score.get("answer"), "explanation": score.get("explanation")}
    value = score.get("value")
    values = value.items() if isinstance(value, dict) else [(None, value)]
    for key, item in values:
        name = scorer if key is None else f"{scorer}.{key}"
        grade = _grade(item)
        if grade is None:
            add_score(record, name, item, details)
        else:
            # Correct is C (or yes / true); P (partial), I and N are not.
            mapped = {**details, "value": item, "mapped": "as inspect's value_to_float does", "pass": grade == 1.0}
            add_score(record, name, grade, mapped)


def _grade(value: Any) -> float | None:
    """C / I / P / N (and yes / no) as inspect's value_to_float reads them, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return _GRADES.get(text, _GRADES.get(text.lower()) if text.lower() in ("yes", "no", "true", "false") else None)


def _message_text(value: Any) -> str | None:
    """The question: the input string, or the last user message of a chat input."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    for message in reversed(value):
        if isinstance(message, dict) and message.get("role") == "user":
            return _content_text(message.get("content"))
    return None


def _content_text(content: Any) -> str | None:
    """A message's text: a string, or its text parts joined (reasoning parts left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [part["text"] for part in content if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)]
    return "\n".join(texts) if texts else None


def _target_text(target: Any) -> str | None:
    if isinstance(target, str):
        return target or None
    if isinstance(target, list):
        texts = [item for item in target if isinstance(item, str) and item]
        return "\n".join(texts) if texts else None
    return None


def _string_list(metadata: dict[str, Any], names: tuple[str, ...]) -> list[str] | None:
    for name in names:
        value = metadata.get(name)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
    return None
