"""Load a run file (native or a peer tool's) into its metadata and a canonical frame."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ragtui.core.errors import InputError, Problem, problem, shown
from ragtui.core.loading.bounded_file import renamed, spooled
from ragtui.core.loading.config import MAX_K
from ragtui.core.loading.normalize import duplicate_id_problems, normalize_run_record, run_frame
from ragtui.core.loading.own_files import own_file
from ragtui.core.loading.records import RUN_EXTENSIONS, RawRun, read_parquet_run_frame, read_raw_run
from ragtui.core.loading.schema import without_detail

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.line_texts import LineTexts
    from ragtui.core.loading.remote import RemoteLocation
    from ragtui.core.loading.run_cache import RunCache
    from ragtui.core.loading.run_cache_parts import EntryWriter, TextStore

_META_FIELDS = {"name", "created_at", "system", "generator_model", "judge_model", "k", "fallback_phrases", "gold_set"}


@dataclass(frozen=True)
class RunMeta:
    """The `run` object of a run file (docs/formats.md), with defaults filled in."""

    name: str
    created_at: str | None = None
    system: str | None = None
    generator_model: str | None = None
    judge_model: str | None = None
    k: int | None = None
    fallback_phrases: tuple[str, ...] | None = None
    gold_set: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Run:
    """One evaluated version of the RAG system: one row per question in `frame`."""

    meta: RunMeta
    frame: pl.DataFrame
    path: Path | RemoteLocation  # a local file, or an address polars fetches (loading/remote.py)
    warnings: tuple[Problem, ...] = ()
    source_format: str = "ragtui"
    # Where the texts of a lean frame are (run_cache_parts.py, line_texts.py): read per question, never held.
    texts: TextStore | LineTexts | None = field(default=None, compare=False)

    @property
    def name(self) -> str:
        return self.meta.name

    def texts_of(self, question_id: str) -> dict[str, Any] | None:
        """One question's text columns (`schema.TEXT_COLUMNS`) from the cache or the run
        file; None when the frame holds its own texts or the question is not in the run.

        Raises:
            OSError: the cache entry was removed, or the run file changed, since the run
                was opened.
        """
        if self.texts is None:
            return None
        ids = self.frame.get_column("id")
        found = (ids == question_id).arg_true()
        return self.texts.row(int(found[0]), question_id) if len(found) else None

    def judge_model(self) -> str | None:
        """The judge model named in the metadata, else the most common one in the verdicts."""
        if self.meta.judge_model:
            return self.meta.judge_model
        models = self.frame.get_column("judge_model").drop_nulls()
        return str(models.mode().sort().first()) if len(models) else None


def parse_meta(path: Path | RemoteLocation, meta: dict[str, Any], line: int | None, problems: list[Problem]) -> RunMeta:
    """Validate the metadata; problems are appended, defaults used for bad values."""

    def text(name: str) -> str | None:
        value = meta.get(name)
        if value is None or isinstance(value, str):
            return value
        problems.append(problem(path, line, f"run.{name}", f"expected a string, found {value!r}"))
        return None

    k = meta.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K):
        problems.append(problem(path, line, "run.k", f"expected a whole number from 1 to {MAX_K}, found {shown(k)}"))
        k = None
    phrases = meta.get("fallback_phrases")
    if phrases is not None and (not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases)):
        problems.append(problem(path, line, "run.fallback_phrases", "expected a list of non-empty strings"))
        phrases = None
    return RunMeta(
        name=text("name") or path.stem,
        created_at=text("created_at") if not hasattr(meta.get("created_at"), "isoformat") else meta["created_at"].isoformat(),
        system=text("system"),
        generator_model=text("generator_model"),
        judge_model=text("judge_model"),
        k=k,
        fallback_phrases=tuple(phrases) if phrases is not None else None,
        gold_set=text("gold_set"),
        extra={key: value for key, value in meta.items() if key not in _META_FIELDS},
    )


def frame_from_raw(raw: RawRun) -> tuple[pl.DataFrame, list[Problem]]:
    """Validate every record of a RawRun; returns the frame and all problems found."""
    problems = list(raw.problems)
    rows, lines = [], []
    for record, line in zip(raw.records, raw.lines):
        row = normalize_run_record(raw.path, line, record, problems)
        if row is not None:
            rows.append(row)
            lines.append(line)
    problems += duplicate_id_problems(raw.path, rows)
    return run_frame(raw.path, rows, lines, problems), problems


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


def load_run(
    path: str | Path | RemoteLocation,
    fmt: str | None = None,
    gold_questions: dict[str, str] | None = None,
    *,
    detail: bool = True,
    variant: int | None = None,
    gold_categories: frozenset[str] | None = None,
    cache: RunCache | None = None,
) -> Run:
    """Load a run, raising InputError with every problem when it is unusable.

    Canonical JSONL and Parquet files take the polars fast path; everything else, and any
    file the fast path is unsure about, is validated record by record. `detail=False`
    leaves out the texts only the question view shows (`schema.without_detail`). With a
    `cache`, a file loaded before (and unchanged since) is reopened from its Parquet
    entry, and a file parsed now is written there (loading/run_cache.py); the frame is then
    lean either way, and with `detail` its texts are read per question (`Run.texts_of`).
    """
    from ragtui.core.loading.remote import RemoteLocation, is_remote, load_remote_run

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
    made = entry.writer() if entry is not None else None
    writer = made if not isinstance(made, str) else None
    # With a cache entry written, no text is kept in memory: the question view reads them
    # back one question at a time (Run.texts), from the entry or from the run file.
    try:
        run = _load(path, fmt, gold_questions, detail and writer is None, variant, gold_categories, writer)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    why = made if isinstance(made, str) else (writer.commit(run) if writer is not None else None)
    texts = entry.texts() if entry is not None and writer is not None and why is None else None
    if texts is not None:
        return replace(run, texts=texts)
    if why is not None and cache is not None:
        cache.notes.append(f"{path}: not kept in the run cache ({why}): the next open parses the file again")
    if detail and writer is not None:
        run = _load(path, fmt, gold_questions, True, variant, gold_categories, None)  # the texts were not kept: read them now
    return run


def _load(
    path: Path,
    fmt: str,
    gold_questions: dict[str, str] | None,
    detail: bool,
    variant: int | None,
    gold_categories: frozenset[str] | None,
    writer: EntryWriter | None,
) -> Run:
    """`load_run` without the cache; `writer` is given every row's texts, in frame order."""
    if fmt == "ragtui" and path.suffix.lower() in (".jsonl", ".ndjson", ".parquet"):
        fast = _load_fast(path, detail, writer)
        if fast is not None:
            return fast
        if writer is not None:
            writer.reset()  # the exact path starts again from the first row
    run, problems = check_run(path, fmt, gold_questions, variant=variant, gold_categories=gold_categories)
    if run is None:
        raise InputError([p for p in problems if p.is_error])
    if writer is not None:
        writer.add(run.frame)
    return run if detail else replace(run, frame=without_detail(run.frame))


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
        from ragtui.core.loading.line_texts import file_stamp
        from ragtui.core.loading.run_cache import read_through
        from ragtui.core.loading.run_cache_parts import HashingReader

        try:
            if writer is not None:
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
