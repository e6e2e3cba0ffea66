"""Validate records field by field and turn them into rows of the canonical schema.

This is the exact path: slower than the polars fast path, but it finds every problem
and names its file, line and field. `ragtui validate` runs it on every file; the loaders
fall back to it whenever the fast path is unsure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl

from ragtui.core.errors import Problem, problem, shown, warning
from ragtui.core.loading import bounded_json
from ragtui.core.loading.schema import KNOWN_RECORD_FIELDS, RECORD_ALIASES, RUN_SCHEMA, VERDICT_ALIASES

# A retrieved passage this long is almost certainly a whole document: shown, but flagged.
LONG_PASSAGE_CHARS = 100_000


class _Checker:
    """Collects problems for one record; each check returns the clean value or None."""

    def __init__(self, path: Path, line: int, problems: list[Problem]):
        self.path, self.line, self.problems = path, line, problems

    def error(self, field: str, message: str) -> None:
        self.problems.append(problem(self.path, self.line, field, message))

    def warn(self, field: str, message: str) -> None:
        self.problems.append(warning(self.path, self.line, field, message))

    def string(self, value: Any, field: str, *, required: bool = False) -> str | None:
        if value is None:
            if required:
                self.error(field, "required, missing")
            return None
        if not isinstance(value, str):
            self.error(field, f"expected a string, found {_kind(value)} {_short(value)}")
            return None
        if required and not value.strip():
            self.error(field, "required, found an empty string")
            return None
        return value

    def boolean(self, value: Any, field: str) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        self.error(field, f"expected true or false, found {_kind(value)} {_short(value)}")
        return None

    def number(self, value: Any, field: str, *, low: float | None = None, high: float | None = None) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.error(field, f"expected a number, found {_kind(value)} {_short(value)}")
            return None
        if isinstance(value, float) and math.isnan(value):
            self.error(field, "is NaN; write null when there is no value")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{low:g}–{high:g}" if high is not None else f"≥ {low:g}"
            self.error(field, f"{value:g} is outside {bounds}")
            return None
        return float(value)

    def string_list(self, value: Any, field: str, *, required: bool = False) -> list[str] | None:
        if value is None:
            if required:
                self.error(field, "required, missing (write [] when no passage holds the answer)")
            return None
        if not isinstance(value, list):
            self.error(field, f"expected a list of strings, found {_kind(value)} {_short(value)}")
            return None
        bad = [i for i, item in enumerate(value) if not isinstance(item, str)]
        if bad:
            self.error(f"{field}[{bad[0]}]", f"expected a string, found {_kind(value[bad[0]])} {_short(value[bad[0]])}")
            return None
        return list(value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    ) if value is not None else "null"


def _short(value: Any) -> str:
    return shown(value)


def apply_aliases(record: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    """Rename alias keys; the English name wins when both are present."""
    if not any(alias in record for alias in aliases):
        return record
    out = dict(record)
    for alias, name in aliases.items():
        if alias in out:
            value = out.pop(alias)
            out.setdefault(name, value)
    return out


def _retrieved(check: _Checker, value: Any) -> tuple[list[str] | None, list[str | None] | None, list[float | None] | None]:
    if value is None:
        return None, None, None
    if not isinstance(value, list):
        check.error("retrieved", f"expected a ranked list, found {_kind(value)}")
        return None, None, None
    ids: list[str] = []
    texts: list[str | None] = []
    scores: list[float | None] = []
    for rank, item in enumerate(value):
        where = f"retrieved[{rank}]"
        if isinstance(item, str):
            ids.append(item)
            texts.append(None)
            scores.append(None)
            continue
        if not isinstance(item, dict):
            check.error(where, f"expected an id string or {{id, text, score}}, found {_kind(item)}")
            return None, None, None
        passage_id = check.string(item.get("id"), f"{where}.id", required=True)
        text = check.string(item.get("text"), f"{where}.text")
        score = check.number(item.get("score"), f"{where}.score")
        if passage_id is None:
            return None, None, None
        if text is not None and len(text) > LONG_PASSAGE_CHARS:
            check.warn(f"{where}.text", f"passage is {len(text):,} characters (more than {LONG_PASSAGE_CHARS:,}): a whole document?")
        ids.append(passage_id)
        texts.append(text)
        scores.append(score)
    return ids, texts, scores


def _error_text(value: Any) -> str | None:
    """An `error` (a judge's, or the system's) as text: an error object is kept as its JSON."""
    return value if value is None or isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _verdicts(check: _Checker, value: Any, prefix: str) -> dict[str, Any]:
    """Validate a `judge` or `human` object into its canonical columns."""
    row: dict[str, Any] = {
        f"{prefix}_present": value is not None,
        f"{prefix}_model": None,
        f"{prefix}_sentences": None,
        f"{prefix}_utility": None,
        f"{prefix}_utility_reason": None,
        f"{prefix}_error": None,
        f"{prefix}_json": None,
    }
    if value is None:
        return row
    if not isinstance(value, dict):
        check.error(prefix, f"expected an object of verdicts, found {_kind(value)}")
        return row
    row[f"{prefix}_json"] = json.dumps(value, ensure_ascii=False)
    row[f"{prefix}_model"] = check.string(value.get("model"), f"{prefix}.model")
    row[f"{prefix}_error"] = _error_text(value.get("error"))
    faithfulness = value.get("faithfulness")
    if faithfulness is not None:
        if not isinstance(faithfulness, dict):
            check.error(f"{prefix}.faithfulness", f"expected an object with sentences, found {_kind(faithfulness)}")
        else:
            faithfulness = apply_aliases(faithfulness, VERDICT_ALIASES)
            row[f"{prefix}_sentences"] = _sentences(check, faithfulness.get("sentences"), f"{prefix}.faithfulness.sentences")
    utility = value.get("utility")
    if utility is not None:
        if isinstance(utility, int | float) and not isinstance(utility, bool):
            utility = {"score": utility}
        if not isinstance(utility, dict):
            check.error(f"{prefix}.utility", f"expected {{score, reason}}, found {_kind(utility)}")
        else:
            row[f"{prefix}_utility"] = check.number(utility.get("score"), f"{prefix}.utility.score", low=1, high=5)
            row[f"{prefix}_utility_reason"] = check.string(utility.get("reason"), f"{prefix}.utility.reason")
    return row


def _repeats(check: _Checker, judge: Any) -> dict[str, Any]:
    """`judge.repeats` (`ragtui judge --repeat N`): each repetition's sentence verdicts and score."""
    row: dict[str, Any] = {"judge_repeat_attested": None, "judge_repeat_utility": None}
    repeats = judge.get("repeats") if isinstance(judge, dict) else None
    if repeats is None:
        return row
    if not isinstance(repeats, list):
        check.error("judge.repeats", f"expected a list of repetitions, found {_kind(repeats)}")
        return row
    attested: list[list[bool] | None] = []
    scores: list[float | None] = []
    for index, item in enumerate(repeats):
        where = f"judge.repeats[{index}]"
        if not isinstance(item, dict):
            check.error(where, f"expected a repetition's verdicts, found {_kind(item)}")
            return row
        verdicts = _verdicts(check, item, where)
        sentences = verdicts[f"{where}_sentences"]
        attested.append(None if sentences is None else [s["attested"] for s in sentences])
        scores.append(verdicts[f"{where}_utility"])
    return {"judge_repeat_attested": attested, "judge_repeat_utility": scores}


