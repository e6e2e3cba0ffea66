"""A JSONL run's texts read back from the run file itself, by the byte offset of each line.

A run-cache entry keeps the lean frame every measure needs. For a JSONL run parsed by the
fast path, the texts only a person reading one question needs (`schema.TEXT_COLUMNS`)
stay where they already are: in the run file. The entry keeps where each record's line
starts (8 bytes a question) and the question view reads that one line again when the
question is shown. Writing those texts to the cache was a tenth of a first open's time
(docs/performance.md); Parquet runs and runs the exact path read still keep theirs in the
entry (`run_cache.TextStore`).

A line is read only from the file as it was parsed: the file's size and modification
time are checked at every read, and the record read must carry the question's id. Reads
may run in several threads at once (the question view's worker, the search index's): each
opens the file for itself, and the instance holds nothing that changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragtui.core.loading.fast_jsonl import canonical_slice
from ragtui.core.loading.records import BOM

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

LINES = "lines.npy"  # the entry's file of line offsets
_READ_ROWS = 4096  # lines parsed at once by a whole-run pass (the search)


def file_stamp(path: Path) -> tuple[int, int]:
    """(size, modification time in ns): what must not change while lines are read back."""
    info = path.stat()
    return info.st_size, info.st_mtime_ns


@dataclass(frozen=True)
class LineTexts:
    """The texts of a JSONL run, one line of the run file read per question."""

    path: Path
    starts: np.ndarray  # the byte offset of each row's line, in frame order
    end: int  # the offset just past the last line
    first_line: int  # the line number of row 0 (2 after a metadata line)
    stamp: tuple[int, int]  # file_stamp when the lines were located

    def written_for(self, key: str) -> bool:
        """True: these texts are the run file's own lines, each checked against its
        question id as it is read (a run cache entry's key does not apply)."""
        return True

    @property
    def rows(self) -> int:
        return len(self.starts)

    def save(self, folder: Path) -> dict[str, Any]:
        """Write the offsets into an entry's folder; the manifest's description of them."""
        with (folder / LINES).open("wb") as handle:
            np.save(handle, self.starts, allow_pickle=False)
        return {"file": LINES, "end": self.end, "first_line": self.first_line}

    @classmethod
    def load(cls, folder: Path, described: dict[str, Any], path: Path) -> LineTexts:
        """The offsets an entry keeps for `path`, whose bytes the entry's digest has just vouched for.

        Raises:
            OSError, ValueError, KeyError: the entry is unreadable (it is then not used).
        """
        starts = np.load(folder / str(described["file"]), allow_pickle=False)
        if starts.dtype != np.uint64 or starts.ndim != 1:
            raise ValueError("line offsets of the wrong type")
        return cls(path, starts, int(described["end"]), int(described["first_line"]), file_stamp(path))

    def row(self, index: int, question_id: str | None = None) -> dict[str, Any]:
        """The text columns of frame row `index`, read from its line of the run file.

        Raises:
            OSError: the run file changed or went away since it was opened, or the line
                no longer holds the question `question_id`.
        """
        start, stop = self.span(index)
        return _text_frame(self.path, [self._read(start, stop)], self.first_line + index, question_id).row(0, named=True)

    def span(self, index: int) -> tuple[int, int]:
        """(start, stop) byte offsets of frame row `index`'s line: its length tells a
        caller how long reading it back takes (the question view reads a long one in a worker)."""
        if not 0 <= index < self.rows:
            raise IndexError(index)
        return int(self.starts[index]), int(self.starts[index + 1]) if index + 1 < self.rows else self.end

    def frames(self) -> Iterator[tuple[int, pl.DataFrame]]:
        """(first frame row, text columns) of each block of lines in turn, for a whole-run
        pass (the search); one block's texts are held at a time.

        A block is parsed by polars as the load parsed the file, with the block before's
        schema where that loses nothing (the exact path, record by record, took 23 s for
        100,000 questions); a block polars is unsure of is read record by record. The raw
        judge and human JSON then keep polars' encoding of the objects.

        Raises:
            OSError: as `row`.
        """
        from ragtui.core.loading.schema import TEXT_COLUMNS

        schema = None
        for first in range(0, self.rows, _READ_ROWS):
            last = min(first + _READ_ROWS, self.rows)
            stop = int(self.starts[last]) if last < self.rows else self.end
            block = self._read(int(self.starts[first]), stop).removeprefix(BOM.encode())
            parsed = canonical_slice(block, last - first, self.first_line + first, schema)
            if parsed is not None:
                frame, schema = parsed
                yield first, frame.select(TEXT_COLUMNS)
            else:
                yield first, _text_frame(self.path, block.split(b"\n")[: last - first], self.first_line + first, None)

    def _read(self, start: int, stop: int) -> bytes:
        if file_stamp(self.path) != self.stamp:
            raise OSError(f"{self.path} changed since it was opened")
        with self.path.open("rb") as handle:
            handle.seek(start)
            data = handle.read(stop - start)
        if len(data) != stop - start:
            raise OSError(f"{self.path} is shorter than when it was opened")
        return data


def _text_frame(path: Path, lines: list[bytes], first_line: int, question_id: str | None) -> pl.DataFrame:
    """The text columns of JSONL lines, each record read as the exact path reads it (the
    fast path gives the same values for every file it accepts; a test holds it to that)."""
    import polars as pl

    from ragtui.core.loading.normalize import normalize_run_record
    from ragtui.core.loading.schema import RUN_SCHEMA, TEXT_COLUMNS

    def changed(line_number: int) -> OSError:
        return OSError(f"{path}: line {line_number} is no longer the record it was")

    rows = []
    for offset, line in enumerate(lines):
        try:
            record = json.loads(line.removeprefix(BOM.encode()))
        except (ValueError, UnicodeDecodeError):
            raise changed(first_line + offset) from None
        row = normalize_run_record(path, first_line + offset, record, []) if isinstance(record, dict) else None
        if row is None or (question_id is not None and row["id"] != question_id):
            raise changed(first_line + offset)
        rows.append(row)
    return pl.DataFrame(rows, schema=RUN_SCHEMA).select(TEXT_COLUMNS)
