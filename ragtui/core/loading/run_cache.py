"""The columnar cache of loaded runs: a run file is parsed once, then reopened from Parquet.

Where: `$XDG_CACHE_HOME/ragtui/runs`, else `~/.cache/ragtui/runs` (`cache_root`). One
entry per loaded file, in its own folder named by a key over everything that shapes the
frame: the resolved path, the file's device, inode, size, modification and change times,
the SHA-1 of sampled blocks of its bytes (`sampled_digest`), the format it was read as,
and — for a peer tool's file, whose records are matched to the gold set — the variant, the
gold questions and categories. A file that changed gets a new key. Because a same-size
rewrite within one clock tick could keep every stat field and miss every sampled block,
an entry also records the CRC-32 of the whole file (`Crc32`); a reopen checks it in the
background (`RunCache.verify`, both files side by side, off the critical path: hashing whole
files was 43 % of a reopen), and an entry that does not match is removed — `RunCache.settle`
says which, and `session.load_comparison` then parses those files again before it
answers.

An entry holds `frame.parquet`, the lean frame every measure needs
(`schema.without_detail`), in the row order of the frame, and says where the columns only
a person reading one question needs (`schema.TEXT_COLUMNS`) are read from: for a JSONL
run the fast path parsed, the run file itself, by the byte offset of each record's line
(`lines.npy`, `line_texts.py`); for any other run, `texts-NNNNN.parquet` files written
slice by slice while the file is parsed, so they never have to be held in memory
(`TextStore` reads them back, `EntryWriter` writes them).
`entry.json` is written last; the folder is built under a temporary name and renamed
into place, so a half-written entry is never read.

The cache never grows past its limit (5 GB, or `RAGTUI_CACHE_LIMIT`): after each new
entry, the least recently used ones are removed first.

A native JSONL gold set read by polars (`loading/fast_gold.py`) is kept the same way, as
an entry of its own (`RunCache.gold_entry`): its frame in `frame.parquet`, keyed and checked
as a run's is, and `entry.json` saying `"kind": "gold set"`. Only a gold set without a
single problem is kept, so what a gold set with problems says is always read from the file.

An entry carries the key it was written for — in `entry.json` and in the metadata of each
Parquet file (`ragtui.cache_key`) — and is served only when both match: a file copied in
from another entry is never served as this run's numbers. `entry.json` also records the
size of each of the entry's files: a truncated one is never read. The cache removes only what it
wrote: a folder is an entry when its `entry.json` names it, a build in progress when it
holds the STAGING_MARKER; in either, only the cache's own file names are removed, a
symbolic link is never followed, and anything else is left where it is and counted.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import secrets
import stat
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from ragtui.core.atomic import atomic_write_text, atomic_writer
from ragtui.core.errors import Problem
from ragtui.core.loading.run_cache_files import (
    KEY_METADATA,
    LEAN,
    MANIFEST,
    STAGING_MARKER,
    is_own,
    is_own_file_name,
    own_manifest,
    remove_entry_folder,
    unfinished_builds,
)
from ragtui.core.user_dirs import xdg_dir

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import polars as pl

    from ragtui.core.loading.line_texts import LineTexts
    from ragtui.core.loading.run import Run

_Binary = TypeVar("_Binary", bound=BinaryIO)

# Raised whenever what an entry holds, or how it is keyed, changes: old entries are then
# never read again and age out of the cache.
CACHE_VERSION = 5
# What an entry holds (`entry.json`'s "kind"; an entry without one holds a run).
RUN_KIND = "run"
GOLD_KIND = "gold set"
DEFAULT_LIMIT = 5 * 1000**3
LIMIT_VARIABLE = "RAGTUI_CACHE_LIMIT"
_UNITS = {"": 1, "B": 1, "K": 1000, "KB": 1000, "M": 1000**2, "MB": 1000**2, "G": 1000**3, "GB": 1000**3}
# A file (a run, a gold set) smaller than this is read at each open and never cached: writing its entry
# (a Parquet file, the manifest, each synced to disk) cost more than the parse it saves (the
# sample's 0.86 MB runs: parsed in 18 ms of CPU, 36 ms with the entry written, 5 ms
# reopened), and a few milliseconds per reopen are not worth a slower first open
# (docs/decisions.md, "The run cache and small runs").
CACHED_FROM_BYTES = 1_000_000


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/ragtui`, else `~/.cache/ragtui` (a relative XDG path is ignored, as the spec says)."""
    return xdg_dir("XDG_CACHE_HOME", ".cache")


