"""File writes a reader can trust: never half a file, never a surprise about what was replaced.

A regular file (or a path that does not exist yet) is written to a temporary sibling,
flushed and fsync'ed, then renamed over the target with os.replace (atomic on POSIX and
Windows). A new file gets the permissions `open()` would give it (0666 less the umask,
0644 typically; `mkstemp` alone would leave 0600); a replaced file keeps its own.

A log that only grows (triage marks, gold edits) is appended a line at a time with
`append_synced_line`: the line is on disk when it returns.

What is not a regular file is never replaced: a symbolic link is followed (its target
is rewritten, the link stays), and a FIFO or a device is written in place, as a shell's
`>` would — `-o /dev/stdout` or a named pipe works, and `/dev/full` reports its error
instead of being swapped for a file. The folder must exist: creating folders is the
caller's decision.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def current_umask() -> int:
    """The process umask, read without changing it where the system allows."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as status:  # Linux ≥ 4.7
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set and restore (briefly process-wide)
    os.umask(mask)
    return mask


def _open_in_place(target: Path, mode: str, encoding: str | None) -> IO:
    binary = "b" in mode
    return open(target, mode, encoding=None if binary else encoding, newline=None if binary else "\n")


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open `path` for writing: a temporary sibling that replaces a regular file on success.

    Raises:
        OSError: the folder does not exist, the path is a folder, the disk is full, …
    """
    target = Path(os.path.realpath(path))  # through symbolic links: the link itself stays
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # A FIFO, a terminal, /dev/null, /dev/full: write in place; there is nothing to swap.
        with _open_in_place(target, mode, encoding) as handle:
            yield handle
        return
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        binary = "b" in mode
        with os.fdopen(fd, mode, encoding=None if binary else encoding, newline=None if binary else "\n") as handle:
            yield handle
            handle.flush()
            permissions = stat.S_IMODE(existing.st_mode) if existing else 0o666 & ~current_umask()
            if hasattr(os, "fchmod"):  # POSIX (Windows has no mode bits to speak of)
                os.fchmod(handle.fileno(), permissions)
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically."""
    with atomic_writer(path, "w") as handle:
        handle.write(text)


def append_synced_line(path: str | os.PathLike[str], line: str) -> None:
    """Append one line (a newline added) to `path`, flushed and fsync'ed before returning.

    Append mode creates the file with the user's umask; the folder must exist.
    """
    with open(path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())
