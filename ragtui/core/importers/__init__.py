"""Bridges: open the result files of the evaluation tools teams already use.

RAGAS, promptfoo, inspect_ai, DeepEval and TREC files become ragtui's native run records
(docs/formats.md), so runs produced by different tools can be triaged and compared. A
format is recognised by content (`detect`) or named (`fmt`, the CLI's `--from`); each
format is one row of `registry.IMPORTERS` (its names, reader and recognisers). What a
format lacks stays absent and is listed in `run.imported_from.not_available`; nothing
is invented (docs/importers.md has the field-by-field mapping).

Every format module reads with the standard library only. polars is imported in two
cases: to undo Zstandard in inspect_ai archives, and to join rows to a gold set by question
text (the loader's own normaliser lives beside polars expressions). Nothing here imports
textual or rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.importers.detection import detect, detect_gold
from ragtui.core.importers.registry import FORMATS, Importer, importer_named
from ragtui.core.loading.records import RawRun

__all__ = ["FORMATS", "detect", "detect_gold", "format_named", "import_gold", "import_run"]


def import_run(
    path: Path,
    fmt: str | None = None,
    gold_questions: dict[str, str] | None = None,
    *,
    variant: int | None = None,
    gold_categories: frozenset[str] | None = None,
) -> RawRun:
    """Read a peer tool's results file as a ragtui run.

    Args:
        path: the file.
        fmt: one of FORMATS; detected from the content when None.
        gold_questions: normalised question text → gold id, to give rows without ids
            (RAGAS) the id of the gold question they ask.
        variant: for files holding several systems, which one (promptfoo: the 1-based
            prompt × provider in promptfoo's order, `promptIdx`; inspect: the epoch).
        gold_categories: the categories a tag may name (DeepEval tags → category).

    Returns:
        The records in ragtui's native run format; `meta` carries name, created_at,
        generator_model and judge_model where the file says them, and `imported_from`.

    Raises:
        InputError: naming the file, the line or record, and the field.
    """
    path = Path(path)
    importer = _importer(path, fmt if fmt is not None else detect(path))
    return importer.read(path, gold_questions, variant=variant, gold_categories=gold_categories)


def import_gold(path: Path, fmt: str | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """Gold records (id, question, gold_passages, category) and their lines: TREC qrels."""
    path = Path(path)
    importer = _importer(path, fmt if fmt is not None else detect_gold(path), gold=True)
    if importer.gold_reader is None:
        raise InputError(problem(path, None, None, f"a {importer.name} file is a run, not a gold set: only TREC qrels are read as gold"))
    return importer.read_gold(path)


def format_named(path: Path, fmt: str) -> str:
    """The format `fmt` (--from) names, aliases and any case accepted; InputError naming `path` if none."""
    return _importer(path, fmt).name


def _importer(path: Path, fmt: str | None, gold: bool = False) -> Importer:
    if fmt is None:
        kind = "TREC qrels" if gold else "a ragtui run nor a file of " + ", ".join(FORMATS)
        raise InputError(problem(path, None, None, f"not {kind}: name the format with --from NAME if it is one"))
    importer = importer_named(fmt)
    if importer is None:
        raise InputError(problem(path, None, None, f"unknown format '{fmt}': expected one of {', '.join(FORMATS)}"))
    return importer