def parse_limit(text: str) -> int:
    """"5GB", "800 MB", "2000000000" → bytes; raises ValueError on anything else."""
    cleaned = text.strip().upper().replace(" ", "")
    number = cleaned.rstrip("KMGB")
    unit = cleaned[len(number) :]
    if unit not in _UNITS or not number.replace(".", "", 1).isdigit():
        raise ValueError(f"expected a size such as 5GB or 800MB, found {text!r}")
    return int(float(number) * _UNITS[unit])


def read_through(handle: _Binary) -> _Binary:
    """`handle`, with the kernel told it is read from start to end: it reads further ahead,
    so a file not in the page cache arrives while the last block is parsed. Two runs of
    100,000 questions, caches dropped before each of three pairs: `report --no-cache`
    22.7/20.0/17.4 s → 20.9/18.3/17.1 s. A hint: where it is not supported, nothing changes."""
    if hasattr(os, "posix_fadvise"):
        with contextlib.suppress(OSError, ValueError):
            os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
    return handle


def file_digest(path: Path) -> str:
    """SHA-1 of a file's bytes: the gold set's in a run's metadata (`gold_set_sha1`).

    Raises OSError for anything but a regular file: a FIFO read here would be read up
    before its loader opens it, and `/dev/zero` would never end.
    """
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(f"{path}: not a regular file")
    with path.open("rb") as handle:
        return hashlib.file_digest(read_through(handle), "sha1").hexdigest()


class Crc32:
    """CRC-32 with hashlib's interface (`update`, `hexdigest`): what an entry records of its
    whole file, checked again in the background of each reopen (`RunCache.verify`).

    Not SHA-1: the check guards against an accident the key cannot see (a rewrite within
    one clock tick that keeps size, times and every sampled block; the change time cannot
    be set back by hand), not against forgery, and SHA-1 took twice the CPU seconds (0.27
    against 0.13 s for a file of 400 MB, read included) on the two cores the reopen's
    measures need. zlib releases the GIL on large buffers: both files are checked side by side.
    """

    def __init__(self, data: bytes = b"") -> None:
        self.value = zlib.crc32(data)

    def update(self, data: bytes | memoryview) -> None:
        self.value = zlib.crc32(data, self.value)

    def hexdigest(self) -> str:
        return f"{self.value:08x}"


def file_check(path: Path) -> str:
    """The `Crc32` of a file's bytes. Raises OSError for anything but a regular file (see `file_digest`)."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(f"{path}: not a regular file")
    check = Crc32()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    with path.open("rb", buffering=0) as handle:
        read_through(handle)
        while size := handle.readinto(buffer):
            check.update(view[:size])
    return check.hexdigest()


def file_identity(path: Path) -> tuple[int, ...]:
    """What tells one state of a file from another without reading it: device, inode, size,
    modification and change times (a rewrite that restores the old mtime still moves ctime).

    Raises OSError for anything but a regular file (see `file_digest`)."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"{path}: not a regular file")
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


# The blocks `sampled_digest` reads: the first, the last and evenly between, 1 MiB in all
# (milliseconds from the page cache, whatever the file's size). A file up to that size is
# hashed whole.
SAMPLE_BLOCKS = 16
SAMPLE_BLOCK_BYTES = 64 * 1024


def sampled_digest(path: Path, size: int) -> str:
    """SHA-1 of sampled blocks of a file of `size` bytes (all of it when it is small): part
    of an entry's key, read on every reopen instead of the whole file."""
    sha1 = hashlib.sha1()
    with path.open("rb") as handle:
        if size <= SAMPLE_BLOCKS * SAMPLE_BLOCK_BYTES:
            sha1.update(handle.read())
        else:
            step = (size - SAMPLE_BLOCK_BYTES) // (SAMPLE_BLOCKS - 1)
            for block in range(SAMPLE_BLOCKS):
                handle.seek(block * step)
                sha1.update(handle.read(SAMPLE_BLOCK_BYTES))
    return sha1.hexdigest()


@dataclass(frozen=True)
class EntryInfo:
    """One entry as `ragtui cache` lists it."""

    folder: Path
    source: str
    size: int
    last_used: float
    kind: str = RUN_KIND

    @property
    def holds_gold(self) -> bool:
        """Whether the entry holds a gold set's frame (else a run's)."""
        return self.kind == GOLD_KIND


