"""The run file `ragtui run` writes: created atomically, then appended and flushed per question.

A question's record is one line written in one call and flushed at once, so Ctrl-C, a
closed SSH session or `kill -9` loses at most the questions in flight. Opening an
existing file resumes it: its records say which questions are done. A last line cut
short (no newline, not JSON: the machine stopped mid-write) is dropped; `rerun_errors`
drops the records holding a system error so those questions are asked again. Either way
the kept lines are first written back atomically (the project's `atomic_writer`), so the
file never holds a question twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.records import dump_record, read_bytes_utf8, read_jsonl, write_run_jsonl


@dataclass
class PreviousRun:
    """What an earlier invocation left in the file (nothing for a new file)."""

    meta: dict[str, Any] | None = None
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # by id, in file order
    dropped_errors: list[str] = field(default_factory=list)  # ids whose system error is asked again
    torn_line: bool = False  # the last line was cut short and is dropped

    @property
    def needs_rewrite(self) -> bool:
        return self.torn_line or bool(self.dropped_errors)


def read_previous(path: Path, *, rerun_errors: bool) -> PreviousRun:
    """The records already in `path` (a missing or empty file: none). Raises InputError.

    A file with malformed lines other than a torn last one, a record without an id or the
    same id twice is not a run this command wrote: it is refused rather than appended to.
    """
    if not path.exists() or path.stat().st_size == 0:
        return PreviousRun()
    text = read_bytes_utf8(path)
    torn = False
    if not text.endswith("\n"):
        head, _, last = text.rpartition("\n")
        try:
            json.loads(last)
        except json.JSONDecodeError:
            text, torn = head + "\n" if head else "", True
    raw = read_jsonl(path, text) if text.strip() else None
    if raw is None:
        return PreviousRun(torn_line=torn)
    refuse = "is not a run `ragtui run` can resume; give another -o or remove it"
    if raw.problems:
        raise InputError([problem(p.file, p.line, p.field, f"{p.message} — {path} {refuse}") for p in raw.problems])
    previous = PreviousRun(meta=raw.meta or None, torn_line=torn)
    for record, line in zip(raw.records, raw.lines):
        record_id = record.get("id")
        if record_id is None:
            raise InputError(problem(path, line, "id", f"a record without an id: {path} {refuse}"))
        key = str(record_id)
        if key in previous.records:
            raise InputError(problem(path, line, "id", f"question {key} is recorded twice: {path} {refuse}"))
        if rerun_errors and record.get("error") is not None:
            previous.dropped_errors.append(key)
            continue
        previous.records[key] = record
    return previous


class RunWriter:
    """Appends one record a line and flushes it; use as a context manager."""

    def __init__(self, path: Path, meta: dict[str, Any], previous: PreviousRun):
        if previous.meta is None and not previous.records:
            write_run_jsonl(path, meta, [])  # a new file, with the user's umask
        elif previous.needs_rewrite:
            write_run_jsonl(path, previous.meta or {}, previous.records.values())
        self.path = path
        self._handle: IO[str] = open(path, "a", encoding="utf-8", newline="\n")

    def append(self, record: dict[str, Any]) -> None:
        """Write one question's record and hand it to the system at once (flush)."""
        self._handle.write(dump_record(record) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
