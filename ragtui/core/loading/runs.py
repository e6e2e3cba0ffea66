"""Load a run file (native or a peer tool's) into its metadata and a canonical frame."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.loading import remote
from ragtui.core.loading.bounded_file import renamed, spooled
from ragtui.core.loading.own_files import own_file
from ragtui.core.loading.records import RUN_EXTENSIONS, RawRun, read_parquet_run_frame, read_raw_run
from ragtui.core.loading.remote import RemoteLocation, is_remote, within_deadline
from ragtui.core.loading.run import Run, frame_from_raw, parse_meta
from ragtui.core.loading.schema import without_detail

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.run_cache import CacheEntry, EntryWriter, RunCache

def check_run(
    path: str | Path,
    fmt: str | None = None,
    gold_questions: dict[str, str] | None = None,
    *,
    variant: int | None = None,
    gold_categories: frozenset[str] | None = None,
) -> tuple[Run | None, list[Problem]]:
    """Load with the exact path; returns the run (None when unusable) and every problem.

    `variant` and `gold_categories` reach the importer of a peer tool's file (see
    `importers.import_run`); a native run has one system and its own categories.
    """
    path = Path(path)
    try:
        refuse_own_file(path)
        fmt = file_format(path, fmt)
        raw = _read_raw(path, fmt, gold_questions, variant, gold_categories)
    except InputError as exc:
        return None, exc.problems
    problems: list[Problem] = []
    meta = parse_meta(path, raw.meta, raw.meta_line, problems)
    frame, record_problems = frame_from_raw(raw)
    problems += record_problems
    if frame.height == 0 and not any(p.is_error for p in problems):
        problems.append(problem(path, None, None, "no question records in the file"))
    run = Run(meta, frame, path, tuple(p for p in problems if not p.is_error), fmt)
    return (None if any(p.is_error for p in problems) else run), problems


def refuse_own_file(path: Path | RemoteLocation | str) -> None:
    """Raise InputError when `path` is named as one of ragtui's own files (labels, notes, …): never a run."""
    found = own_file(str(path))
    if found is not None:
        raise InputError(problem(path, None, None, found.not_a_run()))


def needs_no_gold(path: Path | RemoteLocation, fmt: str | None) -> bool:
    """Whether the run loads the same without the gold set: a native run (a peer tool's
    records are matched to the gold questions), in a regular file or at an address. A FIFO
    is not sniffed here: it can be read only once."""
    if isinstance(path, RemoteLocation) or is_remote(str(path)):
        return True
    path = Path(path)
    if fmt == "ragtui":
        return True
    try:
        return path.is_file() and file_format(path, fmt) == "ragtui"
    except (OSError, InputError):
        return False  # loaded after the gold set, which reports it as before


def file_format(path: Path, fmt: str | None) -> str:
    """"ragtui" or a peer tool's name: `fmt` (--from) when given, else detected by content."""
    from ragtui.core import importers

    if fmt is None:
        return importers.detect(path) or "ragtui"
    return "ragtui" if fmt == "ragtui" else importers.format_named(path, fmt)


def _read_raw(
    path: Path, fmt: str, gold_questions: dict[str, str] | None, variant: int | None, gold_categories: frozenset[str] | None
) -> RawRun:
    """The records of a file whose format is already known (see `file_format`)."""
    from ragtui.core import importers

    if fmt != "ragtui":
        return importers.import_run(path, fmt, gold_questions, variant=variant, gold_categories=gold_categories)
    if path.suffix.lower() not in RUN_EXTENSIONS and path.exists():
        known = ", ".join(sorted(RUN_EXTENSIONS))
        raise InputError(
            problem(path, None, None, f"unknown extension '{path.suffix or '(none)'}' and not a known tool's file: expected {known}, or name the tool with --from")
        )
    return read_raw_run(path)


class Parsed(NamedTuple):
    """A run file parsed: the run, whether its frame is lean (its texts went to a cache
    entry), and why the entry was not kept (None when it was, or when there was none)."""

    run: Run
    lean: bool
    not_kept: str | None