@dataclass(frozen=True)
class RunCache:
    """The cache folder and its size limit; `notes` says what could not be cached and why
    (shown with the comparison's warnings: a cache that silently stops working would only
    look like a slow open)."""

    folder: Path
    limit: int = DEFAULT_LIMIT
    notes: list[str] = field(default_factory=list, compare=False)
    # The whole-file checks of the entries served (`verify`), and the files whose entry failed one.
    _checks: list[threading.Thread] = field(default_factory=list, compare=False, repr=False)
    _stale: list[Path] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def default(cls) -> RunCache:
        """The user's cache, with the limit from the environment when it sets a valid one."""
        limit = DEFAULT_LIMIT
        with contextlib.suppress(ValueError):
            limit = parse_limit(os.environ.get(LIMIT_VARIABLE, "")) if os.environ.get(LIMIT_VARIABLE) else DEFAULT_LIMIT
        return cls(cache_root() / "runs", limit)

    def entry(self, path: Path, fmt: str, shaping: Any = None) -> CacheEntry | None:
        """The entry for `path` read as `fmt` (`shaping`: whatever else changes the frame), or
        None when the file cannot be read (the loader then reports why) or is too small to
        be worth caching (`CACHED_FROM_BYTES`)."""
        try:
            identity = file_identity(path)
            if identity[2] < CACHED_FROM_BYTES:
                return None
            sample = sampled_digest(path, identity[2])
        except OSError:
            return None
        material = [CACHE_VERSION, _schema_signature(), str(path.resolve()), *identity, sample, fmt, shaping]
        key = hashlib.sha1(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
        return CacheEntry(self, key, path)

    def gold_entry(self, path: Path) -> CacheEntry | None:
        """The entry for the frame of the gold set `path` (`CacheEntry.read_gold`, `write_gold`);
        None when the file cannot be read."""
        from ragtui.core.loading.schema import GOLD_SCHEMA

        return self.entry(path, GOLD_KIND, _schema_signature(GOLD_SCHEMA))

    def verify(self, entry: CacheEntry, recorded: str) -> None:
        """Check the whole file of an entry just served (`file_check`), in a thread: two runs
        side by side, beside the measures; remove the entry when its bytes are not the ones
        it was written from."""

        def check() -> None:
            try:
                same = file_check(entry.source) == recorded
            except OSError:
                same = False  # unreadable now: never served again without a parse
            if not same:
                remove_entry_folder(entry.folder)
                self._stale.append(entry.source)

        thread = threading.Thread(target=check, name="ragtui-cache-check", daemon=True)
        self._checks.append(thread)
        thread.start()

    def settle(self) -> list[Path]:
        """Wait for the whole-file checks started so far; the files whose entry was served
        but did not match them (their entries are gone: the next load parses them)."""
        while self._checks:
            self._checks.pop().join()
        stale = list(self._stale)
        self._stale.clear()
        return stale

    def entries(self) -> list[EntryInfo]:
        """Every complete entry, least recently used first."""
        found = []
        for folder in self._folders():
            with contextlib.suppress(OSError, ValueError):
                manifest = folder / MANIFEST
                held = own_manifest(folder)
                size = sum(part.lstat().st_size for part in folder.iterdir())
                found.append(EntryInfo(folder, str(held.get("source", "?")), size, manifest.stat().st_mtime, str(held.get("kind", RUN_KIND))))
        return sorted(found, key=lambda info: info.last_used)

    def clear(self) -> tuple[int, int, list[Path]]:
        """Remove every entry and unfinished build; (entries, bytes removed, what was left:
        anything in the folder the cache did not write)."""
        entries = self.entries()
        left: list[Path] = []
        if self.folder.is_symlink():
            return 0, 0, [self.folder]
        with contextlib.suppress(FileNotFoundError):
            for folder in sorted(self.folder.iterdir()):
                if not (is_own(folder) and remove_entry_folder(folder)):
                    left.append(folder)
        return len(entries), sum(info.size for info in entries), left

    def unfinished(self) -> list[Path]:
        """Builds left by a process that ended before it finished (killed, out of disk)."""
        return unfinished_builds(self.folder)

    def evict(self, keep: Path | None = None) -> list[EntryInfo]:
        """Remove the least recently used entries until the cache fits its limit; `keep`
        goes last (it is removed only if it alone exceeds the limit). Returns the removed."""
        entries = sorted(self.entries(), key=lambda info: (info.folder == keep, info.last_used))
        total = sum(info.size for info in entries)
        removed = []
        for info in entries:
            if total <= self.limit:
                break
            remove_entry_folder(info.folder)
            total -= info.size
            removed.append(info)
        return removed

    def _folders(self) -> list[Path]:
        """The entries' folders: real folders (never a link) whose manifest names them."""
        with contextlib.suppress(OSError):
            if not self.folder.is_symlink():
                return [folder for folder in self.folder.iterdir() if not folder.name.startswith(".") and is_own(folder)]
        return []


def _schema_signature(schema: Any = None) -> str:
    """A digest of a frame's schema (the runs' unless given): an entry written for another is never read."""
    from ragtui.core.loading.schema import RUN_SCHEMA

    return hashlib.sha1(repr(sorted((schema or RUN_SCHEMA).items())).encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """The cache's place for one file as it is now."""

    cache: RunCache
    key: str
    source: Path

    @property
    def folder(self) -> Path:
        return self.cache.folder / self.key

    def read(self, path: Path) -> Run | None:
        """The cached run, lean, with its texts on demand (`Run.texts`); None when the entry
        is absent, stale or unreadable."""
        import polars as pl

        try:
            held = self._lean(RUN_KIND)
            if held is None:
                return None
            manifest, frame = held
            texts = _texts(self.folder, manifest, path)
            if not texts.written_for(self.key):
                return None
            if texts.rows != frame.height:
                return None
            self._used()
            run = _run_from_manifest(manifest, frame, path, texts)
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError):
            return None
        self.cache.verify(self, str(manifest["crc32"]))
        return run

    def read_gold(self) -> pl.DataFrame | None:
        """The gold set's frame kept by `write_gold`; None when the entry is absent, stale or unreadable."""
        import polars as pl

        try:
            held = self._lean(GOLD_KIND)
            if held is None or held[1].height != held[0].get("rows"):
                return None
            manifest, frame = held
            self._used()
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError):
            return None
        self.cache.verify(self, str(manifest["crc32"]))
        return frame

    def write_gold(self, frame: pl.DataFrame, digest: str) -> str | None:
        """Keep a gold set's frame, read from bytes whose `Crc32` is `digest`; why it was not kept, or None."""
        made = self.writer()
        if isinstance(made, str):
            return made
        return made.commit_frame(lambda: (frame, {"crc32": digest, "given": str(self.source), "rows": frame.height}), GOLD_KIND)

    def _lean(self, kind: str) -> tuple[dict[str, Any], pl.DataFrame] | None:
        """(manifest, lean frame) of this entry when it holds a `kind`, is whole and is the
        one its key names; None otherwise. Raises what reading it raised."""
        import polars as pl

        manifest = own_manifest(self.folder)  # its key names this folder
        if manifest.get("version") != CACHE_VERSION or manifest.get("kind", RUN_KIND) != kind or not _files_intact(self.folder, manifest):
            return None
        if pl.read_parquet_metadata(self.folder / LEAN).get(KEY_METADATA) != self.key:
            return None  # another entry's numbers copied in: never served as this file's
        # One contiguous chunk, as a parsed run has: measuring a frame left in row-group
        # chunks copies it, and at 2 × 1,000,000 questions that added 2.4 GB to the peak.
        return manifest, pl.read_parquet(self.folder / LEAN).rechunk()

    def _used(self) -> None:
        """Mark the entry used now: eviction removes the least recent first. The precise
        clock, not the kernel's coarse file-time tick, so a reopen sorts after an entry
        written just before."""
        now = time.time_ns()
        os.utime(self.folder / MANIFEST, ns=(now, now))

    def texts(self) -> TextStore | LineTexts | None:
        """The texts of the entry just committed, or None when it is not in the cache."""
        try:
            return _texts(self.folder, own_manifest(self.folder), self.source)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def writer(self) -> EntryWriter | str:
        """A writer for this entry, or why the cache folder cannot be written."""
        staging = self.cache.folder / f".tmp-{os.getpid()}-{secrets.token_hex(6)}"
        try:
            self.cache.folder.mkdir(parents=True, exist_ok=True)
            for folder in self.cache.unfinished():
                remove_entry_folder(folder)
            staging.mkdir()  # 0777 less the umask, as the user's other folders
            (staging / STAGING_MARKER).write_bytes(b"")
        except OSError as exc:
            with contextlib.suppress(OSError):
                remove_entry_folder(staging)
            return f"cannot write {self.cache.folder}: {exc.strerror or exc}"
        return EntryWriter(self, staging)


