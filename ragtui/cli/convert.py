"""`ragtui convert IN -o OUT`: write a peer tool's file in ragtui's own format.

Runs (RAGAS, promptfoo, inspect_ai, DeepEval, a TREC run) become a ragtui JSONL run with
`run.imported_from` in its metadata. TREC qrels become a gold set YAML. Nothing heavy is
imported at module level: the parser is built for every command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

RUN_SUFFIXES = (".jsonl", ".ndjson")
GOLD_SUFFIXES = (".yaml", ".yml")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Arguments of `ragtui convert`."""
    del name
    parser.add_argument("input", metavar="IN", help="the tool's file: RAGAS CSV/JSONL, promptfoo JSON, inspect .eval/.json, DeepEval JSON, TREC run or qrels")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the ragtui run to write (.jsonl); for TREC qrels, the gold set (.yaml)")
    parser.add_argument(
        "--from",
        dest="from_format",
        metavar="NAME",
        help="the tool's format (ragas, promptfoo, inspect, deepeval, trec); default: detected from the content",
    )
    parser.add_argument("--gold", metavar="GOLD", help="a gold set: rows without ids (RAGAS) take the id of the gold question they ask")
    parser.add_argument(
        "--variant",
        type=int,
        metavar="N",
        help="for a file holding several systems: the promptfoo prompt × provider (1, 2, …) or the inspect_ai epoch",
    )


def run(args: argparse.Namespace) -> int:
    """Convert; InputError (bad input) reaches the dispatcher, which exits with code 2."""
    from ragtui.core import importers
    from ragtui.core.errors import InputError, problem

    source, target = Path(args.input), Path(args.output)
    if not source.exists():
        raise InputError(problem(source, None, None, "file not found"))
    if args.from_format == "qrels" or importers.detect_gold(source) is not None:
        if target.suffix.lower() not in GOLD_SUFFIXES:
            raise InputError(problem(target, None, None, "TREC qrels are a gold set: write them to a .yaml file"))
        records, _ = importers.import_gold(source, "trec")
        _write_gold(target, source, records)
        print(f"wrote {len(records)} gold questions to {target} (qrels hold no question text: question is null)", file=sys.stderr)
        return 0
    if target.suffix.lower() not in RUN_SUFFIXES:
        raise InputError(problem(target, None, None, "a ragtui run is written as JSONL: give an output ending in .jsonl"))
    gold_questions = _gold_questions(Path(args.gold)) if args.gold else None
    raw = importers.import_run(source, args.from_format, gold_questions, variant=args.variant)
    from ragtui.core.loading.records import write_run_jsonl

    write_run_jsonl(target, raw.meta, raw.records)
    fmt = raw.meta["imported_from"]["format"]
    print(f"wrote {len(raw.records)} questions from {fmt} to {target}", file=sys.stderr)
    return 0


def _gold_questions(path: Path) -> dict[str, str]:
    """Normalised question → id of a gold set (native YAML/JSON/JSONL, or qrels: no questions)."""
    from ragtui.core import importers
    from ragtui.core.loading.records import load_yaml_records, read_raw_run
    from ragtui.core.measuring.textnorm import normalize_question

    if importers.detect_gold(path) is not None:
        return {}
    if path.suffix.lower() in GOLD_SUFFIXES:
        _, items, _ = load_yaml_records(path, ("questions",))
    else:
        items = read_raw_run(path).records
    index: dict[str, str] = {}
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("question"), str) and item.get("id") is not None:
            index[normalize_question(item["question"])] = str(item["id"])
    return index


def _write_gold(target: Path, source: Path, records: list[dict[str, Any]]) -> None:
    import yaml

    from ragtui.core.atomic import atomic_write_text

    header = (
        f"# Gold set converted by ragtui from the TREC qrels {source.name}.\n"
        "# gold_passages: the documents judged relevant (rel > 0). Qrels hold no question text,\n"
        "# so question is null: fill it in to show the questions and to join runs by text.\n"
    )
    body = yaml.safe_dump(records, allow_unicode=True, sort_keys=False, width=100)
    atomic_write_text(target, header + body)
