"""Options shared by the commands that read runs (docs/cli.md): --gold, --config, -k, --from,
--variant, --status-from."""

from __future__ import annotations

import argparse


def positive_k(text: str) -> int:
    """-k as argparse reads it: a whole number ≥ 1, else a usage error (exit 2), never a fallback."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, found {value}")
    return value


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Add --gold, --config, -k and --from to a command that reads runs."""
    parser.add_argument("--gold", metavar="GOLD.yaml", help="the gold set (else the gold fields in the runs)")
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
    """--labels FILE: the calibration labels (default RUN.labels.jsonl beside each run)."""
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="calibration labels, read and (in the app) appended to; default RUN.labels.jsonl beside each run",
    )
