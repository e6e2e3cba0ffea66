"""`ragtui validate FILE...`: every problem of every file, as `FILE:LINE: field: message`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragtui.cli.messages import say


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="gold sets, run files or ragtui.yaml configs")
    parser.add_argument(
        "--as",
        dest="kind",
        choices=("auto", "gold", "run", "config"),
        default="auto",
        help="what the files are (default: guessed from name and content)",
    )
    parser.add_argument("--from", dest="from_format", metavar="NAME", help="read runs as this tool's format")


def run(args: argparse.Namespace) -> int:
    from ragtui.core.loading.validation import validate_file

    missing = [name for name in args.files if not Path(name).exists()]  # a FIFO or a device: validate says what it is
    for name in missing:
        say(f"ragtui: {name}: no such file")
    if missing:
        return 2  # a usage error, not a problem found in a file
    errors = warnings = 0
    for name in args.files:
        kind, problems = validate_file(Path(name), args.kind, args.from_format)
        for item in problems:
            say(item, sys.stdout)
        file_errors = sum(1 for p in problems if p.is_error)
        errors += file_errors
        warnings += len(problems) - file_errors
        if not file_errors:
            say(f"{name}: ok ({kind})")
    summary = f"{len(args.files)} file(s): {errors} error(s), {warnings} warning(s)"
    say(summary)
    return 1 if errors else 0
