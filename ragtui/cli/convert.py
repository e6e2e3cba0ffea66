"""`ragtui convert IN -o OUT`: write a peer tool's file in ragtui's own format.

Runs (RAGAS, promptfoo, inspect_ai, DeepEval, a TREC run) become a ragtui JSONL run with
`run.imported_from` in its metadata. TREC qrels become a gold set YAML. Nothing heavy is
imported at module level: the parser is built for every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ragtui.cli.messages import say

RUN_SUFFIXES = (".jsonl", ".ndjson")
GOLD_SUFFIXES = (".yaml", ".yml")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Arguments of `ragtui convert`."""
    del name
    parser.add_argument("input", metavar="IN", help="the tool's file: RAGAS CSV/JSONL, promptfoo JSON, inspect .eval/.json, DeepEval JSON, TREC run or qrels")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the ragtui run to write (.jsonl); for TREC qrels, the gold set (.yaml); - for stdout")
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
    from ragtui.cli.output import check_output_path
    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.bounded_file import spooled

    source, target = Path(args.input), Path(args.output)
    if not source.exists():
        raise InputError(problem(source, None, None, "file not found"))
    check_output_path(args.output)
    with spooled(source) as readable:  # a FIFO is read once: the sniff and the import both read it
        return _convert(args, source, readable, target)


def _convert(args: argparse.Namespace, source: Path, readable: Path, target: Path) -> int:
    """`run` on `readable`: the input itself, or a FIFO's copy (messages name `source`)."""
    from ragtui.cli.output import is_stdout, output_stream
    from ragtui.core import importers
    from ragtui.core.errors import InputError, problem

    to_stdout = is_stdout(args.output)  # `-o -`: the format follows the input (run → JSONL, qrels → YAML)
    if args.from_format == "qrels" or importers.detect_gold(readable) is not None:
        if not to_stdout and target.suffix.lower() not in GOLD_SUFFIXES:
            raise InputError(problem(target, None, None, "TREC qrels are a gold set: write them to a .yaml file"))
        records, _ = importers.import_gold(readable, "trec")
        # A gold set YAML has no relevance grades: the private key carrying them stays behind.
        records = [{key: value for key, value in record.items() if not key.startswith("_")} for record in records]
        _write_gold(args.output, source, records)
        say(f"wrote {len(records)} gold questions to {_where(args.output)} (qrels hold no question text: question is null)")
        return 0
    if not to_stdout and target.suffix.lower() not in RUN_SUFFIXES:
        raise InputError(problem(target, None, None, "a ragtui run is written as JSONL: give an output ending in .jsonl"))
    gold_questions = _gold_questions(Path(args.gold)) if args.gold else None
    raw = importers.import_run(readable, args.from_format, gold_questions, variant=args.variant)
    raw.meta["imported_from"]["path"] = str(source)
    from ragtui.core.loading.records import write_run_lines

    with output_stream(args.output) as handle:
        write_run_lines(handle, raw.meta, raw.records)
    fmt = raw.meta["imported_from"]["format"]
    say(f"wrote {len(raw.records)} questions from {fmt} to {_where(args.output)}")
    return 0


def _where(name: str) -> str:
    from ragtui.cli.output import is_stdout

    return "standard output" if is_stdout(name) else name


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


def _write_gold(target: str, source: Path, records: list[dict[str, Any]]) -> None:
    import yaml

    from ragtui.cli.output import write_output

    header = (
        f"# Gold set converted by ragtui from the TREC qrels {source.name}.\n"
        "# gold_passages: the documents judged relevant (rel > 0). Qrels hold no question text,\n"
        "# so question is null: fill it in to show the questions and to join runs by text.\n"
    )
    body = yaml.safe_dump(records, allow_unicode=True, sort_keys=False, width=100)
    write_output(target, header + body)
