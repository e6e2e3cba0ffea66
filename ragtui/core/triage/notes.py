"""Marks and notes on questions, kept in a JSONL sidecar that outlives the session.

A mark says what a person concluded about a question: `ok` (not a real failure), `bug`,
`gold_wrong` (the gold set is wrong), `flaky`; with an optional one-line note. Each
mark is one JSON line appended to the sidecar and flushed to disk at once, so a crash
or a closed SSH session loses nothing; the last line about a question wins, and a line
with `"mark": null` removes its mark. The file is the history of the triage.

The sidecar sits next to run B (`candidate.jsonl` → `candidate.notes.jsonl`), or next
to A for a single run, unless `--notes FILE` names another; the bundled sample's is in
`$XDG_DATA_HOME/ragtui/sample`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragtui.core.atomic import append_synced_line
from ragtui.core.errors import Problem, problem
from ragtui.core.loading.own_files import NOTES_SUFFIX, sidecar_path
from ragtui.core.loading.records import json_object_line

MARKS = ("ok", "bug", "gold_wrong", "flaky")
MARK_LABELS = {"ok": "ok", "bug": "bug", "gold_wrong": "gold wrong", "flaky": "flaky"}
MARK_MEANINGS = {
    "ok": "not a real failure",
    "bug": "a real bug of the system",
    "gold_wrong": "the gold set is wrong here",
    "flaky": "passes or fails from run to run",
}
# The letter that picks a mark in the menu is the letter the failure list shows.
MARK_LETTERS = {"ok": "o", "bug": "b", "gold_wrong": "g", "flaky": "f"}
NOTE_LIMIT = 500  # a one-line note; a pasted page is cut, and says so


@dataclass(frozen=True)
class Mark:
    """What a person said about one question, and when."""

    question_id: str
    mark: str | None  # one of MARKS; None: the mark was removed
    note: str = ""
    at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.question_id, "mark": self.mark, "note": self.note, "at": self.at}


def default_notes_path(run_path: Path) -> Path:
    """`runs/candidate.jsonl` → `runs/candidate.notes.jsonl` (beside the run it is about; for
    the bundled sample, in the user's data folder: `own_files.sidecar_path`)."""
    return sidecar_path(run_path, NOTES_SUFFIX)


def _parse(path: Path, line_no: int, line: str, problems: list[Problem]) -> Mark | None:
    data = json_object_line(path, line_no, line, problems)
    if data is None:
        return None
    qid, mark, note = data.get("id"), data.get("mark"), data.get("note") or ""
    if not isinstance(qid, str) or not qid:
        problems.append(problem(path, line_no, "id", f"expected a question id, found {qid!r}"))
        return None
    if mark is not None and mark not in MARKS:
        problems.append(problem(path, line_no, "mark", f"expected one of {', '.join(MARKS)} or null, found {mark!r}"))
        return None
    if not isinstance(note, str):
        problems.append(problem(path, line_no, "note", f"expected a string, found {note!r}"))
        return None
    return Mark(qid, mark, note, str(data.get("at") or ""))


class Notes:
    """The marks of one sidecar: read once, then kept in step with every append."""

    def __init__(self, path: Path, marks: dict[str, Mark] | None = None, problems: list[Problem] | None = None) -> None:
        self.path = path
        self.marks: dict[str, Mark] = marks or {}  # the current mark of each question (removed ones dropped)
        self.problems: list[Problem] = problems or []  # unreadable lines, skipped and reported

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Notes:
        """Read a sidecar (a missing file is an empty one); bad lines go to `problems`."""
        path = Path(path)
        marks: dict[str, Mark] = {}
        problems: list[Problem] = []
        if path.is_file():
            with path.open(encoding="utf-8", errors="replace") as handle:
                for line_no, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    mark = _parse(path, line_no, line, problems)
                    if mark is None:
                        continue
                    if mark.mark is None:
                        marks.pop(mark.question_id, None)
                    else:
                        marks[mark.question_id] = mark
        elif path.exists():
            problems.append(problem(path, None, None, "not a file"))
        return cls(path, marks, problems)

    def get(self, question_id: str) -> Mark | None:
        return self.marks.get(question_id)

    def set(self, question_id: str, mark: str | None, note: str = "") -> Mark:
        """Mark a question (or remove its mark with None): appended and on disk before returning."""
        if mark is not None and mark not in MARKS:
            raise ValueError(f"unknown mark {mark!r}")
        note = " ".join(note.split())  # one line, whatever was pasted
        if len(note) > NOTE_LIMIT:
            note = note[: NOTE_LIMIT - 1] + "…"
        entry = Mark(question_id, mark, note, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        append_synced_line(self.path, json.dumps(entry.to_json(), ensure_ascii=False))
        if mark is None:
            self.marks.pop(question_id, None)
        else:
            self.marks[question_id] = entry
        return entry

    def ids(self, mark: str | None = None) -> list[str]:
        """Marked question ids (those with `mark` when given), in the order they were marked."""
        return [qid for qid, m in self.marks.items() if mark is None or m.mark == mark]

    def counts(self) -> dict[str, int]:
        return {name: sum(1 for m in self.marks.values() if m.mark == name) for name in MARKS}
