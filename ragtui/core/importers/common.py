"""What every importer shares: ids, scores, retrieved lists, and finishing a run.

An importer turns a peer tool's rows into ragtui's native run records (docs/formats.md).
The rule they all follow: what the tool's file lacks stays absent ("not available"),
never invented. A missing category is left absent too: the loader's documented default
`uncategorized` applies, and a gold set's categories win without a conflict. Scores the
peer tool computed (RAGAS' faithfulness, DeepEval's metrics, …) are kept beside ragtui's
own in a record field `scores`, on the tool's own scale, with the reason a score is null
in `scores_notes` and whatever else the tool said about it in `score_details`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem, shown
from ragtui.core.loading.records import RawRun

# Record fields ragtui reads; the ones no record of an import carries are listed in
# `run.imported_from.not_available`, so the screen can say "not available" for them.
RAGTUI_FIELDS = (
    "question", "category", "gold_passages", "expected_answer", "retrieved", "answer",
    "judge", "latency_ms", "cost_usd", "tokens_in", "tokens_out",
)

# The meta flag for retrieved ids made up from positions (ctx_1, ctx_2, …): they cannot
# be compared with gold passage ids, so retrieval metrics must not be computed on them.
POSITIONAL = "positional"

# Keys under which teams put passage ids in a tool's free-form metadata (or vars), first
# match wins: the gold passages of a question and the ids of what the system retrieved.
GOLD_ID_KEYS = ("gold_passages", "expected_ids", "reference_context_ids", "gold_ids")
RETRIEVED_ID_KEYS = ("retrieved_ids", "retrieved_context_ids", "context_ids")

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def parse_number(text: str) -> float | None:
    """A decimal number as written in a text file, else None.

    Stricter than float(): no "1_000", no "inf"; "nan" is handled by the callers,
    which must say why a value is missing.
    """
    text = text.strip()
    return float(text) if _NUMBER.fullmatch(text) else None


def score_value(value: Any) -> tuple[float | None, str | None]:
    """A peer tool's score as a float, or (None, why it is not a number)."""
    if value is None:
        return None, "null in the file"
    if isinstance(value, bool):
        return (1.0 if value else 0.0), None
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return None, "NaN in the file: the tool could not compute this score"
        if math.isinf(number):
            return None, f"{number} in the file"
        return number, None
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return None, "empty in the file (a NaN written by pandas)"
        if stripped.lower() == "nan":
            return None, "NaN in the file: the tool could not compute this score"
        parsed = parse_number(stripped)
        if parsed is not None:
            return parsed, None
        return None, f"not a number: {short(value)}"
    return None, f"not a number: {short(value)}"


def add_score(record: dict[str, Any], name: str, value: Any, details: dict[str, Any] | None = None) -> None:
    """Put one precomputed score in `scores` (null with a note when it is not a number)."""
    number, note = score_value(value)
    record.setdefault("scores", {})[name] = number
    if note is not None:
        record.setdefault("scores_notes", {})[name] = note
    kept = {key: val for key, val in (details or {}).items() if val is not None}
    if kept:
        record.setdefault("score_details", {})[name] = kept


def unique_name(taken: dict[str, Any], name: str) -> str:
    """`name`, or `name#2`, `name#3`… when a record already has a score of that name."""
    if name not in taken:
        return name
    n = 2
    while f"{name}#{n}" in taken:
        n += 1
    return f"{name}#{n}"


def positional_ids(count: int) -> list[str]:
    """Ids for passages the tool gave without ids: ctx_1 … ctx_n (not gold-comparable)."""
    return [f"ctx_{i}" for i in range(1, count + 1)]


def build_retrieved(
    ids: list[str] | None, texts: list[str] | None, notes: list[str]
) -> tuple[list[dict[str, Any]] | None, bool]:
    """The ragtui `retrieved` list from parallel id and text lists.

    Returns (the list or None when the tool gave neither, whether ids are positional).
    When both are given with different lengths the ids are kept (they are what retrieval
    is measured on) and the texts dropped, with a note.
    """
    if ids is None and texts is None:
        return None, False
    if ids is None:
        assert texts is not None
        return [{"id": pid, "text": text} for pid, text in zip(positional_ids(len(texts)), texts, strict=True)], True
    if texts is None or len(texts) != len(ids):
        if texts is not None:
            notes.append(f"{len(ids)} retrieved ids but {len(texts)} retrieved texts: texts left out")
        return [{"id": pid} for pid in ids], False
    return [{"id": pid, "text": text} for pid, text in zip(ids, texts, strict=True)], False