def _files_intact(folder: Path, manifest: dict[str, Any]) -> bool:
    """Whether each file the manifest lists is there at the size it was written (a
    truncated file, or one of another size swapped in, is not)."""
    files = manifest.get("files")
    if not isinstance(files, dict) or LEAN not in files:
        return False
    return all(is_own_file_name(name) and (folder / name).lstat().st_size == size for name, size in files.items())


def _texts(folder: Path, manifest: dict[str, Any], path: Path) -> TextStore | LineTexts:
    """Where an entry's texts are: its own text files, or the lines of the run file."""
    from ragtui.core.loading.line_texts import LineTexts

    if manifest.get("lines"):
        return LineTexts.load(folder, manifest["lines"], path)
    return TextStore.of(folder, manifest["texts"])


def _run_from_manifest(manifest: dict[str, Any], frame: pl.DataFrame, path: Path, texts: TextStore | LineTexts) -> Run:
    from ragtui.core.loading.run import Run, meta_from_fields

    given = manifest.get("given")
    warnings = tuple(
        Problem(**{**warning, "file": str(path) if warning["file"] == given else warning["file"]}) for warning in manifest["warnings"]
    )
    return Run(meta_from_fields(manifest["meta"]), frame, path, warnings, manifest["source_format"], texts=texts)


