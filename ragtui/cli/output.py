"""Where a command's output goes, and what a failed write says.

`-o FILE` writes FILE through `ragtui.core.atomic` (atomic for regular files, in place
for FIFOs and devices, through symbolic links, with the umask); `-o -` and no `-o` write
to standard output. The folder of FILE must exist: it is checked before any work (an
hour of judging must not end on a typo), and never created behind the user's back.

Failed writes end with one line on stderr and exit 2, never a traceback: a full disk
or `> /dev/full` says "No space left on device". A reader that leaves early (`| head`,
`| true`) is not an error: the CLI stops writing without a word (`BrokenPipeError`
reaches `ragtui.cli.main`, which exits 141 as a process killed by SIGPIPE does).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

STDOUT = "-"


def is_stdout(name: str | None) -> bool:
    """True for no `-o` and for `-o -`."""
    return name is None or name == STDOUT


def check_output_path(name: str | None, option: str = "-o") -> None:
    """Refuse, before any work, an output that cannot be written.

    Raises:
        InputError: the folder does not exist, or the path is a folder (exit 2).
    """
    from ragtui.core.errors import InputError, problem

    if is_stdout(name):
        return
    assert name is not None
    target = Path(os.path.realpath(name))  # a link's folder is the folder of its target
    if target.is_dir():
        raise InputError(problem(name, None, option, "is a folder: give a file name"))
    if not target.parent.is_dir():
        raise InputError(problem(name, None, option, f"the folder {target.parent} does not exist (ragtui does not create folders)"))


def abandon_stdout() -> None:
    """Send what is left of standard output to /dev/null, so exiting does not fail again on it."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def output_stream(name: str | None) -> Iterator[IO]:
    """A text stream for the output named by `-o` (UTF-8; standard output for None or `-`).

    Raises:
        InputError: the write failed (full disk, permission, not a file …): one line, exit 2.
        BrokenPipeError: standard output's reader left.
    """
    from ragtui.core.errors import InputError, problem

    label = "standard output" if is_stdout(name) else str(name)
    try:
        if is_stdout(name):
            yield sys.stdout
            sys.stdout.flush()
        else:
            from ragtui.core.atomic import atomic_writer

            assert name is not None
            with atomic_writer(name, "w") as handle:
                yield handle
    except BrokenPipeError:
        raise
    except OSError as exc:
        if is_stdout(name):
            abandon_stdout()
        field = None if is_stdout(name) else "-o"
        raise InputError(problem(label, None, field, f"cannot write: {exc.strerror or exc}")) from None


def flush_stdout() -> None:
    """Flush what is still buffered for standard output; a failure is reported as `output_stream` does."""
    with output_stream(None):
        pass


def write_output(name: str | None, text: str) -> None:
    """Write `text` where `-o` says (see `output_stream`)."""
    with output_stream(name) as handle:
        handle.write(text)


def speak_utf8() -> None:
    """Standard output and error in UTF-8, whatever the locale's encoding.

    Under a Latin-1 locale (`LANG=fr_FR` on an older server) Python would print ✓ as
    `\\u2713` or fail; terminals, files and PR comments all read UTF-8 today.
    """
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8") and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(encoding="utf-8")
