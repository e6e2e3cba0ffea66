"""Options shared by the commands that read runs (docs/cli.md): --gold, --config, -k, --from,
--variant, --status-from."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtui.core.loading.config import MAX_K

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.loading.remote import RemoteLocation


def positive_int(text: str) -> int:
    """A count as argparse reads it: a whole number ≥ 1, else a usage error (exit 2), never a fallback."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, found {value}")
    return value


def positive_k(text: str) -> int:
    """-k as argparse reads it: a whole number from 1 to MAX_K (k sizes arrays), else a usage error."""
    value = positive_int(text)
    if value > MAX_K:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_K}, found {value}")
    return value


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Add --gold, --config, -k and --from to a command that reads runs."""
    parser.add_argument("--gold", metavar="GOLD.yaml", help="the gold set (else the gold fields in the runs)")
    parser.add_argument(
        "--gold-edits", metavar="FILE",
        help="gold edits made in triage, replayed over the gold set (default: GOLD.edits.jsonl beside it, when there)",
    )
    parser.add_argument(
        "--config", metavar="ragtui.yaml", help="targets and settings (else ./ragtui.yaml if present, else the shipped defaults)"
    )
    parser.add_argument(
        "-k", type=positive_k, metavar="N", help="passages sent to the generator (wins over the config's k, then the run's, then 5)"
    )
    parser.add_argument(
        "--from",
        dest="from_format",
        metavar="NAME",
        help="read the runs as this tool's format (ragas, promptfoo, inspect, deepeval, trec); default: detected",
    )
    parser.add_argument(
        "--trec-denominator",
        action="store_true",
        help="with TREC qrels as the gold set, average retrieval metrics over every judged topic as trec_eval does "
        "(a topic with no relevant document scores 0) instead of leaving such topics out as unanswerable",
    )
    parser.add_argument(
        "--variant",
        type=variants,
        default=(None, None),
        metavar="N[,M]",
        help="for a file holding several systems: the promptfoo prompt × provider (1, 2, …) or the inspect_ai "
        "epoch; N,M picks N for A and M for B (two variants of one file can be compared)",
    )
    parser.add_argument(
        "--status-from",
        choices=("ragtui", "tool", "both"),
        default=None,
        help="whose verdicts make a question pass: ragtui's, the peer tool's own (DeepEval's success, …) or both; "
        "default: the tool's when the runs have no ragtui verdicts",
    )


def add_cache_option(parser: argparse.ArgumentParser) -> None:
    """--no-cache: parse the runs again, neither reading nor writing the run cache."""
    from ragtui.core.loading.run_cache import cache_root

    parser.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help=f"parse the runs from scratch and leave the run cache alone (it lives in {cache_root() / 'runs'}; see `ragtui cache`)",
    )


def variants(text: str) -> tuple[int | None, int | None]:
    """`2` → (2, 2); `1,3` → (1, 3): the variant of A and of B."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) > 2 or not all(part.isdigit() and int(part) >= 1 for part in parts):
        raise argparse.ArgumentTypeError(f"expected N or N,M (whole numbers from 1), found {text!r}")
    numbers = [int(part) for part in parts]
    return numbers[0], numbers[-1]


def add_labels_option(parser: argparse.ArgumentParser) -> None:
    """--labels FILE: the calibration labels (default RUN.labels.jsonl beside each run, the sample's in the data folder)."""
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="calibration labels, read and (in the app) appended to; default RUN.labels.jsonl beside each run "
        "(the bundled sample's: in $XDG_DATA_HOME/ragtui/sample)",
    )


def runs_given(paths: list[str]) -> list[str]:
    """The run arguments, without ragtui's own files (labels, notes, batch jobs, gold edits).

    Named as A or B of one or two runs, such a file is refused (InputError, exit 2). Among
    more than two run arguments — what a glob such as `runs/*.jsonl` gives, picking up the
    sidecars beside the runs — it is skipped with a note on stderr.
    """
    from ragtui.cli.messages import say
    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.own_files import own_file

    found = [(path, own_file(path)) for path in paths]
    own = [(path, what) for path, what in found if what is not None]
    if not own:
        return paths
    if len(paths) <= 2:
        raise InputError([problem(path, None, None, what.not_a_run()) for path, what in own])
    runs = [path for path, what in found if what is None]
    if not runs:
        raise InputError([problem(path, None, None, what.not_a_run()) for path, what in own])
    for path, what in own:
        say(f"ragtui: skipped {path}: {what.what()}, not a run")
    return runs


def inputs_from_options(args: argparse.Namespace, a: Path | RemoteLocation, b: Path | RemoteLocation | None, **more: Any) -> Inputs:
    """The inputs of runs `a` and `b` with what the run, labels and cache options
    (`add_run_options`, `add_labels_option`, `add_cache_option`) say; `more`: a command's own."""
    from ragtui.core.loading.inputs import Inputs

    return Inputs(
        a=a,
        b=b,
        gold=Path(args.gold) if args.gold else None,
        corpus=Path(args.corpus) if args.corpus else None,
        gold_edits=Path(args.gold_edits) if args.gold_edits else None,
        config=Path(args.config) if args.config else None,
        k=args.k,
        fmt=args.from_format,
        variants=args.variant,
        trec_denominator=args.trec_denominator,
        status_from=args.status_from,
        labels=Path(args.labels) if args.labels else None,
        cache=args.cache,
        **more,
    )
