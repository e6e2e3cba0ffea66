"""Edits to the gold set made during triage, kept in `GOLD.edits.jsonl` beside the gold set.

Each edit is one JSON line appended and synced to disk before the app moves on, so a crash
or a closed SSH session loses nothing:
`{"question", "field", "before", "after", "why", "who", "at"}` where `field` is one of
`gold_passages`, `category`, `expected_answer`, `tags`. One action of a person may write
several lines (marking a question unanswerable empties its gold passages and changes its
category): the lines after the first carry `"joined": true`. An undo appends
`{"undo": true, …}`, which takes back the last action not yet taken back. The file is
the audit trail: nothing in it is ever rewritten.

The edits are replayed in order over the gold set as loaded (`apply_edits`). An edit whose
`after` the gold set already holds (it was written with `ragtui gold apply`) changes
nothing and is not counted as pending.
"""

from __future__ import annotations

import getpass
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from ragtui.core.atomic import append_synced_line
from ragtui.core.errors import Problem, problem, warning
from ragtui.core.loading.gold import GoldSet
from ragtui.core.loading.records import json_object_line

EDITABLE_FIELDS = ("gold_passages", "category", "expected_answer", "tags")
_LIST_FIELDS = ("gold_passages", "tags")
WHY_LIMIT = 300  # a one-line reason


def _who() -> str:
    try:
        return os.environ.get("USER") or getpass.getuser()
    except (OSError, KeyError):
        return ""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class GoldEdit:
    """One field of one question changed, by whom, when and why."""

    question: str
    field: str
    before: Any
    after: Any
    why: str = ""
    who: str = ""
    at: str = ""
    joined: bool = False  # part of the same action as the edit before it
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"question": self.question, "field": self.field, "before": self.before, "after": self.after,
               "why": self.why, "who": self.who, "at": self.at}
        return out | ({"joined": True} if self.joined else {})


def _valid_value(name: str, value: Any) -> bool:
    if name in _LIST_FIELDS:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return value is None or isinstance(value, str)


def _parse(path: Path, line_no: int, text: str, problems: list[Problem]) -> GoldEdit | str | None:
    """A GoldEdit, "undo", or None (a bad line, reported)."""
    data = json_object_line(path, line_no, text, problems)
    if data is None:
        return None
    if data.get("undo") is True:
        return "undo"
    question, name = data.get("question"), data.get("field")
    if not isinstance(question, str) or not question:
        problems.append(problem(path, line_no, "question", "expected a question id"))
        return None
    if name not in EDITABLE_FIELDS:
        problems.append(problem(path, line_no, "field", f"expected one of {', '.join(EDITABLE_FIELDS)}"))
        return None
    for key in ("before", "after"):
        if not _valid_value(name, data.get(key)):
            kind = "a list of strings" if name in _LIST_FIELDS else "a string or null"
            problems.append(problem(path, line_no, key, f"expected {kind} for {name}"))
            return None
    return GoldEdit(
        question, name, data.get("before"), data.get("after"),
        str(data.get("why") or ""), str(data.get("who") or ""), str(data.get("at") or ""),
        data.get("joined") is True, line_no,
    )


