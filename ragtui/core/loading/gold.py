"""Load a gold set (annotated questions) into a canonical frame."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ragtui.core.errors import InputError, Problem, problem, shown, warning
from ragtui.core.loading.bounded_file import renamed, special_kind, spooled
from ragtui.core.loading.normalize import duplicate_id_problems, normalize_gold_record
from ragtui.core.loading.records import load_yaml_records, read_json_or_yaml_run, read_jsonl
from ragtui.core.loading.schema import GOLD_SCHEMA
from ragtui.core.measuring.textnorm import normalize_question

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.run_cache import RunCache


@dataclass(frozen=True)
class GoldSet:
    """The annotated questions: id, question, category, gold_passages, expected_answer."""

    frame: pl.DataFrame
    path: Path
    # Graded relevance (TREC qrels with rel 2, 3, …): question id → passage id → grade.
    # None when every gold passage is simply relevant (grade 1), as in YAML gold sets.
    grades: dict[str, dict[str, int]] | None = None
    # Read from TREC qrels: a topic with no relevant document (`gold_passages: []`) was judged,
    # not marked unanswerable; trec_eval counts it in its means (see `evaluate`'s trec_denominator).
    from_qrels: bool = False

    def question_index(self) -> dict[str, str]:
        """Normalised question text → id, for importers whose rows have no id (RAGAS)."""
        return {
            normalize_question(q): i
            for i, q in self.frame.select("id", "question").iter_rows()
            if q is not None
        }


def _gold_records(path: Path) -> tuple[list, list[int], list[Problem], bool]:
    """(records, their lines, problems, whether the format has question texts).

    A FIFO is read once (a sniff and a parse would open it twice); a device is refused.
    """
    with spooled(path) as copy:
        records, lines, problems, has_questions = _file_records(copy)
        return records, lines, renamed(problems, copy, path), has_questions


def _file_records(path: Path) -> tuple[list, list[int], list[Problem], bool]:
    from ragtui.core import importers

    foreign = importers.detect_gold(path)
    if foreign is not None:
        records, lines = importers.import_gold(path, foreign)
        return records, lines, [], False
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        _, items, lines = load_yaml_records(path, ("questions",))
        return items, lines, [], True
    if suffix == ".jsonl":
        raw = read_jsonl(path)
        return raw.records, raw.lines, raw.problems, True
    if suffix == ".json":
        raw = read_json_or_yaml_run(path)
        return raw.records, raw.lines, raw.problems, True
    raise InputError(
        problem(path, None, None, f"unknown extension '{path.suffix or '(none)'}' for a gold set: expected .yaml, .yml, .json, .jsonl or TREC qrels")
    )


def _fast_gold(path: Path, cache: RunCache | None = None) -> pl.DataFrame | None:
    """The frame of a native JSONL gold set read by polars, or None for the exact path (fast_gold.py).

    With a `cache`, the frame is kept in the run cache and the next read of the same file
    takes it from there (run_cache.py, `RunCache.gold_entry`): only a frame the fast path
    built, which has no problem to say, is kept, so a gold set with problems always says
    them from the file.
    """
    from ragtui.core import importers

    if path.suffix.lower() != ".jsonl" or special_kind(path) is not None or importers.detect_gold(path) is not None:
        return None
    from ragtui.core.loading.fast_gold import read_fast_gold  # imported for a JSONL gold set only
    from ragtui.core.loading.run_cache import Crc32

    entry = cache.gold_entry(path) if cache is not None else None
    kept = entry.read_gold() if entry is not None else None
    if kept is not None:
        return kept
    try:
        data = path.read_bytes()
    except OSError:
        return None
    frame = read_fast_gold(data)
    if frame is not None and entry is not None and cache is not None:
        # The digest of the very bytes parsed: the whole-file check of a reopen compares the
        # file with what the frame was read from.
        why = entry.write_gold(frame, Crc32(data).hexdigest())
        if why is not None:
            cache.notes.append(f"{path}: gold set not kept in the run cache ({why}): the next open reads the file again")
    return frame


def check_gold(path: str | Path, cache: RunCache | None = None) -> tuple[GoldSet | None, list[Problem]]:
    """Validate a gold set; returns it (None when unusable) and every problem. With a
    `cache`, a native JSONL gold set is kept in the run cache and read from it (`_fast_gold`)."""
    path = Path(path)
    fast = _fast_gold(path, cache)
    if fast is not None:
        return GoldSet(fast, path), []
    try:
        items, lines, problems, has_questions = _gold_records(path)
    except InputError as exc:
        return None, exc.problems
    require_question = has_questions  # qrels have no question texts
    if has_questions and items and not any(isinstance(item, dict) and item.get("question") is not None for item in items):
        # No question has a text: a retrieval-only gold set, as `ragtui convert` writes from
        # TREC qrels. Retrieval needs ids and gold passages only; one text missing among
        # others is still an error (a slip), this is a choice.
        require_question = False
        problems.append(warning(
            path, None, "question",
            "no question has a text: a retrieval-only gold set (as converted from TREC qrels); questions are shown by id, "
            "and a run without ids (RAGAS) cannot be matched to them — fill in question to have both",
        ))
    rows = []
    grades: dict[str, dict[str, int]] = {}
    for item, line in zip(items, lines, strict=True):
        if not isinstance(item, dict):
            problems.append(problem(path, line, None, f"expected a question record, found {shown(item)}"))
            continue
        row = normalize_gold_record(path, line, item, problems, require_question=require_question)
        if row is not None:
            rows.append(row)
            graded = item.get("_relevance_grades") or {}  # importers.trec.GRADES_KEY (qrels grades)
            if any(grade != 1 for grade in graded.values()):
                grades[row["id"]] = graded
    problems += duplicate_id_problems(path, rows)
    if not rows and not problems:
        problems.append(problem(path, None, None, "no questions in the gold set"))
    if any(p.is_error for p in problems):
        return None, problems
    return GoldSet(pl.DataFrame(rows, schema=GOLD_SCHEMA), path, grades or None, from_qrels=not has_questions), problems


def load_gold(path: str | Path, cache: RunCache | None = None) -> GoldSet:
    """Load a gold set, raising InputError with every problem when it is unusable (`cache`: see `check_gold`)."""
    gold, problems = check_gold(path, cache)
    if gold is None:
        raise InputError([p for p in problems if p.is_error])
    return gold
