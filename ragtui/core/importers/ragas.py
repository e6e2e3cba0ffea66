"""RAGAS 0.4 results: `EvaluationResult.to_pandas()` saved as CSV, JSONL or a JSON array.

One row per sample: `user_input`, `retrieved_contexts`, `retrieved_context_ids`,
`reference_context_ids`, `response`, `reference`, … then one column per metric
(`faithfulness`, `context_recall`, `id_based_context_precision`, …). In a CSV, pandas
writes list cells as Python literals (`['a', "l'article"]`), read here with
`ast.literal_eval` (literals only, never code) and NaN as an empty cell. RAGAS 0.1 wrote
numpy arrays, whose repr has no commas (`['a' 'b']`): each string literal is read on its own.

Mapping: user_input → question, response → answer, reference → expected_answer,
reference_context_ids → gold_passages, retrieved_context_ids + retrieved_contexts →
retrieved (ids `ctx_1…n` when the ids are missing, flagged as positional), metric
columns → `scores`. Rows carry no id: a stable `ragas_0001` from the row order, or the
gold id whose question matches. No category (the loader's default, `uncategorized`).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.importers.common import (
    add_score,
    build_retrieved,
    finish_run,
    identify,
    parse_number,
    short,
    string_or_none,
)
from ragtui.core.importers.list_cells import list_literal
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import RawRun, read_bytes_utf8, read_jsonl

# Columns mapped to ragtui fields; `id` and `category` are read when a team added them.
MAPPED_COLUMNS = {
    "user_input", "retrieved_contexts", "retrieved_context_ids", "reference_context_ids",
    "response", "reference", "id", "category",
}
# The other columns of a RAGAS sample (SingleTurnSample and the test-set generator's):
# kept in `tool_fields`. Any column in neither set is a metric when every value in it is
# a number or empty, and is kept in `tool_fields` otherwise.
SAMPLE_COLUMNS = MAPPED_COLUMNS | {
    "reference_contexts", "multi_responses", "rubrics", "persona_name", "query_style",
    "query_length", "synthesizer_name", "reference_tool_calls",
}
LIST_COLUMNS = {
    "retrieved_contexts", "reference_contexts", "retrieved_context_ids", "reference_context_ids", "multi_responses",
}
# RAGAS 0.1 names, read when the 0.4 name is absent.
LEGACY_NAMES = {"question": "user_input", "answer": "response", "contexts": "retrieved_contexts", "ground_truth": "reference"}

# pandas writes the DataFrame index as a first column with an empty header.
_INDEX_HEADERS = {"", "Unnamed: 0"}


def read_ragas(path: Path, gold_questions: dict[str, str] | None = None) -> RawRun:
    """Import a RAGAS results file (CSV, JSONL or JSON array) as a ragtui run."""
    text = read_bytes_utf8(path).removeprefix("\ufeff")
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows, lines = _json_array_rows(path, text)
        from_csv = False
    elif stripped.startswith("{"):
        rows, lines = _jsonl_rows(path, text)
        from_csv = False
    else:
        rows, lines = _csv_rows(path, text)
        from_csv = True
    rows = [_rename_legacy(row) for row in rows]
    if not any("user_input" in row for row in rows):
        where = 1 if from_csv else None
        raise InputError(problem(path, where, "user_input", "missing column: a RAGAS result has the question in 'user_input' (RAGAS 0.1: 'question'); "
            "save EvaluationResult.to_pandas() whole, with its sample columns"))
    metrics = _metric_columns(rows)
    problems: list[Problem] = []
    records: list[dict[str, Any]] = []
    record_lines: list[int] = []
    positional = 0
    for index, (row, line) in enumerate(zip(rows, lines, strict=True), start=1):
        record, is_positional = _record(path, line, index, row, metrics, from_csv, gold_questions, problems)
        if record is not None:
            records.append(record)
            record_lines.append(line)
            positional += is_positional
    meta: dict[str, Any] = {"name": path.stem}
    return finish_run(path, "ragas", meta, records, record_lines, problems, positional=positional)


def _record(
    path: Path,
    line: int,
    index: int,
    row: dict[str, Any],
    metrics: list[str],
    from_csv: bool,
    gold_questions: dict[str, str] | None,
    problems: list[Problem],
) -> tuple[dict[str, Any] | None, bool]:
    before = len(problems)
    question = _text(row.get("user_input"), from_csv)
    if question is None:
        value = row.get("user_input")
        why = "empty" if value in (None, "") else f"expected a string (multi-turn samples are not questions), found {short(value)}"
        problems.append(problem(path, line, "user_input", f"{why}: the question is required"))
    lists = {name: _list(path, line, name, value, from_csv, problems) for name, value in row.items() if name in LIST_COLUMNS}
    if len(problems) > before:
        return None, False
    notes: list[str] = []
    record: dict[str, Any] = {}
    identify(record, _text(row.get("id"), from_csv), question, gold_questions, f"ragas_{index:04d}", notes)
    category = _text(row.get("category"), from_csv)
    if category is not None:
        record["category"] = category
    if lists.get("reference_context_ids") is not None:
        record["gold_passages"] = lists["reference_context_ids"]
    reference = _text(row.get("reference"), from_csv)
    if reference is not None:
        record["expected_answer"] = reference
    retrieved, positional = build_retrieved(lists.get("retrieved_context_ids"), lists.get("retrieved_contexts"), notes)
    if retrieved is not None:
        record["retrieved"] = retrieved
    if "response" in row:
        record["answer"] = _text(row["response"], from_csv)
        if record["answer"] is None:
            notes.append("response empty in the file: no answer")
    for name in metrics:
        add_score(record, name, row.get(name))
    kept = {
        key: lists.get(key, value)
        for key, value in row.items()
        if key not in MAPPED_COLUMNS and key not in metrics and value not in (None, "")
    }
    if kept:
        record["tool_fields"] = kept
    record["source"] = {"row": index, **record.pop("source", {})}
    if notes:
        record["import_notes"] = notes
    return record, positional


def _rename_legacy(row: dict[str, Any]) -> dict[str, Any]:
    if not any(old in row and new not in row for old, new in LEGACY_NAMES.items()):
        return row
    return {(LEGACY_NAMES[key] if key in LEGACY_NAMES and LEGACY_NAMES[key] not in row else key): value for key, value in row.items()}


def _metric_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Columns outside the sample fields whose every value is a number, NaN or empty."""
    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in SAMPLE_COLUMNS and key not in names:
                names[key] = None
    return [name for name in names if all(_numberish(row.get(name)) for row in rows)]