@dataclass
class GoldEdits:
    """The edits log of one gold set: read once, then kept in step with every append.

    `edits` holds the actions in force (undone ones removed), in the order they were made.
    """

    path: Path
    edits: list[GoldEdit] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GoldEdits:
        """Read a log (a missing file is an empty one); bad lines go to `problems` and are skipped."""
        path = Path(path)
        log = cls(path)
        if path.is_file():
            with path.open(encoding="utf-8", errors="replace") as handle:
                for line_no, text in enumerate(handle, start=1):
                    if not text.strip():
                        continue
                    found = _parse(path, line_no, text, log.problems)
                    if found == "undo":
                        log._drop_last_action()
                    elif isinstance(found, GoldEdit):
                        log.edits.append(found)
        elif path.exists():
            log.problems.append(problem(path, None, None, "not a file"))
        return log

    def _append(self, entry: dict[str, Any]) -> None:
        append_synced_line(self.path, json.dumps(entry, ensure_ascii=False))

    def record(self, changes: list[tuple[str, str, Any, Any]], why: str = "") -> list[GoldEdit]:
        """Write one action: (question, field, before, after) each; on disk before returning.

        Raises:
            OSError: the log cannot be written (the edit is then not made).
            ValueError: an unknown field.
        """
        why = " ".join(why.split())[:WHY_LIMIT]
        who, at = _who(), _now()
        made = []
        for index, (question, name, before, after) in enumerate(changes):
            if name not in EDITABLE_FIELDS:
                raise ValueError(f"not an editable gold field: {name!r}")
            edit = GoldEdit(question, name, before, after, why, who, at, joined=index > 0)
            self._append(edit.to_json())
            made.append(edit)
        self.edits.extend(made)
        return made

    def undo(self) -> list[GoldEdit]:
        """Take back the last action (its edits, returned); nothing when there is none."""
        if not self.edits:
            return []
        last = self._last_action()
        first = last[0]
        self._append({"undo": True, "question": first.question, "field": first.field, "who": _who(), "at": _now()})
        self._drop_last_action()
        return last

    def _last_action(self) -> list[GoldEdit]:
        start = len(self.edits) - 1
        while start > 0 and self.edits[start].joined:
            start -= 1
        return self.edits[start:]

    def _drop_last_action(self) -> None:
        if self.edits:
            del self.edits[len(self.edits) - len(self._last_action()):]


@dataclass(frozen=True)
class EditedGold:
    """A gold set with its edits replayed: the new set, the edits that changed it, and problems."""

    gold: GoldSet
    pending: list[GoldEdit]
    problems: list[Problem]


def _same(name: str, left: Any, right: Any) -> bool:
    if name == "gold_passages":  # an order of gold passages means nothing
        return sorted(left or []) == sorted(right or [])
    return bool(left == right)


def apply_edits(gold: GoldSet, edits: list[GoldEdit], *, log_path: Path | None = None) -> EditedGold:
    """Replay `edits` in order over the gold set; an edit of an unknown question is reported and skipped."""
    where = log_path or gold.path
    problems: list[Problem] = []
    rows: dict[str, dict[str, Any]] = {row["id"]: row for row in gold.frame.iter_rows(named=True)}
    pending: list[GoldEdit] = []
    for edit in edits:
        row = rows.get(edit.question)
        if row is None:
            problems.append(warning(where, edit.line, "question", f"'{edit.question}' is not in the gold set {gold.path}: edit skipped"))
            continue
        current = row[edit.field]
        if _same(edit.field, current, edit.after):
            continue  # already in the gold set
        if not _same(edit.field, current, edit.before):
            problems.append(warning(
                where, edit.line, edit.field,
                f"'{edit.question}': the gold set no longer holds the value this edit started from; the edit is applied over it",
            ))
        row[edit.field] = list(edit.after) if edit.field in _LIST_FIELDS else edit.after
        pending.append(edit)
    frame = pl.DataFrame(list(rows.values()), schema=gold.frame.schema) if pending else gold.frame
    return EditedGold(GoldSet(frame, gold.path, gold.grades), pending, problems)


def gold_value(gold: GoldSet, question: str, name: str) -> Any:
    """The current value of one editable field of one question (None when the question is unknown)."""
    found = gold.frame.filter(pl.col("id") == question)
    if found.height == 0:
        return None
    return found.row(0, named=True)[name]


def with_gold_edits(gold: GoldSet, path: Path, *, named: bool) -> tuple[GoldSet, list[Problem], str | None]:
    """The gold set with the edits log at `path` replayed, its problems, and what to say.

    `named`: the log was given (--gold-edits), so a missing one is a problem; the default
    one beside the gold set is simply absent.
    """
    if not path.is_file():
        return gold, ([problem(path, None, None, "no edits log here")] if named else []), None
    log = GoldEdits.load(path)
    edited = apply_edits(gold, log.edits, log_path=path)
    problems = [warning(p.file, p.line, p.field, p.message) for p in log.problems] + edited.problems
    if not edited.pending:
        return gold, problems, None
    count = len(edited.pending)
    note = f"gold: {count} edit(s) of {path.name} not yet in {gold.path.name}, applied (write them with `ragtui gold apply`)"
    return edited.gold, problems, note