def gold_id_for(question: Any, gold_questions: dict[str, str] | None) -> str | None:
    """The gold id whose question matches this text once normalised, if any.

    The normalisation is the loader's own (`ragtui.core.measuring.textnorm.normalize_question`),
    imported only when a join is asked for: it brings polars along.
    """
    if not gold_questions or not isinstance(question, str) or not question.strip():
        return None
    from ragtui.core.measuring.textnorm import normalize_question

    return gold_questions.get(normalize_question(question))


def identify(
    record: dict[str, Any],
    native: Any,
    question: Any,
    gold_questions: dict[str, str] | None,
    fallback: str,
    notes: list[str],
) -> None:
    """Set a record's `id` (and `question`): the tool's own id, a join by text, or `fallback`.

    The tool's own id is kept when there is no gold set or when it names a gold question;
    otherwise the question text is looked up among the gold questions. A record joined
    by text keeps its text as written under `source.question` rather than `question`:
    the gold set's wording is the reference, and both say the same once normalised.
    Without a gold set a tool without ids gets `fallback`, a stable id from the row order.
    """
    own = None if native is None or isinstance(native, bool) else str(native).strip() or None
    if gold_questions and (own is None or own not in gold_questions.values()):
        joined = gold_id_for(question, gold_questions)
        if joined is not None:
            record["id"] = joined
            record.setdefault("source", {})["question"] = question
            return
        notes.append("question not found in the gold set (compared case-, accent- and punctuation-insensitively)")
    record["id"] = own or fallback
    if question is not None:
        record["question"] = question


def id_list(mapping: dict[str, Any], keys: tuple[str, ...]) -> list[str] | None:
    """The first of `keys` holding a list of ids (strings or whole numbers), as strings."""
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, list) and all(isinstance(item, str | int) and not isinstance(item, bool) for item in value):
            return [str(item) for item in value]
    return None


def set_tool_verdict(record: dict[str, Any], passed: Any, error: str | None = None) -> None:
    """The tool's own verdict on the whole question (DeepEval's test case `success`,
    promptfoo's `success`), and the error that kept it from judging, if any.

    An error wins over a pass: a question the tool could not score is not passing.
    """
    verdict: dict[str, Any] = {}
    if isinstance(passed, bool):
        verdict["pass"] = passed
    if error:
        verdict["error"] = error
    if verdict:
        record["tool_verdict"] = verdict


def short(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to `limit` characters, for error messages."""
    return shown(value, limit)


def string_or_none(value: Any) -> str | None:
    """A text field: strings kept as is, numbers written out, anything else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def finish_run(
    path: Path,
    fmt: str,
    meta: dict[str, Any],
    records: list[dict[str, Any]],
    lines: list[int],
    problems: list[Problem],
    *,
    positional: int = 0,
    imported: dict[str, Any] | None = None,
    warnings: list[Problem] | None = None,
) -> RawRun:
    """Check the records as a whole and return them as a RawRun, or raise every problem.

    `positional` counts the records whose retrieved ids were made up from positions;
    the run then says so in `run.retrieval_ids` ("positional", or "mixed" when only some).
    `warnings` are shown with the run, which still loads.
    """
    problems = problems + duplicate_ids(path, records, lines)
    if not records and not problems:
        problems.append(problem(path, None, None, "no question records in the file"))
    if problems:
        raise InputError(problems)
    with_retrieved = sum(1 for record in records if "retrieved" in record)
    if positional:
        meta["retrieval_ids"] = POSITIONAL if positional == with_retrieved else "mixed"
    # A question joined to the gold set by its text keeps that text under source.question.
    missing = [
        name
        for name in RAGTUI_FIELDS
        if not any(name in record or (name == "question" and "question" in record.get("source", {})) for record in records)
    ]
    meta["imported_from"] = {
        "format": fmt,
        "path": str(path),
        **(imported or {}),
        "not_available": missing,
    }
    clean_meta = {key: value for key, value in meta.items() if value is not None}
    return RawRun(path, clean_meta, records, lines, None, list(warnings or []))


def duplicate_ids(path: Path, records: list[dict[str, Any]], lines: list[int]) -> list[Problem]:
    """One problem per repeated id: a join or a tool's own ids may collide."""
    first: dict[str, int] = {}
    problems = []
    for record, line in zip(records, lines, strict=True):
        seen = first.setdefault(record["id"], line)
        if seen != line:
            problems.append(problem(path, line, "id", f"duplicate id '{record['id']}' (first at {seen})"))
    return problems