@dataclass(frozen=True)
class ToParse:
    """A run file whose format is known, and what its frame depends on: `parse_run`'s
    question, the same whether it is answered in this process or in a child."""

    path: Path
    fmt: str
    gold_questions: dict[str, str] | None = None
    detail: bool = True
    variant: int | None = None
    gold_categories: frozenset[str] | None = None


# How a run file is parsed once no cache entry serves it: `parse_run` in this process, or
# `run_process.ProcessParse` in a process of its own; the entry, when given, is written as
# the file is parsed.
Parse = Callable[[ToParse, "CacheEntry | None"], Parsed]


def load_run(
    path: str | Path | RemoteLocation,
    fmt: str | None = None,
    gold_questions: dict[str, str] | None = None,
    *,
    detail: bool = True,
    variant: int | None = None,
    gold_categories: frozenset[str] | None = None,
    cache: RunCache | None = None,
    parse: Parse | None = None,
) -> Run:
    """Load a run, raising InputError with every problem when it is unusable.

    Canonical JSONL and Parquet files take the polars fast path; everything else, and any
    file the fast path is unsure about, is validated record by record. `detail=False`
    leaves out the texts only the question view shows (`schema.without_detail`). With a
    `cache`, a file loaded before (and unchanged since) is reopened from its Parquet
    entry, and a file parsed now is written there (loading/run_cache.py); the frame is then
    lean either way, and with `detail` its texts are read per question (`Run.texts_of`).
    `parse` parses a file no entry serves (`parse_run` when None); a reopen, a remote run
    and a FIFO are always read here.
    """

    refuse_own_file(path)
    if isinstance(path, RemoteLocation) or is_remote(path):
        # polars fetches it; there is no cheap, trustworthy "unchanged" check to cache it by.
        return load_remote_run(path if isinstance(path, RemoteLocation) else RemoteLocation(str(path)), detail=detail)
    path = Path(path)
    with spooled(path) as copy:
        if copy != path:  # a FIFO: its bytes, read once, loaded as a file (and not cached)
            run = load_run(copy, fmt, gold_questions, detail=detail, variant=variant, gold_categories=gold_categories)
            return replace(run, path=path, warnings=tuple(renamed(run.warnings, copy, path)))
    fmt = file_format(path, fmt)  # detected once, for both paths
    entry = None
    if cache is not None:
        # A peer tool's records are matched to the gold set: its frame depends on it too.
        shaping = None if fmt == "ragtui" else [variant, sorted((gold_questions or {}).items()), sorted(gold_categories or ())]
        entry = cache.entry(path, fmt, shaping)
        cached = entry.read(path) if entry is not None else None
        if cached is not None:
            return cached
    request = ToParse(path, fmt, gold_questions, detail, variant, gold_categories)
    run, lean, why = (parse or parse_run)(request, entry)
    # With a cache entry written, no text is kept in memory: the question view reads them
    # back one question at a time (Run.texts), from the entry or from the run file.
    texts = entry.texts() if entry is not None and why is None else None
    if texts is not None:
        return replace(run, texts=texts)
    if why is not None and cache is not None:
        cache.notes.append(f"{path}: not kept in the run cache ({why}): the next open parses the file again")
    if detail and lean:
        run = _load(replace(request, detail=True), None)  # the texts were not kept: read them now
    return run


def parse_run(request: ToParse, entry: CacheEntry | None) -> Parsed:
    """Parse a file whose format is known, writing `entry` (when given) as it goes: the
    frame is then lean, its texts read back from the entry."""
    made = entry.writer() if entry is not None else None
    writer = made if not isinstance(made, str) else None
    try:
        run = _load(replace(request, detail=request.detail and writer is None), writer)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return Parsed(run, writer is not None, made if isinstance(made, str) else (writer.commit(run) if writer is not None else None))


def _load(request: ToParse, writer: EntryWriter | None) -> Run:
    """`load_run` without the cache; `writer` is given every row's texts, in frame order."""
    path = request.path
    if request.fmt == "ragtui" and path.suffix.lower() in (".jsonl", ".ndjson", ".parquet"):
        fast = _load_fast(path, request.detail, writer)
        if fast is not None:
            return fast
        if writer is not None:
            writer.reset()  # the exact path starts again from the first row
    run, problems = check_run(path, request.fmt, request.gold_questions, variant=request.variant, gold_categories=request.gold_categories)
    if run is None:
        raise InputError([p for p in problems if p.is_error])
    if writer is not None:
        writer.add(run.frame)
    return run if request.detail else replace(run, frame=without_detail(run.frame))