# Small row groups: the question view reads one question's texts without decoding many others.
TEXT_ROW_GROUP = 1000
PART_ROWS = 65_536  # rows of texts in one file of an entry at most (see EntryWriter.add)
_GROUPS_KEPT = 2  # decoded row groups a TextStore keeps (a few MB each)


class HashingReader:
    """A binary file read through, its `Crc32` taken on the way: on a first open the parse
    reads every byte anyway, so the entry's digest costs no second pass over the file."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.check = Crc32()
        self.at_end = False

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        if not data and size != 0:
            self.at_end = True
        self.check.update(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        line = self.handle.readline(size)
        if not line:
            self.at_end = True
        self.check.update(line)
        return line

    def hexdigest(self) -> str | None:
        """The digest of the whole file, or None when it was not read to its end."""
        return self.check.hexdigest() if self.at_end else None


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

        def contents() -> tuple[pl.DataFrame, dict[str, Any]]:
            digest = self.read_digest or file_check(self.entry.source)
            lines = self._save_lines()
            return without_detail(run.frame), _manifest(run, self.parts, digest, lines)  # lean already: a plain write

        return self.commit_frame(contents, RUN_KIND)

    def commit_frame(self, contents: Callable[[], tuple[pl.DataFrame, dict[str, Any]]], kind: str) -> str | None:
        """Write the entry's own files: `contents()` writes any besides the lean frame and
        returns that frame and what the manifest says of this `kind`; then put the entry in
        place. Returns why it was not kept, or None (see `commit`)."""
        import polars as pl

        if self.failed is None:
            try:
                frame, held = contents()
                with atomic_writer(self.staging / LEAN, "wb") as handle:
                    frame.write_parquet(handle, metadata={KEY_METADATA: self.entry.key})
                files = {part.name: part.lstat().st_size for part in self.staging.iterdir() if is_own_file_name(part.name) and part.name != MANIFEST}
                manifest = {
                    **held, "files": files, "key": self.entry.key, "version": CACHE_VERSION, "kind": kind,
                    "source": str(self.entry.source.resolve()), "created": time.time(),
                }
                atomic_write_text(self.staging / MANIFEST, json.dumps(manifest, ensure_ascii=False, allow_nan=False))
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
            return f"the {kind} alone is larger than the cache limit ({self.entry.cache.limit:,} bytes)"
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


def _manifest(run: Run, parts: list[tuple[str, int]], digest: str, lines: dict[str, Any] | None) -> dict[str, Any]:
    """What a run's entry says beside what every entry says (`EntryWriter.commit_frame`)."""
    from ragtui.core.loading.run import meta_fields

    return {
        "lines": lines,
        "given": str(run.path),  # the path as named then: warnings name it, and are renamed on reopen
        "crc32": digest,
        "rows": run.frame.height,
        "texts": [list(part) for part in parts],
        "meta": meta_fields(run.meta),
        "warnings": [asdict(warning) for warning in run.warnings],
        "source_format": run.source_format,
    }
