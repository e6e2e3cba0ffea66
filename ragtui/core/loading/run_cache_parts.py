"""The files of one run-cache entry (`run_cache.py` says where entries live and how
they are keyed): the texts read back a question at a time, and the writer that builds an
entry while the run file is parsed."""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ragtui.core.atomic import atomic_write_text, atomic_writer
from ragtui.core.loading.run_cache import CACHE_VERSION, CacheEntry
from ragtui.core.loading.run_cache_files import KEY_METADATA, LEAN, MANIFEST, STAGING_MARKER, remove_entry_folder

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import polars as pl

    from ragtui.core.loading.runs import Run

# Small row groups: the question view reads one question's texts without decoding many others.
TEXT_ROW_GROUP = 1000
PART_ROWS = 65_536  # rows of texts in one file of an entry at most (see EntryWriter.add)
_GROUPS_KEPT = 2  # decoded row groups a TextStore keeps (a few MB each)


class HashingReader:
    """A binary file read through, its SHA-1 taken on the way: on a first open the parse
    reads every byte anyway, so the entry's digest costs no second pass over the file."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.sha1 = hashlib.sha1()
        self.at_end = False

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        if not data and size != 0:
            self.at_end = True
        self.sha1.update(data)  # hashlib releases the GIL on large buffers
        return data

    def readline(self, size: int = -1) -> bytes:
        line = self.handle.readline(size)
        if not line:
            self.at_end = True
        self.sha1.update(line)
        return line

    def hexdigest(self) -> str | None:
        """The digest of the whole file, or None when it was not read to its end."""
        return self.sha1.hexdigest() if self.at_end else None


@dataclass(frozen=True)
class TextStore:
    """A run's texts kept out of memory: the text files of its cache entry, read one
    question at a time (a row group is 1,000 rows, so one read decodes at most that many).

    The last row groups read are kept: `n` through the failure list mostly moves to a
    question of the same thousand, and decoding its group again cost ~7 ms a side of
    every step.
    """

    folder: Path
    parts: tuple[str, ...]
    starts: tuple[int, ...]  # the frame row each part begins at
    rows: int
    _groups: dict[tuple[int, int], Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, folder: Path, parts: list[list[Any]]) -> TextStore:
        starts, total = [], 0
        for _, rows in parts:
            starts.append(total)
            total += int(rows)
        return cls(folder, tuple(str(name) for name, _ in parts), tuple(starts), total)

    def written_for(self, key: str) -> bool:
        """Whether every text file carries the entry's key (a file copied in from another
        entry is not this run's texts)."""
        import polars as pl

        return all(pl.read_parquet_metadata(self.folder / name).get(KEY_METADATA) == key for name in self.parts)

    def row(self, index: int, question_id: str | None = None) -> dict[str, Any]:
        """The text columns of frame row `index` (`question_id` is for `LineTexts`' check).

        Raises:
            OSError: the entry was removed meanwhile (`ragtui cache clear`, eviction by
                another process); the caller then reads the file again.
        """
        import polars as pl

        from ragtui.core.loading.schema import TEXT_COLUMNS

        if not 0 <= index < self.rows:
            raise IndexError(index)
        part = bisect.bisect_right(self.starts, index) - 1
        offset = index - self.starts[part]
        key = (part, offset - offset % TEXT_ROW_GROUP)
        group = self._groups.get(key)
        if group is None:
            try:
                group = pl.scan_parquet(self.folder / self.parts[part]).slice(key[1], TEXT_ROW_GROUP).select(TEXT_COLUMNS).collect()
            except pl.exceptions.PolarsError as exc:
                raise OSError(f"cannot read the cached texts: {exc}") from None
            while len(self._groups) >= _GROUPS_KEPT:
                self._groups.pop(next(iter(self._groups)))
            self._groups[key] = group
        return group.row(offset - key[1], named=True)

    def frames(self) -> Iterator[tuple[int, Any]]:
        """(first frame row, text columns) of each part in turn: a whole-run pass (the
        search) holds one part's texts at a time while it reads.

        Raises:
            OSError: as `row`.
        """
        import polars as pl

        from ragtui.core.loading.schema import TEXT_COLUMNS

        for start, name in zip(self.starts, self.parts, strict=True):
            try:
                yield start, pl.read_parquet(self.folder / name, columns=list(TEXT_COLUMNS))
            except pl.exceptions.PolarsError as exc:
                raise OSError(f"cannot read the cached texts: {exc}") from None


