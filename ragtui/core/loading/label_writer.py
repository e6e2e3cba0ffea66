"""Writing people's labels: one event appended and flushed per key, to a file that can be written.

The app's labelling (`ragtui.ui.models.labelling`) writes through `LabelWriter`, which
keeps the run's `RunLabels` in step; `writable_problem` says, before the first key, why
a file cannot be written. Reading and replaying the file is `labels.py`'s.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ragtui.core.loading.labels import RunLabels, sentence_hash
from ragtui.core.loading.own_files import sample_sidecar_dir


class LabelsUnwritable(Exception):
    """The labels file cannot be written; the message says what to do (`--labels`)."""


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class LabelWriter:
    """Appends label events to one file, flushing each, and keeps `RunLabels` in step."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def _open(self) -> IO[str]:
        if self._handle is None:
            try:
                if self.path.parent == sample_sidecar_dir():
                    self.path.parent.mkdir(parents=True, exist_ok=True)  # ragtui's own folder, made at first use
                # Append mode with the user's umask; any other folder must already exist.
                self._handle = self.path.open("a", encoding="utf-8", newline="\n")
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                raise LabelsUnwritable(
                    f"cannot write labels to {self.path}: {reason.lower()}; "
                    "start ragtui with --labels FILE in a folder you can write to"
                ) from None
        return self._handle

    def record(self, labels: RunLabels, question_id: str, *, sentence: int | None = None,
               human: bool | None = None, utility: float | None = None, sampled: bool = False,
               text: str | None = None) -> dict[str, Any]:
        """Write one event (flushed before returning), then apply it to `labels`; `text`: the
        labelled sentence's, remembered as its hash."""
        event: dict[str, Any] = {"id": question_id, "run": labels.run}
        if sentence is not None:
            event |= {"sentence": sentence, "human": human}
            if text is not None and human is not None:
                event["text_hash"] = sentence_hash(text)
        else:
            event["utility"] = int(utility) if utility is not None and float(utility).is_integer() else utility
        event |= {"sampled": sampled, "at": now_utc()}
        handle = self._open()
        try:
            handle.write(json.dumps(event, ensure_ascii=False) + "\n")
            handle.flush()
        except OSError as exc:
            raise LabelsUnwritable(f"cannot write labels to {self.path}: {(exc.strerror or '').lower()}") from None
        labels.apply(event)
        return event

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def writable_problem(path: Path) -> str | None:
    """Why labels could not be written to `path` (checked before the first key), or None."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists():
        return None if os.access(path, os.W_OK) else f"{path} is read-only: start ragtui with --labels FILE to label"
    if folder == sample_sidecar_dir():  # made at the first label: its nearest existing parent must be writable
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        return f"the folder {folder} does not exist: start ragtui with --labels FILE to label"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is read-only: start ragtui with --labels FILE to label"
    return None
