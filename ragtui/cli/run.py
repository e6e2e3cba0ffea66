"""`ragtui run GOLD -o RUN.jsonl`: ask the system under test every gold question.

The system is reached one of three ways: Python functions (`--retriever` and
`--generator`, or `--system`), an HTTP service (`--endpoint URL`) or a program speaking
JSON lines (`--command CMD`). The engine is `ragtui.core.running`; this module reads
the options, draws the progress line and prints the summary. Heavy imports stay inside
`run`: the parser of every command is built at start-up.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtui.cli.common import positive_k
from ragtui.cli.messages import say

if TYPE_CHECKING:
    from ragtui.core.running.runner import RunResult, System


def add_arguments(parser: argparse.ArgumentParser, name: str = "run") -> None:
    """Options of `ragtui run`."""
    parser.epilog = (
        "The run is appended and flushed question by question: after Ctrl-C or a lost session, the same "
        "command resumes, asking only the questions without a record. See docs/running.md."
    )
    parser.add_argument("gold", metavar="GOLD", help="the gold set whose questions are asked")
    parser.add_argument("-o", "--output", required=True, metavar="RUN.jsonl", help="the run to write, or to resume when it exists")
    parser.add_argument("--config", metavar="ragtui.yaml", help="settings: k, fallback phrases, run.endpoint field names, judge (else ./ragtui.yaml if present)")
    parser.add_argument("-k", type=positive_k, metavar="N", help="passages asked of the retriever (else the config's k, else 5)")
    parser.add_argument("--name", help="the run's name on panels (default: the file name)")
    system = parser.add_argument_group("the system under test (one way)")
    system.add_argument("--system", metavar="FILE.py:answer", help="answer(question, k) -> {passages, answer}; sync or async")
    system.add_argument("--retriever", metavar="FILE.py:chercher", help="chercher(question, k) -> [{id, text, score}]; with --generator")
    system.add_argument("--generator", metavar="FILE.py:repondre", help="repondre(question, passages) -> str | {answer, tokens_in, tokens_out, cost_usd}")
    system.add_argument("--endpoint", metavar="URL", help="POST {id, question, k} as JSON, read {passages, answer}")
    system.add_argument("--command", metavar="CMD", help="a program reading one JSON request a line on stdin, writing one JSON answer a line")
    calls = parser.add_argument_group("calls")
    calls.add_argument("-j", "--jobs", type=positive_k, default=4, metavar="N", help="questions asked at once (default 4)")
    calls.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'", help="an HTTP header for --endpoint; env:VAR reads VAR from the environment (never written anywhere)")
    calls.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="--endpoint: per-request timeout (default 60)")
    calls.add_argument("--max-retries", type=int, default=6, metavar="N", help="--endpoint: retries on 408/409/429/5xx/timeouts/broken connections (default 6)")
    calls.add_argument("--backoff", type=float, default=0.5, metavar="SECONDS", help="--endpoint: first retry wait when the server gives none; doubles each time (default 0.5)")
    calls.add_argument("--rerun-errors", action="store_true", help="ask again the questions recorded with a system error")
    calls.add_argument("--judge", action="store_true", help="then judge the run in place with the config's judge: settings (as `ragtui judge RUN -o RUN`)")
    calls.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    calls.add_argument("-v", "--verbose", action="store_true", help="log every retry")


def _system(args: argparse.Namespace, config_path: Path | None, config_extra: dict[str, Any]) -> tuple[System, bool]:
    """The system the options name, and whether its first call is checked alone."""
    import os

    from ragtui.core.errors import InputError, problem

    ways = [bool(args.system or args.retriever or args.generator), bool(args.endpoint), bool(args.command)]
    if sum(ways) != 1:
        raise InputError(problem("command line", None, None, "name the system one way: --system, --retriever with --generator, --endpoint or --command"))
    if args.endpoint:
        from ragtui.core.judge.retry import RetryPolicy
        from ragtui.core.running.endpoint import EndpointSystem, fields_from_config, resolve_headers

        if not args.endpoint.startswith(("http://", "https://")):
            raise InputError(problem("--endpoint", None, None, "expected an http:// or https:// address"))
        section = config_extra.get("run") or {}
        fields = fields_from_config(section.get("endpoint") if isinstance(section, dict) else None, str(config_path or "ragtui.yaml"))
        policy = RetryPolicy(max_retries=max(0, args.max_retries), base=args.backoff)
        headers = resolve_headers(args.header, os.environ)
        return EndpointSystem(args.endpoint, headers=headers, fields=fields, timeout=args.timeout, policy=policy, concurrency=args.jobs), False
    if args.header:
        raise InputError(problem("--header", None, None, "headers are sent with --endpoint only"))
    if args.command:
        from ragtui.core.running.command import CommandSystem

        return CommandSystem(args.command), False
    from ragtui.core.running.callables import CallableSystem, load_function

    if args.system:
        if args.retriever or args.generator:
            raise InputError(problem("command line", None, "--system", "give --system alone, or --retriever with --generator"))
        return CallableSystem(system=load_function(args.system, "system")), True
    if not (args.retriever and args.generator):
        missing = "--generator" if args.retriever else "--retriever"
        raise InputError(problem("command line", None, missing, f"{missing} is needed too (or one --system)"))
    return CallableSystem(retriever=load_function(args.retriever, "retriever"), generator=load_function(args.generator, "generator")), True


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every question has a record (system errors included), 2 when the run stopped or an input is unusable."""
    import logging

    from ragtui.cli.judge_progress import Progress
    from ragtui.cli.messages import InertFormatter
    from ragtui.cli.output import check_output_path
    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.config import DEFAULT_K, load_config
    from ragtui.core.running.start import run_gold_set

    out = Path(args.output)
    if out.suffix.lower() not in (".jsonl", ".ndjson") or args.output == "-":
        raise InputError(problem(args.output, None, "-o", "a run is written (and resumed) as a JSONL file: name it RUN.jsonl"))
    check_output_path(args.output)
    config = load_config(args.config)
    k = args.k if args.k is not None else _resumed_k(out)  # a resumed run keeps its k
    k = k if k is not None else (config.k if config.k is not None else DEFAULT_K)
    system, checked = _system(args, config.path, config.extra)
    gold_path = Path(args.gold)
    progress = None if args.quiet else Progress(0, sys.stderr, label="run", show_cached=False)
    logger = logging.getLogger("ragtui.run")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(InertFormatter("ragtui: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if args.verbose else logging.WARNING)
    try:
        result = run_gold_set(
            gold_path, system, out, config, k=k, name=args.name, concurrency=args.jobs, rerun_errors=args.rerun_errors,
            check_first_call=checked, progress=progress,
        )
    except KeyboardInterrupt:
        say(f"ragtui: interrupted; the answers so far are in {out} — rerun the same command to resume")
        return 130
    finally:
        logger.removeHandler(handler)
        if progress is not None:
            progress.close()
    for message in result.warnings:
        say(f"ragtui: warning: {message}")
    _print_summary(result)
    if result.totals.stopped is not None:
        say(f"ragtui: run stopped: {result.totals.stopped}; rerun the same command to resume")
        return 2
    if args.judge:
        return _judge(args, out)
    return 0


def _resumed_k(out: Path) -> int | None:
    """The k of the run `out` already holds, when it names one."""
    from ragtui.core.running.run_file import read_previous

    meta = read_previous(out, rerun_errors=False).meta or {}
    k = meta.get("k")
    return k if isinstance(k, int) and not isinstance(k, bool) and k >= 1 else None


def _print_summary(result: RunResult) -> None:
    totals = result.totals
    if totals.asked == 0 and totals.stopped is None:
        say(f"ragtui: {result.path}: all {totals.questions} questions already have a record; nothing asked (--rerun-errors asks the errored ones again)")
        return
    p50 = "" if totals.p50_ms is None else f", p50 latency {totals.p50_ms:.0f} ms"
    resumed = f" ({totals.recorded_before} already recorded)" if totals.recorded_before else ""
    say(f"ragtui: asked {totals.asked} of {totals.questions} questions{resumed}: {totals.answered} answered, {totals.errors} system errors{p50}")
    for record_id in totals.error_ids[:5]:
        say(f"ragtui: system error on {record_id} (its `error` in {result.path})")
    if totals.errors > 5:
        say(f"ragtui: … and {totals.errors - 5} more; --rerun-errors asks them again")
    say(f"ragtui: wrote {result.path}")


def _judge(args: argparse.Namespace, out: Path) -> int:
    """`ragtui judge OUT -o OUT --gold GOLD`: the run judged in place, its calls cached in OUT.cache/."""
    from ragtui.cli import judge

    parser = argparse.ArgumentParser(prog="ragtui judge")
    judge.add_arguments(parser)
    argv = [str(out), "-o", str(out), "--gold", args.gold]
    if args.config:
        argv += ["--config", args.config]
    if args.quiet:
        argv.append("-q")
    return judge.run(parser.parse_args(argv))
