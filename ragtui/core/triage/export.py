"""The marked (or listed) questions of a comparison, for a PR comment or a script.

Markdown: one table (id, category, status, cause, mark, note, question), every cell
escaped by `markdown_cell`. JSONL: one object a line with the same fields plus the
failure kinds in A and B and both answers. Writing the file is the caller's, through
`atomic_write_text`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from ragtui.core.sanitize import markdown_cell
from ragtui.core.triage.notes import MARK_LABELS, Notes
from ragtui.core.vocabulary import CAUSE_LABELS, STATUS_LABEL, STATUS_SYMBOL

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison

FORMATS = ("markdown", "jsonl")
EXTENSIONS = {"markdown": ".md", "jsonl": ".jsonl"}


def export_rows(comparison: Comparison, ids: list[str], notes: Notes | None) -> list[dict[str, Any]]:
    """One dict per id, in the order given: what the question is, its status, its mark."""
    wanted = pl.DataFrame({"id": ids}, schema={"id": pl.String})
    status = wanted.join(comparison.status.select("id", "category", "status", "cause"), on="id", how="left", maintain_order="left")
    rows = []
    for row in status.iter_rows(named=True):
        qid = row["id"]
        a = comparison.a.question(qid) or {}
        b = (comparison.b.question(qid) or {}) if comparison.b is not None else None
        mark = notes.get(qid) if notes is not None else None
        out: dict[str, Any] = {
            "id": qid,
            "category": row["category"] or a.get("category"),
            "status": row["status"],
            "cause": row["cause"],
            "mark": mark.mark if mark else None,
            "note": mark.note if mark else "",
            "question": a.get("question") or (b or {}).get("question"),
            "failures_a": list(a.get("failures") or []),
            "answer_a": a.get("answer"),
        }
        if b is not None:
            out["failures_b"] = list(b.get("failures") or [])
            out["answer_b"] = b.get("answer")
        rows.append(out)
    return rows


def to_jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def to_markdown(rows: list[dict[str, Any]], names: tuple[str, ...], what: str) -> str:
    """A PR comment: a title naming the runs and `what` was exported, then the table."""
    runs = " → ".join(markdown_cell(name) for name in names)
    out = [f"### ragtui triage: {len(rows)} {what} question{'s' if len(rows) != 1 else ''} ({runs})", ""]
    out += ["| id | category | status | cause | mark | note | question |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        status = row["status"]
        cells = [
            markdown_cell(row["id"]),
            markdown_cell(row["category"] or ""),
            f"{STATUS_SYMBOL.get(status, '')} {STATUS_LABEL.get(status, status or '')}".strip(),
            CAUSE_LABELS.get(row["cause"] or "", row["cause"] or ""),
            MARK_LABELS.get(row["mark"] or "", ""),
            markdown_cell(row["note"]),
            markdown_cell(row["question"] or ""),
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
