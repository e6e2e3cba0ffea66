"""What a loaded run is: its metadata (`RunMeta`) and one row a question (`Run`), and how a
file's raw records become one (`parse_meta`, `frame_from_raw`). Reading a file, the run
cache and remote runs (`runs.load_run`) build on these."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from ragtui.core.errors import Problem, problem, shown
from ragtui.core.loading.config import MAX_K
from ragtui.core.loading.normalize import duplicate_id_problems, normalize_run_record, run_frame
from ragtui.core.loading.records import RawRun
from ragtui.core.loading.remote import RemoteLocation


class QuestionTexts(Protocol):
    """Where a lean frame's texts are read from, a question at a time (the run cache's
    `TextStore`, or `line_texts.LineTexts`: the run file's own lines)."""

    def row(self, index: int, question_id: str) -> dict[str, Any]: ...

    def frames(self) -> Iterator[tuple[int, pl.DataFrame]]:
        """(first frame row, text columns) of each block of rows in turn (the search)."""
        ...


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


def meta_fields(meta: RunMeta) -> dict[str, Any]:
    """`meta` as JSON data (a run cache entry's manifest, a child parse's answer)."""
    return asdict(meta)


def meta_from_fields(fields: dict[str, Any]) -> RunMeta:
    """The `RunMeta` that `meta_fields` wrote: its phrases a tuple again."""
    phrases = fields.get("fallback_phrases")
    return RunMeta(**{**fields, "fallback_phrases": tuple(phrases) if phrases is not None else None})


@dataclass(frozen=True)
class Run:
    """One evaluated version of the RAG system: one row per question in `frame`."""

    meta: RunMeta
    frame: pl.DataFrame
    path: Path | RemoteLocation  # a local file, or an address polars fetches (loading/remote.py)
    warnings: tuple[Problem, ...] = ()
    source_format: str = "ragtui"
    # Where the texts of a lean frame are (run_cache.py, line_texts.py): read per question, never held.
    texts: QuestionTexts | None = field(default=None, compare=False)

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
