"""`ragtui`, `ragtui A B [B2 …]`, `ragtui compare A B`, `ragtui open RUN`: the Textual app."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ragtui.cli.common import add_cache_option, add_labels_option, add_run_options, inputs_from_options, runs_given
from ragtui.cli.messages import say

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    if name == "open":
        parser.add_argument("a", metavar="RUN", help="the run to open")
    else:
        parser.add_argument("a", metavar="A", nargs="?", help="the reference run (default: the bundled sample)")
        parser.add_argument(
            "b", metavar="B", nargs="*",
            help="the candidate run; several: each is compared with A, and T on the dashboard shows their trade-off",
        )
    add_run_options(parser)
    add_labels_option(parser)
    add_cache_option(parser)
    parser.add_argument("--theme", metavar="NAME", help="colour theme (dark, light, high-contrast, or a user theme)")
    parser.add_argument("--no-mouse", action="store_true", help="do not capture the mouse (keyboard only; lets the terminal select text)")
    parser.add_argument(
        "--notes", metavar="FILE",
        help="the marks and notes file (default: beside run B, e.g. candidate.notes.jsonl; the bundled sample's: in $XDG_DATA_HOME/ragtui/sample)",
    )
    parser.add_argument("--question", metavar="ID", help="open the question view on this question")
    parser.add_argument(
        "--corpus", metavar="DIR|FILE",
        help="the corpus (YAML documents, JSONL or Parquet passages): a gold passage not retrieved is shown with its text, "
        "and the statistics treat the questions of one document as one cluster",
    )


def sample_inputs() -> dict[str, Path]:
    """The bundled sample: works from a checkout and from an installed wheel alike."""
    from importlib.resources import files

    root = Path(str(files("ragtui.sample_data")))
    return {
        "a": root / "baseline.jsonl",
        "b": root / "candidate.jsonl",
        "gold": root / "gold.yaml",
        "config": root / "ragtui.yaml",
        "corpus": root / "corpus",
    }


def sample_sweep() -> tuple[Path, ...]:
    """The sample's k sweep (the candidate's pipeline at k = 3, 10, 20), for the trade-off view."""
    root = sample_inputs()["b"].parent
    return tuple(root / f"candidate_k{k}.jsonl" for k in (3, 10, 20))


def inputs_of(args: argparse.Namespace, others: tuple[Path, ...] = ()) -> Inputs:
    """What `ragtui` opens for its parsed arguments (runs already checked by `runs_given`):
    with no run named, the bundled sample with its corpus and its k sweep."""
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.loading.remote import run_location

    labels = Path(args.labels) if args.labels else None
    if args.a is None:
        sample = sample_inputs()
        return Inputs(
            a=sample["a"], b=sample["b"], gold=sample["gold"], config=sample["config"], k=args.k, labels=labels, cache=args.cache,
            others=sample_sweep(), corpus=sample["corpus"],
        )
    return inputs_from_options(args, run_location(args.a), run_location(args.b) if getattr(args, "b", None) else None, others=others)


def run(args: argparse.Namespace) -> int:
    from ragtui.cli.terminal import terminal_problem

    candidates = getattr(args, "b", None) or []
    if args.a is not None:
        args.a, *candidates = runs_given([args.a, *candidates])
    others: tuple[Path, ...] = ()
    if isinstance(candidates, list):
        args.b = candidates[0] if candidates else None
        others = tuple(Path(path) for path in candidates[1:])
    problem = terminal_problem()
    if problem:
        say(problem)
        return 2
    if getattr(args, "b", None) and not args.a:
        say("ragtui: give run A before run B")
        return 2
    inputs = inputs_of(args, others)
    from ragtui.ui.launch import launch

    notes = Path(args.notes) if args.notes else None
    return launch(inputs, theme=args.theme, mouse=not args.no_mouse, notes=notes, question=args.question)
