"""inspect_ai logs, read without inspect_ai: `.eval` archives and `.json` EvalLogs.

A `.eval` log is a zip archive: `header.json` (the EvalLog without samples: `eval`,
`plan`, `results`, `stats`, `status`), `samples/{id}_epoch_{n}.json` (one EvalSample
each), `summaries.json`, `reductions.json`, `_journal/…`. A log still being written has
`_journal/start.json` instead of `header.json`. A `.json` log is the whole EvalLog with
its `samples` list.

A sample: `id`, `epoch`, `input` (a string or chat messages), `target`, `output`
(`choices[0].message.content`, a string or content parts, else `completion`), `scores`
({scorer: {value, answer, explanation, metadata}}), `metadata`, `error`. The RAG fields
inspect has no place for are read from the sample's metadata when the task put them
there: `category`, `retrieved` (ragtui's shape) or `retrieved_ids` / `retrieved_context_ids`
with `retrieved_contexts`, and `gold_passages` / `reference_context_ids`.

With several epochs the log holds several runs of the same system: the importer asks
which epoch to take (`variant`).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.importers.common import (
    GOLD_ID_KEYS,
    RETRIEVED_ID_KEYS,
    add_score,
    build_retrieved,
    finish_run,
    id_list,
    identify,
    set_tool_verdict,
    short,
    string_or_none,
)
from ragtui.core.importers.zipentry import read_entry
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import RawRun, read_bytes_utf8

_SAMPLE_ENTRY = re.compile(r"samples/.+_epoch_\d+\.json")
_HEADERS = ("header.json", "_journal/start.json")
# inspect's value_to_float: the letter grades of its model-graded scorers.
_GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_MAPPED_METADATA = {"id", "category", "retrieved", "retrieved_contexts", *GOLD_ID_KEYS, *RETRIEVED_ID_KEYS}


def read_inspect(path: Path, gold_questions: dict[str, str] | None = None, variant: int | None = None) -> RawRun:
    """Import an inspect_ai log (`.eval` or `.json`); `variant` picks the epoch."""
    if zipfile.is_zipfile(path):
        header, samples = _from_archive(path)
    else:
        header, samples = _from_json(path)
    epoch = _choose_epoch(path, samples, variant)
    problems: list[Problem] = []
    records, lines = [], []
    positional = 0
    for index, (where, sample) in enumerate(samples, start=1):
        if sample.get("epoch", 1) != epoch:
            continue
        record, is_positional = _record(path, index, where, sample, gold_questions, problems)
        if record is not None:
            records.append(record)
            lines.append(index)
            positional += is_positional
    imported: dict[str, Any] = {"status": header["status"]} if isinstance(header.get("status"), str) else {}
    epochs = {sample.get("epoch", 1) for _, sample in samples}
    if len(epochs) > 1:
        imported.update(epoch=epoch, epochs=len(epochs))
    return finish_run(path, "inspect", _meta(path, header), records, lines, problems, positional=positional, imported=imported)


def _from_archive(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(problem(path, None, None, f"not a readable zip archive: {exc}")) from None
    with archive:
        names = archive.namelist()
        header_name = next((name for name in _HEADERS if name in names), None)
        if header_name is None:
            raise InputError(problem(path, None, "header.json", "missing: not an inspect_ai log (no header.json nor _journal/start.json)"))
        header = _json_entry(archive, header_name, path)
        entries = [name for name in names if _SAMPLE_ENTRY.fullmatch(name)]
        if not entries:
            raise InputError(problem(path, None, "samples", "no samples/*.json in the log: was it written with --no-log-samples?"))
        samples = [(name, _json_entry(archive, name, path)) for name in entries]
    return header, samples


def _json_entry(archive: zipfile.ZipFile, name: str, path: Path) -> dict[str, Any]:
    data = read_entry(archive, archive.getinfo(name), path)
    try:
        value = bounded_json.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError:
        raise InputError(problem(path, None, name, "not UTF-8 text")) from None
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, None, name, f"malformed JSON at line {exc.lineno}: {exc.msg} (column {exc.colno})")) from None
    if not isinstance(value, dict):
        raise InputError(problem(path, None, name, f"expected a JSON object, found {short(value)}"))
    return value


def _from_json(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    try:
        log = bounded_json.loads(read_bytes_utf8(path))
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})")) from None
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError(problem(path, None, "eval", "missing: not an inspect_ai log"))
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(problem(path, None, "samples", "no samples in the log: was it written with --no-log-samples?"))
    bad = [problem(path, i, "samples", f"expected a sample object, found {short(s)}") for i, s in enumerate(samples, 1) if not isinstance(s, dict)]
    if bad:
        raise InputError(bad)
    return log, [(f"samples[{i}]", sample) for i, sample in enumerate(samples)]


def _choose_epoch(path: Path, samples: list[tuple[str, dict[str, Any]]], variant: int | None) -> Any:
    epochs = sorted({sample.get("epoch", 1) for _, sample in samples}, key=lambda e: (not isinstance(e, int), str(e).zfill(12)))
    if variant is None and len(epochs) == 1:
        return epochs[0]
    if variant is None:
        raise InputError(
            problem(
                path, None, "epoch",
                f"{len(epochs)} epochs in the log ({', '.join(map(str, epochs))}): a ragtui run is one answer per question; "
                f"choose one with --variant EPOCH (report, compare, open, convert)",
            )
        )
    if variant not in epochs:
        raise InputError(problem(path, None, "epoch", f"epoch {variant} is not in the log ({', '.join(map(str, epochs))})"))
    return variant


def _record(
    path: Path, index: int, where: str, sample: dict[str, Any], gold_questions: dict[str, str] | None, problems: list[Problem]
) -> tuple[dict[str, Any] | None, bool]:
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


def _meta(path: Path, header: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = header["eval"] if isinstance(header.get("eval"), dict) else {}
    roles: dict[str, Any] = spec["model_roles"] if isinstance(spec.get("model_roles"), dict) else {}
    grader = roles.get("grader")
    if isinstance(grader, dict):
        grader = grader.get("model")
    return {
        "name": string_or_none(spec.get("task_display_name") or spec.get("task")) or path.stem,
        "created_at": string_or_none(spec.get("created")),
        "generator_model": string_or_none(spec.get("model")),
        "judge_model": string_or_none(grader),
    }
