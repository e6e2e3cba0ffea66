"""Input files read once, within bounds, whatever the path turns out to be.

A path given as a run, gold set, config or labels file may name something that is not a
file: `/dev/zero` reads forever, a FIFO (a named pipe, or `<(…)` in a shell) can be
opened and read only once — a second open waits for a writer that has gone. Here:

- `read_bounded` opens a path once, refuses devices, sockets and folders by name, and
  reads a pipe up to STREAM_LIMIT bytes (a regular file is read whole, as it is sized);
- `spooled` gives the loaders, which open a run or gold file several times (a sniff of
  its first bytes, then a parse), a regular copy of a pipe's bytes, read once;
- `special_kind` says what a path that is not a regular file is, for messages.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ragtui.core.errors import InputError, Problem, problem

# What a pipe may hand over: more than any run file ragtui is given, less than a machine's memory.
STREAM_LIMIT = 2_000_000_000
_CHUNK = 1 << 20
FIFO = "a FIFO (named pipe)"

_KINDS = (
    (stat.S_ISDIR, "a folder, expected a file"),
    (stat.S_ISCHR, "a character device (like /dev/zero), not a file"),
    (stat.S_ISBLK, "a block device, not a file"),
    (stat.S_ISSOCK, "a socket, not a file"),
    (stat.S_ISFIFO, FIFO),
)


def special_kind(path: Path) -> str | None:
    """What `path` is when it exists and is not a regular file ("a FIFO (named pipe)", …)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((kind for test, kind in _KINDS if test(mode)), None)


def read_bounded(path: Path, limit: int = STREAM_LIMIT) -> bytes:
    """The bytes of `path`, opened once; raises InputError naming it for anything else."""
    try:
        # A FIFO's open waits for its writer, as `cat` does: the one open the FIFO gets.
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise InputError(problem(path, None, None, "file not found")) from None
    except IsADirectoryError:
        raise InputError(problem(path, None, None, "is a folder, expected a file")) from None
    except OSError as exc:
        raise InputError(problem(path, None, None, f"cannot read: {exc.strerror}")) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISFIFO(mode):
            kind = next((kind for test, kind in _KINDS if test(mode)), "not a regular file")
            raise InputError(problem(path, None, None, f"is {kind}"))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            if stat.S_ISREG(mode):
                return handle.read()
            return _read_stream(path, handle, limit)
    except OSError as exc:
        raise InputError(problem(path, None, None, f"cannot read: {exc.strerror or exc}")) from None
    finally:
        os.close(fd)


def _read_stream(path: Path, handle: object, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := handle.read(min(_CHUNK, limit + 1 - size)):  # type: ignore[attr-defined]
        size += len(chunk)
        if size > limit:
            raise InputError(problem(path, None, None, f"is {FIFO} that gave more than {limit:,} bytes: not read further"))
        chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def spooled(path: Path) -> Iterator[Path]:
    """`path` itself when it is a regular file; for a FIFO, a private regular copy of what
    it gave (read once); for a device, a socket or a folder, an InputError naming it.

    Problems raised inside name the FIFO, not the copy (see `renamed` for those returned).
    """
    kind = special_kind(path)
    if kind is None:
        yield path
        return
    if kind != FIFO:
        raise InputError(problem(path, None, None, f"is {kind}"))
    data = read_bounded(path)
    folder = Path(tempfile.mkdtemp(prefix="ragtui-fifo-"))
    copy = folder / (path.name or "input")
    try:
        copy.write_bytes(data)
        try:
            yield copy
        except InputError as exc:
            raise InputError(renamed(exc.problems, copy, path)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def renamed(problems: Iterable[Problem], copy: Path, path: Path) -> list[Problem]:
    """`problems` found in a spooled copy, naming the path the user gave."""
    return [replace(p, file=str(path)) if p.file == str(copy) else p for p in problems]
