"""One question of a comparison, gathered for display (no Textual here).

The question view and the verdict inspector read the rows the core computed
(`Evaluation.question`), the per-question status and cause (`Comparison.status`) and
the A→B changes (`describe_changes`); nothing is re-measured here. The helpers below
only look things up: which retrieved passage an evidence id is, at which rank.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from ragtui.core.comparing.compare import Comparison
from ragtui.core.comparing.question_diff import Change, describe_changes
from ragtui.core.judge_directed import QuestionFlags, question_flags
from ragtui.core.loading.schema import UNCATEGORIZED
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.judge_noise import QuestionNoise, noise_of_row
from ragtui.ui.models.question_rows import QuestionRows

SIDES = ("A", "B")


@dataclass(frozen=True)
class QuestionData:
    """Everything the question view shows for one id."""

    id: str
    k: int
    rows: dict[str, dict[str, Any] | None]  # "A" / "B" → the row of Evaluation.questions
    names: dict[str, str]  # "A" / "B" → run name
    status: dict[str, Any] | None = None  # the row of Comparison.status
    changes: list[Change] = field(default_factory=list)
    category_name: str = ""
    flags: dict[str, QuestionFlags] = field(default_factory=dict)  # side → what addresses the judge
    noise: dict[str, QuestionNoise] = field(default_factory=dict)  # side → its repetitions compared (judge --repeat)
    # The rows are the frame's, without the texts still being read (a long row, in a
    # worker): only the header's gold fields and status are to be drawn from them.
    loading: bool = False

    @property
    def two_runs(self) -> bool:
        return "B" in self.names

    @property
    def any_row(self) -> dict[str, Any]:
        """The gold fields (question, category, expected answer, gold ids) from whichever side has them."""
        return self.rows.get("A") or self.rows.get("B") or {"id": self.id}


def load_question(comparison: Comparison, question_id: str, rows: QuestionRows | None = None) -> QuestionData:
    """Look up one question in A, B and the status frame (`rows`: the session's rows
    read so far, the question's kept there; None reads them afresh)."""

    def read(evaluation: Evaluation) -> dict[str, Any] | None:
        return rows.row(evaluation, question_id) if rows is not None else evaluation.question(question_id)

    row_a = read(comparison.a)
    names = {"A": comparison.a.run.name}
    rows_by_side: dict[str, dict[str, Any] | None] = {"A": row_a}
    changes: list[Change] = []
    if comparison.b is not None:
        row_b = read(comparison.b)
        rows_by_side["B"] = row_b
        names["B"] = comparison.b.run.name
        changes = describe_changes(row_a, row_b, comparison.k)
    evaluations = {"A": comparison.a, "B": comparison.b}
    flags = {side: side_flags(row, evaluations[side]) for side, row in rows_by_side.items()}
    noise = {side: found for side, row in rows_by_side.items() if row and (found := noise_of_row(row)) is not None}
    data = _framed(comparison, question_id, rows_by_side, names)
    return replace(data, changes=changes, flags=flags, noise=noise)


def loading_question(comparison: Comparison, question_id: str) -> QuestionData:
    """The question as the in-memory frames have it, while its texts are read (`loading`)."""
    rows: dict[str, dict[str, Any] | None] = {"A": comparison.a.question(question_id, texts=False)}
    names = {"A": comparison.a.run.name}
    if comparison.b is not None:
        rows["B"] = comparison.b.question(question_id, texts=False)
        names["B"] = comparison.b.run.name
    return replace(_framed(comparison, question_id, rows, names), loading=True)


def _framed(comparison: Comparison, question_id: str, rows: dict[str, dict[str, Any] | None], names: dict[str, str]) -> QuestionData:
    hits = comparison.status.filter(pl.col("id") == question_id)
    status = hits.row(0, named=True) if hits.height else None
    data = QuestionData(question_id, comparison.k, rows, names, status)
    category = data.any_row.get("category") or UNCATEGORIZED
    return replace(data, category_name=comparison.config.category_name(category))


def side_flags(row: dict[str, Any] | None, evaluation: Evaluation | None = None) -> QuestionFlags:
    """What addresses the judge in one side's answer and retrieved passages (judge_directed.py).

    With the row's `evaluation`, a question the run-wide scan did not flag (its sorted
    `ids`, computed once per run) is clean without running the rules again: on a
    5,000-sentence answer that scan costs more than the whole screen.
    """
    if not row or not row.get("present", True):
        return QuestionFlags()
    if evaluation is not None:
        ids = evaluation.judge_directed["ids"]
        at = bisect_left(ids, row["id"])
        if at == len(ids) or ids[at] != row["id"]:
            return QuestionFlags()
    return question_flags(row.get("answer"), [(passage, text) for _, passage, text, _ in retrieved(row)])


def judge_reported_injection(row: dict[str, Any] | None) -> bool:
    """Whether the judge object of `row` says a block tried to instruct the judge."""
    import json

    raw = (row or {}).get("judge_json")
    try:
        judge = json.loads(raw) if raw else None
    except ValueError:
        return False
    return isinstance(judge, dict) and judge.get("injection") is True


def passage_rank(row: dict[str, Any], passage_id: str) -> int | None:
    """1-based rank of a passage in the retrieved list (first occurrence), or None."""
    for rank, candidate in enumerate(row.get("retrieved_ids") or [], start=1):
        if candidate == passage_id:
            return rank
    return None


def passage_text(row: dict[str, Any], passage_id: str) -> str | None:
    """The text of a retrieved passage by id (the judge's evidence), or None."""
    ids = row.get("retrieved_ids") or []
    texts = row.get("retrieved_texts") or []
    for index, candidate in enumerate(ids):
        if candidate == passage_id and index < len(texts):
            return texts[index]
    return None


def retrieved(row: dict[str, Any]) -> list[tuple[int, str, str | None, float | None]]:
    """(rank, id, text, score) of every retrieved passage, best first."""
    ids = row.get("retrieved_ids") or []
    texts = row.get("retrieved_texts") or []
    scores = row.get("retrieved_scores") or []
    return [
        (rank, passage, texts[rank - 1] if rank - 1 < len(texts) else None, scores[rank - 1] if rank - 1 < len(scores) else None)
        for rank, passage in enumerate(ids, start=1)
    ]


def judge_record_input(row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(run record, gold record) rebuilt from a row, as the judge API expects them."""
    record: dict[str, Any] = {
        "id": row["id"],
        "question": row.get("question"),
        "answer": row.get("answer"),
        "retrieved": [
            {"id": passage, "text": text, "score": score} for _, passage, text, score in retrieved(row)
        ],
    }
    if row.get("cited") is not None:
        record["cited"] = list(row["cited"])
    if row.get("abstained_given") is not None:
        record["abstained"] = row["abstained_given"]
    gold = {
        "question": row.get("question"),
        "expected_answer": row.get("expected_answer"),
        "gold_passages": list(row.get("gold_passages") or []),
        "category": row.get("category"),
    }
    return record, gold