class EntryWriter:
    """Builds an entry in a temporary folder: `add` each slice as it is parsed, then `commit`."""

    def __init__(self, entry: CacheEntry, staging: Path) -> None:
        self.entry = entry
        self.staging = staging
        self.parts: list[tuple[str, int]] = []  # (file name, rows)
        self.rows = 0
        self.failed: str | None = None
        # The SHA-1 of the bytes parsed, when the parse read the whole file (else read at commit).
        self.read_digest: str | None = None
        # A JSONL run's texts stay in the run file: where each record's line starts (line_texts.py).
        self.lines: list[np.ndarray] = []
        self.first_line = 1
        self.stamp: tuple[int, int] | None = None  # the run file's, before it was parsed

    def add_lines(self, starts: np.ndarray, first_line: int) -> None:
        """Keep where the next rows' lines start in the run file (their texts are read there)."""
        if not self.lines:
            self.first_line = first_line
        self.lines.append(starts)
        self.rows += len(starts)

    def add(self, frame: pl.DataFrame) -> None:
        """Write the text columns of these rows (the next rows of the frame) as one part,
        or as several of at most PART_ROWS rows each."""
        import polars as pl

        from ragtui.core.loading.schema import TEXT_COLUMNS

        if frame.height > PART_ROWS:
            # A Parquet run arrives as one frame, not in slices as a JSONL file does. polars
            # writes a slice of a large frame at the pace of the whole frame's buffers (16,384
            # rows of a 1,000,000-row run: 9.3 s; the same rows copied: 0.18 s), so a run's
            # texts took over 400 s to cache. Each part is gathered into its own buffers.
            for start in range(0, frame.height, PART_ROWS):
                part = frame.slice(start, PART_ROWS)
                self.add(part.select(pl.all().gather(pl.int_range(0, pl.len()))))
            return
        if self.failed:
            return
        name = f"texts-{len(self.parts):05d}.parquet"
        try:
            with atomic_writer(self.staging / name, "wb") as handle:
                # Snappy: this write is on the first open's critical path, and the question
                # view decodes a row group at each step. Against zstd's fastest level, on a
                # 100,000-question run: written in 0.9 s instead of 1.3 s, a row read in
                # 6.3 ms instead of 9.4 ms, for 77 MB instead of 52 MB.
                frame.select(TEXT_COLUMNS).write_parquet(
                    handle, row_group_size=TEXT_ROW_GROUP, compression="snappy", metadata={KEY_METADATA: self.entry.key}
                )
        except (OSError, pl.exceptions.PolarsError) as exc:  # polars says "No space left on device" in its own type
            self.failed = _why(exc)
            return
        self.parts.append((name, frame.height))
        self.rows += frame.height

    def reset(self) -> None:
        """Forget the parts written so far (the loader starts again from the first row)."""
        for name, _ in self.parts:
            with contextlib.suppress(OSError):
                (self.staging / name).unlink()
        self.parts, self.rows, self.failed, self.read_digest, self.lines = [], 0, None, None, []

    def commit(self, run: Run) -> str | None:
        """Write the lean frame and the manifest, then put the entry in place.

        Returns why the entry was not kept (None when it was): a full disk or an unwritable
        folder never stops a load, it only costs the next open its speed.
        """
        from ragtui.core.loading.schema import without_detail

        if self.failed is None and self.rows != run.frame.height:
            self.failed = f"{self.rows} rows of texts for {run.frame.height} questions"
        import polars as pl

        if self.failed is None:
            try:
                digest = self.read_digest or self.entry.digest
                lines = self._save_lines()
                manifest = json.dumps(_manifest(self.entry, run, self.parts, digest, lines), ensure_ascii=False, allow_nan=False)
                with atomic_writer(self.staging / LEAN, "wb") as handle:
                    without_detail(run.frame).write_parquet(handle, metadata={KEY_METADATA: self.entry.key})  # lean already: a plain write
                atomic_write_text(self.staging / MANIFEST, manifest)
                (self.staging / STAGING_MARKER).unlink()
                self.staging.rename(self.entry.folder)
            except (OSError, TypeError, ValueError, pl.exceptions.PolarsError) as exc:
                if isinstance(exc, OSError) and self.entry.folder.is_dir():
                    self.abort()
                    return None  # another process cached the same file meanwhile
                self.failed = _why(exc)
        if self.failed is not None:
            self.abort()
            return self.failed
        if self.entry.folder in {info.folder for info in self.entry.cache.evict(keep=self.entry.folder)}:
            return f"the run alone is larger than the cache limit ({self.entry.cache.limit:,} bytes)"
        return None

    def _save_lines(self) -> dict[str, Any] | None:
        if not self.lines:
            return None
        import numpy as np

        from ragtui.core.loading.line_texts import LineTexts

        if self.stamp is None:
            raise OSError("the run file was not stamped before its parse")
        starts = np.concatenate(self.lines)
        return LineTexts(self.entry.source, starts, self.stamp[0], self.first_line, self.stamp).save(self.staging)

    def abort(self) -> None:
        """Drop the temporary folder (its own files only, as `ragtui cache clear` does)."""
        remove_entry_folder(self.staging)


def _why(exc: BaseException) -> str:
    """One line on why an entry could not be written ("No space left on device", …)."""
    reason = getattr(exc, "strerror", None) or str(exc)
    return " ".join(reason.split())[:200]


def _manifest(entry: CacheEntry, run: Run, parts: list[tuple[str, int]], digest: str, lines: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "lines": lines,
        "key": entry.key,
        "version": CACHE_VERSION,
        "source": str(entry.source.resolve()),
        "given": str(run.path),  # the path as named then: warnings name it, and are renamed on reopen
        "sha1": digest,
        "created": time.time(),
        "rows": run.frame.height,
        "texts": [list(part) for part in parts],
        "meta": asdict(run.meta),
        "warnings": [asdict(warning) for warning in run.warnings],
        "source_format": run.source_format,
    }
