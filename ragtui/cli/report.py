"""`ragtui report A [B …]`: the numbers without a screen, for people and for CI.

With more than one candidate, each is compared with A exactly as B is in a two-run report
(render_multi); two runs give today's report unchanged.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ragtui.cli.ci_output import CI_FORMATS
from ragtui.cli.common import add_cache_option, add_labels_option, add_run_options, inputs_from_options, runs_given
from ragtui.cli.messages import say
from ragtui.core.comparing.report_model import Report

if TYPE_CHECKING:
    from ragtui.core.comparing.gates import GateResult


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("a", metavar="A", help="the reference run")
    parser.add_argument("b", metavar="B", nargs="*", help="the candidate run (optional); several: each is compared with A")
    add_run_options(parser)
    add_labels_option(parser)
    add_cache_option(parser)
    parser.add_argument(
        "--format", choices=("text", "markdown", "json", *CI_FORMATS), default="text",
        help="output format (default: text); junit, github and html are for CI (docs/ci.md)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically; - for stdout) instead of stdout")
    parser.add_argument(
        "--corpus", metavar="DIR|FILE",
        help="the corpus (YAML documents, JSONL or Parquet passages): a question's document is its first gold passage's, "
        "and intervals and tests treat the questions of one document as one cluster",
    )
    parser.add_argument("--notes", metavar="FILE", help="list the triage marks of this notes file (the app's sidecar) in a section")
    gates = parser.add_argument_group("gates (each prints one line on stderr saying why it passed or failed)")
    gates.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a metric regressed (its interval lies below 0)")
    gates.add_argument(
        "--fail-below-target", action="store_true",
        help="exit 1 when a metric of the latest run misses its target (its whole interval on the bad side)",
    )
    gates.add_argument(
        "--strict-targets", action="store_true",
        help="with --fail-below-target, also exit 1 when a metric is inconclusive against its target (too few questions to tell)",
    )
    gates.add_argument("--fail-on-drop", action="store_true", help="exit 1 when a drop larger than max_drop is flagged, significant or not")
    gates.add_argument(
        "--allow-unavailable", action="store_true",
        help="let a gate pass when a metric with a target is not available (by default it fails: nothing was measured)",
    )


def run(args: argparse.Namespace) -> int:
    from ragtui.cli.ci_output import render_ci
    from ragtui.cli.output import check_output_path, write_output
    from ragtui.cli.render import render_text
    from ragtui.cli.render_markdown import render_markdown
    from ragtui.cli.report_json import report_json
    from ragtui.core.comparing.report import build_report
    from ragtui.core.loading.remote import run_location
    from ragtui.core.sanitize import inert_json
    from ragtui.core.session import load_comparison

    args.a, *args.b = runs_given([args.a, *args.b])
    inputs = inputs_from_options(
        args,
        run_location(args.a),
        run_location(args.b[0]) if args.b else None,
        detail=args.format == "html",  # only the HTML report shows passages and sentences
    )
    check_output_path(args.output)
    if len(args.b) > 1:
        return _run_several(args, inputs)
    comparison = load_comparison(inputs)
    report = build_report(comparison)
    if args.notes:
        report["marks"] = _marks(comparison, Path(args.notes))
    results = _gates(args, report)
    if args.format in CI_FORMATS:
        text = render_ci(args.format, [(report, comparison, results)], lambda: render_markdown(report, confidence=comparison.config.confidence))
    elif args.format == "json":
        text = inert_json(report_json(report)) + "\n"
    elif args.format == "markdown":
        text = render_markdown(report, confidence=comparison.config.confidence)
    else:
        text = render_text(report, confidence=comparison.config.confidence)
    write_output(args.output, text)
    for result in results:
        say(f"ragtui: {result.line()}")
    return 0 if all(result.passed for result in results) else 1


def _gates(args: argparse.Namespace, report: Report) -> list[GateResult]:
    """The gates the flags ask for, on one comparison's report: every flag alike for two runs and for several."""
    from ragtui.core.comparing.gates import run_gates

    return run_gates(
        report, on_regression=args.fail_on_regression, below_target=args.fail_below_target, on_drop=args.fail_on_drop,
        allow_unavailable=args.allow_unavailable, strict_targets=args.strict_targets,
    )


def _marks(comparison, path: Path) -> list[dict]:
    """The marks of a notes file, each with its question's category and status; exit 2 on a bad file."""
    from ragtui.core.errors import InputError, problem
    from ragtui.core.triage.notes import Notes

    if not path.is_file():
        raise InputError(problem(path, None, None, "no such notes file"))
    notes = Notes.load(path)
    if notes.problems:
        raise InputError(notes.problems)
    status = {row["id"]: row for row in comparison.status.select("id", "category", "status").iter_rows(named=True)}
    return [
        {**mark.to_json(), "category": status.get(qid, {}).get("category"), "status": status.get(qid, {}).get("status")}
        for qid, mark in notes.marks.items()
    ]


def _run_several(args: argparse.Namespace, inputs) -> int:
    """More than two runs: every candidate against A, every gate on every comparison, whose lines end it."""
    from ragtui.cli.ci_output import ONE_COMPARISON, render_ci
    from ragtui.cli.output import write_output
    from ragtui.cli.render_multi import render_multi_markdown, render_multi_text
    from ragtui.cli.report_json import report_json
    from ragtui.core.comparing.multi_report import build_multi_report
    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.remote import run_location
    from ragtui.core.sanitize import inert_json, neutralize
    from ragtui.core.session import load_comparisons
    from ragtui.core.vocabulary import run_label

    if args.format in ONE_COMPARISON:
        raise InputError(problem("command line", None, "--format", f"{args.format} shows one comparison: give one candidate run B"))
    comparisons = load_comparisons(inputs, [run_location(path) for path in args.b])
    report = build_multi_report(comparisons)
    gated = [(each, comparison, _gates(args, each)) for each, comparison in zip(report["comparisons"], comparisons, strict=True)]
    if args.format in CI_FORMATS:
        text = render_ci(args.format, gated, lambda: render_multi_markdown(report))
    elif args.format == "json":
        text = inert_json(report_json(report)) + "\n"
    elif args.format == "markdown":
        text = render_multi_markdown(report)
    else:
        text = render_multi_text(report)
    write_output(args.output, text)
    names = {run["label"]: neutralize(run["name"], keep_newlines=False) for run in report["runs"]}
    passed = True
    for position, (_, _, results) in enumerate(gated, start=1):
        label = run_label(position)
        for result in results:
            say(f"ragtui: A → {label} ({names[label]}): {result.line()}")
            passed = passed and result.passed
    return 0 if passed else 1