def _load_fast(path: Path, detail: bool, writer: EntryWriter | None = None) -> Run | None:
    """The polars path for a native file, or None when the exact path must decide (and report)."""
    from ragtui.core.loading.fast_jsonl import canonical_from_frame, read_fast_stream

    if path.suffix.lower() == ".parquet":
        try:
            meta_dict, stored, problems = read_parquet_run_frame(path)
        except InputError:
            return None
        frame = None if problems else canonical_from_frame(stored)
        if frame is None:
            return None
        if writer is not None:
            writer.add(frame)
        frame = frame if detail else without_detail(frame)
    else:
        from ragtui.core.loading.run_cache import HashingReader, read_through

        try:
            if writer is not None:
                # Imported with an entry to write only: a run parsed without one keeps its texts.
                from ragtui.core.loading.line_texts import file_stamp

                writer.stamp = file_stamp(path)  # the texts are read back from this file as it is now
            with read_through(path.open("rb")) as handle:
                # Writing a cache entry: its digest is taken from the bytes as they are parsed.
                reader = HashingReader(handle) if writer is not None else None
                result = read_fast_stream(reader or handle, detail=detail, on_lines=writer.add_lines if writer is not None else None)
        except OSError:
            return None  # the exact path reports it
        if writer is not None and reader is not None:
            writer.read_digest = reader.hexdigest()
        # polars itself rejects invalid UTF-8; an empty file goes to the exact path's message.
        if result is None:
            return None
        meta_dict, frame = result
    problems = []
    meta = parse_meta(path, meta_dict, 1, problems)
    if any(p.is_error for p in problems):
        return None
    return Run(meta, frame, path, tuple(problems), "ragtui")


def load_remote_run(location: RemoteLocation, *, detail: bool = True) -> Run:
    """Fetch a Parquet run; raises InputError naming the address on any failure."""
    import json

    from ragtui.core.loading import bounded_json
    from ragtui.core.loading.fast_jsonl import canonical_from_frame
    from ragtui.core.loading.records import PARQUET_META_KEY

    if location.suffix.lower() != ".parquet":
        raise InputError(problem(location, None, None, "a run at an address must be a Parquet file (.parquet); download other formats first"))
    try:
        stored_meta, stored = within_deadline(lambda: (pl.read_parquet_metadata(location.url).get(PARQUET_META_KEY), pl.read_parquet(location.url)))
    except TimeoutError:
        raise InputError(problem(location, None, None, f"cannot fetch: no whole reply within {remote.FETCH_DEADLINE_S:g} s")) from None
    except Exception as exc:  # noqa: BLE001 - object stores raise many types: one message names the address
        reason = " ".join(str(exc).split())[:300]
        raise InputError(problem(location, None, None, f"cannot fetch: {reason}")) from None
    problems: list = []
    meta_dict: dict[str, Any] = {}
    if stored_meta:
        try:
            meta_dict = bounded_json.loads(stored_meta)
        except json.JSONDecodeError as exc:
            problems.append(problem(location, None, "run", f"metadata key {PARQUET_META_KEY} is not JSON: {exc.msg}"))
    frame = canonical_from_frame(stored)
    if frame is None:  # not sure of something: every record checked, every problem located
        records = stored.to_dicts()
        frame, found = frame_from_raw(RawRun(location, meta_dict, records, list(range(1, len(records) + 1))))  # type: ignore[arg-type]
        problems += found
    meta = parse_meta(location, meta_dict if isinstance(meta_dict, dict) else {}, None, problems)
    if frame.height == 0 and not any(p.is_error for p in problems):
        problems.append(problem(location, None, None, "no question records in the file"))
    if any(p.is_error for p in problems):
        raise InputError([p for p in problems if p.is_error])
    return Run(meta, frame if detail else without_detail(frame), location, tuple(problems), "ragtui")
