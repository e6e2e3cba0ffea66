"""A run file parsed in a process of its own, so that two runs parse on two cores whatever
the decoder.

polars spreads one slice's parse over both cores, but a decoder that holds the GIL makes
two threads take turns; two processes do not. When both runs of a comparison are native
JSONL files large enough to pay for a process's start (`worth_processes`), each is parsed
by `runs.parse_run` in a child — `python -m ragtui.core.loading.run_process`, a fresh
interpreter, never a fork of this one (polars' thread pool does not survive a fork) — and
the parent builds the same `Run` it would have built itself:

- the request (path, detail, cache entry) goes to the child's stdin as one JSON line;
- the frame comes back as Arrow IPC in an anonymous file the parent made and handed down
  (`os.memfd_create`, else an unnamed temporary file): it never has a name in a folder, and
  it is gone when both processes have closed it, however they end;
- the metadata, warnings, every problem (file, line, field) and why the cache entry was
  not kept come back as JSON on the child's stdout (`_answer`, `_reply`): plain data, read
  back into the same `RunMeta` and `Problem`s: no object crosses the pipe, only data;
- a cache entry is written by the child exactly as `parse_run` writes it in-process
  (staged, then renamed into place); the parent reads its texts back as it would have.

The child reads its stdin while it works: when the parent goes away (quits, is killed),
the pipe closes and the child stops, removing its unfinished cache entry, so no load
outlives the process that asked for it. A child that cannot start, or ends without an
answer (killed, out of memory), leaves its run to be parsed here, and `notes` says so
(docs/decisions.md, "Runs parsed in processes of their own"); Ctrl-C stops both.
"""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import polars as pl

from ragtui.core.errors import InputError, Problem
from ragtui.core.loading.remote import RemoteLocation
from ragtui.core.loading.run import Run, meta_fields, meta_from_fields
from ragtui.core.loading.run_cache import CacheEntry, RunCache
from ragtui.core.loading.run_cache_files import remove_entry_folder
from ragtui.core.loading.runs import Parsed, ToParse, parse_run

# The smallest run file worth a process of its own (a 50,000-question run with texts). A
# child's start — an interpreter that imports polars, numpy and the loader — costs ~0.5 CPU
# s, and its frame's way back ~0.1 s a side at 100,000 questions. polars' own parse already
# spreads each run over the cores, so two processes only pay where the decode holds the GIL
# (a typed decoder in Python) for longer than a child's start: from about this size
# (docs/performance.md, "Loading, with a gold set").
PROCESSES_FROM_BYTES = 200 * 1000**2
# What a child parses: the native line formats, whose parse is the decoder's work. A
# Parquet run is read by polars on every core already.
CHILD_SUFFIXES = (".jsonl", ".ndjson")
# How long a child asked to stop may take to remove its unfinished cache entry.
_STOP_GRACE_S = 3.0


def worth_processes(paths: tuple[Path | RemoteLocation | None, ...], from_bytes: int = PROCESSES_FROM_BYTES) -> bool:
    """Whether each of two runs is a local JSONL file of at least `from_bytes`: then each is
    parsed in a process of its own. One run, a small one (the sample), an address or a
    FIFO is read in this process."""
    if len(paths) != 2 or os.name != "posix":  # the carrier is handed down as a file descriptor
        return False
    for path in paths:
        if not isinstance(path, Path) or path.suffix.lower() not in CHILD_SUFFIXES:
            return False
        try:
            info = path.stat()
        except OSError:
            return False  # the loader reports it
        if not stat.S_ISREG(info.st_mode) or info.st_size < from_bytes:
            return False
    return True


@dataclass
class ProcessParse:
    """`runs.Parse` in a child process: pass it as `load_run(..., parse=)`. `notes` says which
    runs were parsed here after all, and why (shown with the comparison's warnings)."""

    notes: list[str] = field(default_factory=list)

    def __call__(self, request: ToParse, entry: CacheEntry | None) -> Parsed:
        path = request.path
        if request.fmt != "ragtui" or path.suffix.lower() not in CHILD_SUFFIXES:
            return parse_run(request, entry)
        try:
            return parse_in_child(path, request.detail, entry)
        except ChildFailed as exc:
            self.notes.append(f"{path}: {exc}: parsed in the main process instead")
        return parse_run(request, entry)