def _sentences(check: _Checker, value: Any, field: str) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        check.error(field, f"expected a list of sentence verdicts, found {_kind(value)}")
        return None
    out = []
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(item, dict):
            check.error(where, f"expected {{text, attested, evidence, reason}}, found {_kind(item)}")
            return None
        item = apply_aliases(item, VERDICT_ALIASES)
        attested = item.get("attested")
        if not isinstance(attested, bool):
            check.error(f"{where}.attested", f"expected true or false, found {_kind(attested)} {_short(attested)}")
            return None
        out.append(
            {
                "text": check.string(item.get("text"), f"{where}.text"),
                "attested": attested,
                "evidence": check.string_list(item.get("evidence", []), f"{where}.evidence") or [],
                "reason": check.string(item.get("reason"), f"{where}.reason"),
            }
        )
    return out


def gold_fields(check: _Checker, record: dict[str, Any], *, required: bool, require_question: bool = True) -> dict[str, Any]:
    """question / category / gold_passages / expected_answer, required in a gold set."""
    return {
        "question": check.string(record.get("question"), "question", required=required and require_question),
        "category": check.string(record.get("category"), "category"),
        "gold_passages": check.string_list(record.get("gold_passages"), "gold_passages", required=required),
        "expected_answer": check.string(record.get("expected_answer"), "expected_answer"),
    }


