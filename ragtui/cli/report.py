"""`ragtui report A [B …]`: the numbers without a screen, for people and for CI.

With more than one candidate, each is compared with A exactly as B is in a two-run report
(render_multi); two runs give today's report unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragtui.cli.common import add_labels_option, add_run_options


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("a", metavar="A", help="the reference run")
    parser.add_argument("b", metavar="B", nargs="*", help="the candidate run (optional); several: each is compared with A")
    add_run_options(parser)
    add_labels_option(parser)
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format (default: text)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically; - for stdout) instead of stdout")
    parser.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a metric regressed (its interval lies below 0)")
    parser.add_argument("--fail-below-target", action="store_true", help="exit 1 when a metric of the latest run is below its target")


def run(args: argparse.Namespace) -> int:
    import json

    from ragtui.cli.output import check_output_path, write_output
    from ragtui.cli.render import render_markdown, render_text
    from ragtui.core.comparing.report import build_report, failed_checks
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    inputs = Inputs(
        a=Path(args.a),
        b=Path(args.b[0]) if args.b else None,
        gold=Path(args.gold) if args.gold else None,
        config=Path(args.config) if args.config else None,
        k=args.k,
        fmt=args.from_format,
        variants=args.variant,
        status_from=args.status_from,
        detail=False,  # the report shows no passage or sentence text
        labels=Path(args.labels) if args.labels else None,
    )
    if args.k is not None and args.k < 1:
        print("ragtui: -k must be at least 1", file=sys.stderr)
        return 2
    check_output_path(args.output)
    if len(args.b) > 1:
        return _run_several(args, inputs)
    report = build_report(load_comparison(inputs))
    if args.format == "json":
        text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    elif args.format == "markdown":
        text = render_markdown(report)
    else:
        text = render_text(report)
    write_output(args.output, text)
    reasons = failed_checks(report, on_regression=args.fail_on_regression, below_target=args.fail_below_target)
    for reason in reasons:
        print(f"ragtui: check failed: {reason}", file=sys.stderr)
    return 1 if reasons else 0


def _run_several(args: argparse.Namespace, inputs) -> int:
    """More than two runs: every candidate against A, every gate on every comparison."""
    import json

    from ragtui.cli.output import write_output
    from ragtui.cli.render_multi import render_multi_markdown, render_multi_text
    from ragtui.core.comparing.multi_report import build_multi_report, failed_multi_checks
    from ragtui.core.sanitize import neutralize
    from ragtui.core.session import load_comparisons

    report = build_multi_report(load_comparisons(inputs, [Path(path) for path in args.b]))
    if args.format == "json":
        text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    elif args.format == "markdown":
        text = render_multi_markdown(report)
    else:
        text = render_multi_text(report)
    write_output(args.output, text)
    names = {run["label"]: neutralize(run["name"], keep_newlines=False) for run in report["runs"]}
    reasons = failed_multi_checks(report, on_regression=args.fail_on_regression, below_target=args.fail_below_target)
    for label, reason in reasons:
        print(f"ragtui: check failed: A → {label} ({names[label]}): {reason}", file=sys.stderr)
    return 1 if reasons else 0