class ChildFailed(Exception):
    """A child could not start, or ended without an answer; the message says how."""


def parse_in_child(path: Path, detail: bool, entry: CacheEntry | None) -> Parsed:
    """`runs.parse_run` of a native run file, in a child process.

    Raises:
        InputError: the file is unusable (the same problems `parse_run` raises).
        ChildFailed: the child could not start or ended without an answer.
        KeyboardInterrupt: the child was stopped by Ctrl-C.
    """
    with _anonymous_file() as carrier, _anonymous_file() as errors:
        request = {
            "path": str(path),
            "detail": detail,
            "carrier": carrier.fileno(),
            "cache": None if entry is None else (str(entry.cache.folder), entry.cache.limit, entry.key, str(entry.source)),
        }
        try:
            child = subprocess.Popen(
                # -P: the current folder is not put on the import path, so the child imports
                # this ragtui (`_child_environment`), not one that happens to be there.
                [sys.executable, "-P", "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                pass_fds=(carrier.fileno(),),
                env=_child_environment(),
            )
        except OSError as exc:
            raise ChildFailed(f"cannot start a process to parse it ({exc.strerror or exc})") from None
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(json.dumps(request).encode() + b"\n")
            child.stdin.flush()
            answer = child.stdout.read()  # until the child ends; its stdin stays open meanwhile
            code = child.wait()
        except BaseException:
            _stop(child)
            raise
        finally:
            with contextlib.suppress(OSError):
                child.stdin.close()  # type: ignore[union-attr]
            if child.stdout is not None:
                child.stdout.close()
            if entry is not None and child.returncode != 0:
                _remove_unfinished(entry.cache)
        if code == -signal.SIGINT:
            raise KeyboardInterrupt
        reply = _reply(answer) if code == 0 else None
        if reply is None:
            raise ChildFailed(f"its process {_ending(code)}{_last_line(errors)}")
        if "failed" in reply:
            raise ChildFailed(f"its process failed ({reply['failed']})")
        if "problems" in reply:
            raise InputError(list(_problems(reply["problems"])))
        carrier.seek(0)
        frame = pl.read_ipc(carrier)  # in the child's chunks: one a slice, as a parse here gives
    run = Run(meta_from_fields(reply["meta"]), frame, path, _problems(reply["warnings"]), reply["source_format"])
    return Parsed(run, reply["lean"], reply["not_kept"])


@contextlib.contextmanager
def _anonymous_file() -> Any:
    """A read-write file with no name in any folder: in memory where the system allows it."""
    if hasattr(os, "memfd_create"):
        handle: IO[bytes] = os.fdopen(os.memfd_create("ragtui-run"), "w+b")
    else:  # pragma: no cover - not Linux: unlinked as soon as it is made
        handle = tempfile.TemporaryFile()
    with handle:
        yield handle


def _child_environment() -> dict[str, str]:
    """This environment, with this copy of ragtui first on the child's import path, and
    polars' threads shared out: the two children parse at once, each on half the cores
    (unless POLARS_MAX_THREADS says otherwise), rather than each starting a thread per
    core that then wait for one another. numpy's BLAS gets one thread (unless the user set
    it): a child parses, it multiplies no matrices, and OpenBLAS's threads, started as
    numpy is imported, spun on the cores the parse needs (1 % of a child's CPU)."""
    root = str(Path(__file__).resolve().parents[3])
    existing = os.environ.get("PYTHONPATH")
    environment = {**os.environ, "PYTHONPATH": root if not existing else os.pathsep.join((root, existing))}
    environment.setdefault("POLARS_MAX_THREADS", str(max(1, _cores() // 2)))
    environment.setdefault("OPENBLAS_NUM_THREADS", "1")
    return environment


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - not Linux


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Ask a child still running to stop (it removes its unfinished entry), then end it."""
    if child.poll() is not None:
        return
    with contextlib.suppress(OSError):
        child.send_signal(signal.SIGINT)
    try:
        child.wait(_STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _remove_unfinished(cache: RunCache) -> None:
    """The cache entry a child was building when it ended (its process is gone)."""
    for folder in cache.unfinished():
        remove_entry_folder(folder)


def _answer(reply: dict[str, Any]) -> bytes:
    """The child's answer as it goes to the parent: JSON, its NaN and big integers as the
    standard library writes them (a run's metadata may hold either)."""
    return json.dumps(reply, ensure_ascii=False).encode()


def _reply(answer: bytes) -> dict[str, Any] | None:
    """The child's answer; None when it ended before giving a whole one."""
    try:
        reply = json.loads(answer)
    except ValueError:  # cut short: not JSON, or bytes that are not UTF-8
        return None
    return reply if isinstance(reply, dict) else None


def _fields(problems: list[Problem] | tuple[Problem, ...]) -> list[dict[str, Any]]:
    return [asdict(found) for found in problems]


def _problems(fields: list[dict[str, Any]]) -> tuple[Problem, ...]:
    return tuple(Problem(**found) for found in fields)


def _ending(code: int) -> str:
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        why = " (often for lack of memory)" if -code == signal.SIGKILL else ""
        return f"was killed by {name}{why}"
    return f"ended with status {code} and no answer"


def _last_line(errors: IO[bytes]) -> str:
    """The last line the child wrote on stderr, as a reason (at most 200 characters)."""
    errors.seek(0)
    lines = errors.read()[-4096:].decode("utf-8", "replace").strip().splitlines()
    return f" ({' '.join(lines[-1].split())[:200]})" if lines else ""


def _serve(request: dict[str, Any]) -> dict[str, Any]:
    """The child's work: parse, write the frame into the carrier, answer the rest."""
    path = Path(request["path"])
    entry = None
    if request["cache"] is not None:
        folder, limit, key, source = request["cache"]
        entry = CacheEntry(RunCache(Path(folder), limit), key, Path(source))
    try:
        run, lean, not_kept = parse_run(ToParse(path, "ragtui", detail=request["detail"]), entry)
    except InputError as exc:
        return {"problems": _fields(exc.problems)}
    with os.fdopen(request["carrier"], "wb", closefd=False) as out:
        # lz4: the carrier is memory, and a lean frame's lists of ids pack 7× (141 MB → 19 MB
        # at 100,000 questions) for the same CPU seconds written and 0.06 s more read.
        run.frame.write_ipc(out, compression="lz4")
    return {"meta": meta_fields(run.meta), "warnings": _fields(run.warnings), "source_format": run.source_format, "lean": lean, "not_kept": not_kept}


def _stop_when_parent_goes(stdin: int) -> None:
    """Read stdin to its end: the parent closed it or is gone. The main thread is then
    interrupted (its cache entry removed, as after Ctrl-C); a parse that does not give way
    in a few seconds ends with the process. The bare descriptor, not `sys.stdin`: a daemon
    thread blocked in a buffered reader aborts the interpreter's exit."""
    while os.read(stdin, 4096):
        pass
    _thread.interrupt_main()
    time.sleep(_STOP_GRACE_S)
    os._exit(1)


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    request = json.loads(stdin.readline())  # one line: the rest of stdin stays open until the parent goes
    threading.Thread(target=_stop_when_parent_goes, args=(stdin.fileno(),), name="ragtui-parent-watch", daemon=True).start()
    try:
        reply = _serve(request)
    except KeyboardInterrupt:
        # Ended as Ctrl-C ends a process, without a traceback: the parent then stops too.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        raise SystemExit(130) from None
    except Exception as exc:  # noqa: BLE001 - the parent parses the file itself and meets it there
        reply = {"failed": f"{type(exc).__name__}: {exc}"}
    stdout.write(_answer(reply))
    stdout.flush()


if __name__ == "__main__":
    main()
