"""The marked (or listed) questions of a comparison, for a PR comment or a script.

Markdown: one table (id, category, status, cause, mark, note, question), every cell
set in code spans by `sanitize.md_code`. JSONL: one object a line with the same fields plus the
failure kinds in A and B and both answers. Writing the file is the caller's, through
`atomic_write_text`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from ragtui.core.sanitize import md_code
from ragtui.core.triage.notes import MARK_LABELS, Notes
from ragtui.core.vocabulary import CAUSE_LABELS, STATUS_LABEL, STATUS_SYMBOL

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison

FORMATS = ("markdown", "jsonl")
EXTENSIONS = {"markdown": ".md", "jsonl": ".jsonl"}


_SIDE_COLUMNS = ("category", "question", "failures", "answer")


def _side(comparison: Comparison, side: str) -> pl.DataFrame:
    """id and the columns the export reads of one run, suffixed with its side ("_a", "_b")."""
    evaluation = comparison.a if side == "a" else comparison.b
    assert evaluation is not None
    return evaluation.questions.select("id", *[pl.col(c).alias(f"{c}_{side}") for c in _SIDE_COLUMNS])


def export_rows(comparison: Comparison, ids: list[str], notes: Notes | None) -> list[dict[str, Any]]:
    """One dict per id, in the order given: what the question is, its status, its mark.

    Joined from the frames in one pass: a whole listed failure list (100,000 questions)
    exports without a lookup per question, and no question's texts are read back.
    """
    sides = ("a", "b") if comparison.b is not None else ("a",)
    frame = pl.DataFrame({"id": ids}, schema={"id": pl.String}).join(
        comparison.status.select("id", "category", "status", "cause"), on="id", how="left", maintain_order="left"
    )
    for side in sides:
        frame = frame.join(_side(comparison, side), on="id", how="left", maintain_order="left")
    rows = []
    for row in frame.iter_rows(named=True):
        mark = notes.get(row["id"]) if notes is not None else None
        out: dict[str, Any] = {
            "id": row["id"],
            "category": row["category"] or row["category_a"],
            "status": row["status"],
            "cause": row["cause"],
            "mark": mark.mark if mark else None,
            "note": mark.note if mark else "",
            "question": row["question_a"] or row.get("question_b"),
        }
        for side in sides:
            out[f"failures_{side}"] = list(row[f"failures_{side}"] or [])
            out[f"answer_{side}"] = row[f"answer_{side}"]
        rows.append(out)
    return rows


def to_jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def to_markdown(rows: list[dict[str, Any]], names: tuple[str, ...], what: str) -> str:
    """A PR comment: a title naming the runs and `what` was exported, then the table."""
    runs = " → ".join(md_code(name) for name in names)
    out = [f"### ragtui triage: {len(rows)} {what} question{'s' if len(rows) != 1 else ''} ({runs})", ""]
    out += ["| id | category | status | cause | mark | note | question |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        status = row["status"]
        cells = [
            md_code(row["id"]),
            md_code(row["category"] or ""),
            f"{STATUS_SYMBOL.get(status, '')} {STATUS_LABEL.get(status, status or '')}".strip(),
            CAUSE_LABELS.get(row["cause"] or "", row["cause"] or ""),
            MARK_LABELS.get(row["mark"] or "", ""),
            md_code(row["note"]),
            md_code(row["question"] or ""),
        ]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def render_export(comparison: Comparison, ids: list[str], notes: Notes | None, fmt: str, what: str) -> str:
    """The export of `ids` in `fmt` ("markdown" or "jsonl")."""
    rows = export_rows(comparison, ids, notes)
    if fmt == "jsonl":
        return to_jsonl(rows)
    names = (comparison.a.run.name,) + ((comparison.b.run.name,) if comparison.b is not None else ())
    return to_markdown(rows, names, what)