def _numberish(value: Any) -> bool:
    if value is None or isinstance(value, int | float):
        return True
    if isinstance(value, str):
        stripped = value.strip()
        return not stripped or stripped.lower() == "nan" or parse_number(stripped) is not None
    return False


def _text(value: Any, from_csv: bool) -> str | None:
    """A text cell: in a CSV an empty cell is a NaN (pandas writes no value as empty)."""
    text = string_or_none(value)
    if text is None or (from_csv and text == ""):
        return None
    return text


def _list(path: Path, line: int, name: str, value: Any, from_csv: bool, problems: list[Problem]) -> list[str] | None:
    """A list-of-strings cell: a Python literal in a CSV, a JSON array otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str) and from_csv:
        parsed = list_literal(value)
        if isinstance(parsed, str):
            problems.append(problem(path, line, name, f"not a list literal ({parsed}): {short(value)}"))
            return None
        value = parsed
    if not isinstance(value, list | tuple):
        problems.append(problem(path, line, name, f"expected a list of strings, found {short(value)}"))
        return None
    items = []
    for position, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, str | int):
            problems.append(problem(path, line, f"{name}[{position}]", f"expected a string, found {short(item)}"))
            return None
        items.append(str(item))
    return items


def _csv_rows(path: Path, text: str) -> tuple[list[dict[str, Any]], list[int]]:
    # Retrieved passages are long: the csv module's default 128 KiB cell limit is too small.
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as exc:
        raise InputError(problem(path, 1, None, f"malformed CSV header: {exc}")) from None
    keep = [i for i, name in enumerate(header) if not (i == 0 and name in _INDEX_HEADERS)]
    names = [header[i] for i in keep]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(problem(path, 1, name, "the column appears twice in the header"))
        seen.add(name)
    rows, lines, problems = [], [], []
    start = reader.line_num + 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not cells:
                continue
            if len(cells) != len(header):
                problems.append(problem(path, line, None, f"malformed CSV row: {len(cells)} cells, the header has {len(header)}"))
                continue
            rows.append({name: cells[i] for name, i in zip(names, keep, strict=True)})
            lines.append(line)
    except csv.Error as exc:
        problems.append(problem(path, start, None, f"malformed CSV: {exc}"))
    if problems:
        raise InputError(problems)
    return rows, lines


def _jsonl_rows(path: Path, text: str) -> tuple[list[dict[str, Any]], list[int]]:
    """One result row per line: the same reader, and messages, as a native JSONL run."""
    raw = read_jsonl(path, text)
    if raw.problems:
        raise InputError(raw.problems)
    return raw.records, raw.lines


def _json_array_rows(path: Path, text: str) -> tuple[list[dict[str, Any]], list[int]]:
    """`to_json(orient="records")`: lines do not apply, so places are row numbers."""
    try:
        data = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})")) from None
    problems = [problem(path, i, None, f"expected a JSON object, found {short(row)}") for i, row in enumerate(data, 1) if not isinstance(row, dict)]
    if problems:
        raise InputError(problems)
    return data, list(range(1, len(data) + 1))
