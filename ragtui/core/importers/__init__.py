"""Bridges: open the result files of the evaluation tools teams already use.

RAGAS, promptfoo, inspect_ai, DeepEval and TREC files become ragtui's native run records
(docs/formats.md), so runs produced by different tools can be triaged and compared. A
format is recognised by content (`detect`) or named (`fmt`, the CLI's `--from`). What a
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
from ragtui.core.loading.records import RawRun

FORMATS: tuple[str, ...] = ("ragas", "promptfoo", "inspect", "deepeval", "trec")

# Names users may type for --from.
ALIASES = {"inspect_ai": "inspect", "trec_eval": "trec", "qrels": "trec"}

__all__ = ["FORMATS", "detect", "detect_gold", "import_gold", "import_run"]


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
            prompt × provider in order of appearance; inspect: the epoch).
        gold_categories: the categories a tag may name (DeepEval tags → category).

    Returns:
        The records in ragtui's native run format; `meta` carries name, created_at,
        generator_model and judge_model where the file says them, and `imported_from`.

    Raises:
        InputError: naming the file, the line or record, and the field.
    """
    path = Path(path)
    name = _format_name(path, fmt if fmt is not None else detect(path))
    if name == "ragas":
        from ragtui.core.importers.ragas import read_ragas

        return read_ragas(path, gold_questions)
    if name == "promptfoo":
        from ragtui.core.importers.promptfoo import read_promptfoo

        return read_promptfoo(path, gold_questions, variant)
    if name == "inspect":
        from ragtui.core.importers.inspect_log import read_inspect

        return read_inspect(path, gold_questions, variant)
    if name == "deepeval":
        from ragtui.core.importers.deepeval import read_deepeval

        return read_deepeval(path, gold_questions, gold_categories)
    from ragtui.core.importers.trec import read_run

    return read_run(path, gold_questions)


def import_gold(path: Path, fmt: str | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """Gold records (id, question, gold_passages, category) and their lines: TREC qrels."""
    path = Path(path)
    name = _format_name(path, fmt if fmt is not None else detect_gold(path), gold=True)
    if name != "trec":
        raise InputError(problem(path, None, None, f"a {name} file is a run, not a gold set: only TREC qrels are read as gold"))
    from ragtui.core.importers.trec import read_qrels

    return read_qrels(path)


def _format_name(path: Path, fmt: str | None, gold: bool = False) -> str:
    if fmt is None:
        kind = "TREC qrels" if gold else "a ragtui run nor a file of " + ", ".join(FORMATS)
        raise InputError(problem(path, None, None, f"not {kind}: name the format with --from NAME if it is one"))
    name = ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise InputError(problem(path, None, None, f"unknown format '{fmt}': expected one of {', '.join(FORMATS)}"))
    return name
