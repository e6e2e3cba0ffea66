"""Which files and folders in the run cache are its own, and removing them.

The cache shares a folder the user can write into, so it never removes by pattern or
recursively: a folder is the cache's when its `entry.json` names it (its key), or while it
is being built or removed when it holds STAGING_MARKER; inside one, only the names the
cache writes are removed, and only as regular files (a symbolic link is never followed).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any

from ragtui.core.loading import bounded_json

MANIFEST = "entry.json"
LEAN = "frame.parquet"
# The Parquet metadata key each of an entry's files carries: the entry's key.
KEY_METADATA = "ragtui.cache_key"
# The file that marks a folder as an entry being built (`.tmp-PID-…`) or removed (`.trash-…`).
STAGING_MARKER = ".ragtui-staging"
# Every name the cache writes inside an entry (and their atomic writes' temporary
# names); nothing else is ever removed.
_OWN_FILE = re.compile(r"\.?(?:entry\.json|frame\.parquet|lines\.npy|texts-\d{5}\.parquet)(?:\.\w+\.tmp)?|\.ragtui-staging")
STAGING_NAME = re.compile(r"\.tmp-(\d+)-[0-9a-f]+")


def is_own_file_name(name: str) -> bool:
    """Whether `name` is one of an entry's finished files (never a temporary one or the marker)."""
    return _OWN_FILE.fullmatch(name) is not None and not name.startswith(".") and not name.endswith(".tmp")


def own_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of an entry folder; ValueError when it is not one the cache wrote for it."""
    manifest = bounded_json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if not isinstance(manifest, dict) or manifest.get("key") != folder.name:
        raise ValueError(f"{folder}: not a run cache entry")
    return manifest


def is_own(folder: Path) -> bool:
    """Whether `folder` is a real folder the cache made: an entry, a build or a removal."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return False
        if (folder / STAGING_MARKER).is_file() and not (folder / STAGING_MARKER).is_symlink():
            return True
        own_manifest(folder)
        return not (folder / MANIFEST).is_symlink()
    except (OSError, ValueError):
        return False


def remove_entry_folder(folder: Path) -> bool:
    """Remove an entry's own files and then its folder; renamed first, so a concurrent
    reader sees it whole or not at all. False when something not the cache's stays."""
    trash = folder.with_name(f".trash-{secrets.token_hex(6)}")
    try:
        folder.rename(trash)
    except OSError:
        return True  # already gone (another process evicted it)
    for part in trash.iterdir():
        with contextlib.suppress(OSError):
            if _OWN_FILE.fullmatch(part.name) and stat.S_ISREG(part.lstat().st_mode):
                part.unlink()
    try:
        trash.rmdir()
    except OSError:  # something of the user's is in it: put back under its name, untouched
        with contextlib.suppress(OSError):
            trash.rename(folder)
        return False
    return True


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def unfinished_builds(cache_folder: Path) -> list[Path]:
    """Builds left in `cache_folder` by a process that ended before it finished (killed,
    out of disk): the next save removes them, `ragtui cache` counts them. A build is made
    as a folder, then marked: a process killed between the two leaves an empty folder of
    the build's name, which holds nothing of anyone's and goes too."""
    found = []
    with contextlib.suppress(OSError):
        for folder in cache_folder.iterdir():
            match = STAGING_NAME.fullmatch(folder.name)
            if match and (is_own(folder) or _empty_folder(folder)) and not process_alive(int(match.group(1))):
                found.append(folder)
    return found


def _empty_folder(folder: Path) -> bool:
    """Whether `folder` is a real folder (never a link) with nothing in it."""
    try:
        return stat.S_ISDIR(folder.lstat().st_mode) and not any(folder.iterdir())
    except OSError:
        return False