def normalize_run_record(path: Path, line: int, record: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
    """One run record as a canonical row, or None when its id is unusable."""
    check = _Checker(path, line, problems)
    record = apply_aliases(record, RECORD_ALIASES)
    record_id = check.string(record.get("id"), "id", required=True)
    ids, texts, scores = _retrieved(check, record.get("retrieved"))
    extra = {key: value for key, value in record.items() if key not in KNOWN_RECORD_FIELDS}
    row = {
        "id": record_id,
        "line": line,
        **gold_fields(check, record, required=False),
        "retrieved_ids": ids,
        "retrieved_texts": texts,
        "retrieved_scores": scores,
        "answer": check.string(record.get("answer"), "answer"),
        "abstained_given": check.boolean(record.get("abstained"), "abstained"),
        "cited": check.string_list(record.get("cited"), "cited"),
        **_verdicts(check, record.get("judge"), "judge"),
        **_repeats(check, record.get("judge")),
        **_verdicts(check, record.get("human"), "human"),
        "latency_ms": check.number(record.get("latency_ms"), "latency_ms", low=0),
        "cost_usd": check.number(record.get("cost_usd"), "cost_usd", low=0),
        "tokens_in": check.number(record.get("tokens_in"), "tokens_in", low=0),
        "tokens_out": check.number(record.get("tokens_out"), "tokens_out", low=0),
        "system_error": _error_text(record.get("error")),
        "extra": json.dumps(extra, ensure_ascii=False, default=str) if extra else None,
    }
    return row if record_id is not None else None


def normalize_gold_record(
    path: Path, line: int, record: dict[str, Any], problems: list[Problem], *, require_question: bool = True
) -> dict[str, Any] | None:
    """One gold question as a canonical row, or None when its id is unusable.

    TREC qrels have no question texts: their gold sets pass `require_question=False`.
    """
    check = _Checker(path, line, problems)
    record = apply_aliases(record, RECORD_ALIASES)
    record_id = check.string(record.get("id"), "id", required=True)
    row = {"id": record_id, "line": line, **gold_fields(check, record, required=True, require_question=require_question)}
    row["tags"] = list(dict.fromkeys(check.string_list(record.get("tags"), "tags") or []))  # each tag once, in order
    row["document"] = check.string(record.get("document"), "document")
    return row if record_id is not None else None


def run_frame(path: Path, rows: list[dict[str, Any]], lines: list[int], problems: list[Problem]) -> pl.DataFrame:
    """The rows (read from `lines`) as a frame of the run schema. A lone surrogate (a RAGAS
    CSV cell `'\\ud800'`) is no UTF-8 text and polars refuses the frame for it: only then is
    each row holding one named at its line and left out, so an ordinary run pays nothing."""
    try:
        return pl.DataFrame(rows, schema=RUN_SCHEMA)
    except UnicodeEncodeError:
        bad = {i for i, row in enumerate(rows) if bounded_json.has_lone_surrogate(row)}
        problems.extend(problem(path, lines[i], None, "a lone surrogate (\\ud800–\\udfff) in a text: not UTF-8 text") for i in sorted(bad))
        return pl.DataFrame([row for i, row in enumerate(rows) if i not in bad], schema=RUN_SCHEMA)


def duplicate_id_problems(path: Path, rows: list[dict[str, Any]]) -> list[Problem]:
    """One problem per repeated id, naming the line where it first appeared."""
    first_line: dict[str, int] = {}
    problems = []
    for row in rows:
        seen = first_line.setdefault(row["id"], row["line"])
        if seen != row["line"]:
            problems.append(problem(path, row["line"], "id", f"duplicate id '{row['id']}' (first on line {seen})"))
    return problems
