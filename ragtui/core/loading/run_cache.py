"""The columnar cache of loaded runs: a run file is parsed once, then reopened from Parquet.

Where: `$XDG_CACHE_HOME/ragtui/runs`, else `~/.cache/ragtui/runs` (`cache_root`). One
entry per loaded file, in its own folder named by a key over everything that shapes the
frame: the resolved path, the file's device, inode, size, modification and change times,
the format it was read as, and — for a peer tool's file, whose records are matched to
the gold set — the variant, the gold questions and categories. A file that changed gets
a new key; and because a same-size rewrite within one clock tick could keep every stat
field, an entry also records the SHA-1 of the file's bytes and is served only when the
file hashes the same (about a second a gigabyte, a small part of any reopen).

An entry holds `frame.parquet`, the lean frame every measure needs
(`schema.without_detail`), in the row order of the frame, and says where the columns only
a person reading one question needs (`schema.TEXT_COLUMNS`) are read from: for a JSONL
run the fast path parsed, the run file itself, by the byte offset of each record's line
(`lines.npy`, `line_texts.py`); for any other run, `texts-NNNNN.parquet` files written
slice by slice while the file is parsed, so they never have to be held in memory
(`run_cache_parts.py` writes and reads these files).
`entry.json` is written last; the folder is built under a temporary name and renamed
into place, so a half-written entry is never read.

The cache never grows past its limit (5 GB, or `RAGTUI_CACHE_LIMIT`): after each new
entry, the least recently used ones are removed first.

An entry carries the key it was written for — in `entry.json` and in the metadata of each
Parquet file (`ragtui.cache_key`) — and is served only when both match: a file copied in
from another entry is never served as this run's numbers. The cache removes only what it
wrote: a folder is an entry when its `entry.json` names it, a build in progress when it
holds the STAGING_MARKER; in either, only the cache's own file names are removed, a
symbolic link is never followed, and anything else is left where it is and counted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import stat
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from ragtui.core.errors import Problem
from ragtui.core.loading.run_cache_files import (
    KEY_METADATA,
    LEAN,
    MANIFEST,
    STAGING_MARKER,
    is_own,
    own_manifest,
    remove_entry_folder,
    unfinished_builds,
)
from ragtui.core.user_dirs import xdg_dir

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

    from ragtui.core.loading.line_texts import LineTexts
    from ragtui.core.loading.run_cache_parts import EntryWriter, TextStore
    from ragtui.core.loading.runs import Run

_Binary = TypeVar("_Binary", bound=BinaryIO)

# Raised whenever what an entry holds, or how it is keyed, changes: old entries are then
# never read again and age out of the cache.
CACHE_VERSION = 3
DEFAULT_LIMIT = 5 * 1000**3
LIMIT_VARIABLE = "RAGTUI_CACHE_LIMIT"
_UNITS = {"": 1, "B": 1, "K": 1000, "KB": 1000, "M": 1000**2, "MB": 1000**2, "G": 1000**3, "GB": 1000**3}


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
    """SHA-1 of a file's bytes (hashlib releases the GIL: both runs hash side by side).

    Raises OSError for anything but a regular file: a FIFO read here would be read up
    before its loader opens it, and `/dev/zero` would never end.
    """
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(f"{path}: not a regular file")
    with path.open("rb") as handle:
        return hashlib.file_digest(read_through(handle), "sha1").hexdigest()


def file_identity(path: Path) -> tuple[int, ...]:
    """What tells one state of a file from another without reading it: device, inode, size,
    modification and change times (a rewrite that restores the old mtime still moves ctime)."""
    stat = path.stat()
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


@dataclass(frozen=True)
class EntryInfo:
    """One entry as `ragtui cache` lists it."""

    folder: Path
    source: str
    size: int
    last_used: float


@dataclass(frozen=True)
class RunCache:
    """The cache folder and its size limit; `notes` says what could not be cached and why
    (shown with the comparison's warnings: a cache that silently stops working would only
    look like a slow open)."""

    folder: Path
    limit: int = DEFAULT_LIMIT
    notes: list[str] = field(default_factory=list, compare=False)

    @classmethod
    def default(cls) -> RunCache:
        """The user's cache, with the limit from the environment when it sets a valid one."""
        limit = DEFAULT_LIMIT
        with contextlib.suppress(ValueError):
            limit = parse_limit(os.environ.get(LIMIT_VARIABLE, "")) if os.environ.get(LIMIT_VARIABLE) else DEFAULT_LIMIT
        return cls(cache_root() / "runs", limit)

    def entry(self, path: Path, fmt: str, shaping: Any = None) -> CacheEntry | None:
        """The entry for `path` read as `fmt` (`shaping`: whatever else changes the frame), or
        None when the file cannot be read (the loader then reports why)."""
        try:
            identity = file_identity(path)
        except OSError:
            return None
        material = [CACHE_VERSION, _schema_signature(), str(path.resolve()), *identity, fmt, shaping]
        key = hashlib.sha1(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
        return CacheEntry(self, key, path)

    def entries(self) -> list[EntryInfo]:
        """Every complete entry, least recently used first."""
        found = []
        for folder in self._folders():
            with contextlib.suppress(OSError, ValueError):
                manifest = folder / MANIFEST
                source = str(own_manifest(folder).get("source", "?"))
                size = sum(part.lstat().st_size for part in folder.iterdir())
                found.append(EntryInfo(folder, source, size, manifest.stat().st_mtime))
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


def _schema_signature() -> str:
    from ragtui.core.loading.schema import RUN_SCHEMA

    return hashlib.sha1(repr(sorted(RUN_SCHEMA.items())).encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """The cache's place for one file as it is now."""

    cache: RunCache
    key: str
    source: Path

    @property
    def folder(self) -> Path:
        return self.cache.folder / self.key

    @cached_property
    def digest(self) -> str:
        """SHA-1 of the file's bytes now: read only to check an existing entry (or to record
        one whose parse did not read the file through, see `HashingReader`)."""
        return file_digest(self.source)

    def read(self, path: Path) -> Run | None:
        """The cached run, lean, with its texts on demand (`Run.texts`); None when the entry
        is absent, stale or unreadable."""
        import polars as pl

        try:
            manifest = own_manifest(self.folder)
            if manifest.get("version") != CACHE_VERSION or manifest.get("sha1") != self.digest:  # an absent entry reads no byte
                return None
            if pl.read_parquet_metadata(self.folder / LEAN).get(KEY_METADATA) != self.key:
                return None  # another entry's numbers copied in: never served as this run's
            # One contiguous chunk, as a parsed run has: measuring a frame left in row-group
            # chunks copies it, and at 2 × 1,000,000 questions that added 2.4 GB to the peak.
            frame = pl.read_parquet(self.folder / LEAN).rechunk()
            texts = _texts(self.folder, manifest, path)
            if not texts.written_for(self.key):
                return None
            if texts.rows != frame.height:
                return None
            # Last used: eviction removes the least recent first. The precise clock, not the
            # kernel's coarse file-time tick, so a reopen sorts after an entry written just before.
            now = time.time_ns()
            os.utime(self.folder / MANIFEST, ns=(now, now))
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError):
            return None
        return _run_from_manifest(manifest, frame, path, texts)

    def texts(self) -> TextStore | LineTexts | None:
        """The texts of the entry just committed, or None when it is not in the cache."""
        try:
            return _texts(self.folder, own_manifest(self.folder), self.source)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def writer(self) -> EntryWriter | str:
        """A writer for this entry, or why the cache folder cannot be written."""
        from ragtui.core.loading.run_cache_parts import EntryWriter

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


def _texts(folder: Path, manifest: dict[str, Any], path: Path) -> TextStore | LineTexts:
    """Where an entry's texts are: its own text files, or the lines of the run file."""
    from ragtui.core.loading.line_texts import LineTexts
    from ragtui.core.loading.run_cache_parts import TextStore

    if manifest.get("lines"):
        return LineTexts.load(folder, manifest["lines"], path)
    return TextStore.of(folder, manifest["texts"])


def _run_from_manifest(manifest: dict[str, Any], frame: pl.DataFrame, path: Path, texts: TextStore | LineTexts) -> Run:
    from ragtui.core.loading.runs import Run, RunMeta

    meta = dict(manifest["meta"])
    if meta.get("fallback_phrases") is not None:
        meta["fallback_phrases"] = tuple(meta["fallback_phrases"])
    given = manifest.get("given")
    warnings = tuple(
        Problem(**{**warning, "file": str(path) if warning["file"] == given else warning["file"]}) for warning in manifest["warnings"]
    )
    return Run(RunMeta(**meta), frame, path, warnings, manifest["source_format"], texts=texts)
