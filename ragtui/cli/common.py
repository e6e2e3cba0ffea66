"""Options shared by the commands that read runs (CLI.md): --gold, --config, -k."""

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


def add_labels_option(parser: argparse.ArgumentParser) -> None:
    """--labels FILE: the calibration labels (default RUN.labels.jsonl beside each run)."""
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="calibration labels, read and (in the app) appended to; default RUN.labels.jsonl beside each run",
    )
