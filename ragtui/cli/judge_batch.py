"""`ragtui judge RUN -o OUT --batch`: the judge calls through the providers' batch APIs.

The options are added to `ragtui judge`'s parser by `add_batch_arguments`; `run_batch`
is called by `ragtui.cli.judge.run` once the run, the gold set and the settings are
loaded. Only stdlib at the top: the engine (ragtui.core.judge.batch) loads in run_batch.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import TextIO

from ragtui.cli.judge_progress import format_duration, verdicts_cost
from ragtui.cli.messages import say
from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import cost_text


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The `--batch` options of `ragtui judge`."""
    batch = parser.add_argument_group("batch (OpenAI and Anthropic: half price, results within 24 h)")
    batch.add_argument("--batch", action="store_true", help="submit the calls as batch jobs; the job ids are kept in OUT.batch.json, so rerunning the same command polls them instead of submitting again")
    batch.add_argument("--no-wait", action="store_true", help="with --batch: submit (or check once) and exit; a later run collects the results and writes OUT")
    batch.add_argument("--batch-fallback", action="store_true", help="with --batch: judge interactively the requests the batch failed or let expire (else they are judge errors with the provider's message)")
    batch.add_argument("--poll-interval", type=float, metavar="SECONDS", default=10.0, help="with --batch: first wait between polls; it grows by half each time, up to 5 minutes (default 10)")


def check_batch_flags(args: argparse.Namespace) -> None:
    """InputError when a batch-only flag comes without --batch (it would be ignored silently),
    or --batch writes to standard output (its job file lives next to OUT)."""
    from ragtui.cli.output import is_stdout
    from ragtui.core.errors import InputError, problem

    if args.batch and is_stdout(args.output):
        raise InputError(problem("command line", None, "-o", "--batch keeps its job list next to OUT (OUT.batch.json): give a file, not -"))
    given = [flag for flag, value in (("--no-wait", args.no_wait), ("--batch-fallback", args.batch_fallback)) if value]
    if given and not args.batch:
        raise InputError(problem("command line", None, given[0], f"{given[0]} only applies with --batch"))


class BatchProgressLine:
    """The batch progress on stderr: redrawn on a terminal, one line per poll elsewhere.

        batch  1200/3000  40%  failed 3  jobs 2 in_progress  elapsed 0:12:40  ≈$0.4100

    The cost is estimated at batch prices (input from the prompts' length, output from
    the sentence counts); a terminal line is cut to the terminal's width, never wrapped.
    """

    def __init__(self, stream: TextIO, tty: bool | None = None):
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.drawn = False

    @staticmethod
    def line(snapshot) -> str:
        names = sorted(snapshot.statuses.items())
        statuses = names[0][0] if len(names) == 1 else "(" + ", ".join(f"{count} {name}" for name, count in names) + ")"
        share = snapshot.done / snapshot.requests if snapshot.requests else 1.0
        return (
            f"batch  {snapshot.done}/{snapshot.requests}  {share:4.0%}  failed {snapshot.failed}  jobs {snapshot.jobs} {statuses}  "
            f"elapsed {format_duration(snapshot.elapsed)}  {cost_text(snapshot.estimated_cost, estimate=True)}"
        )

    def update(self, snapshot) -> None:
        text = neutralize(self.line(snapshot), keep_newlines=False)  # job statuses are the server's words
        if self.tty:
            text = text[: shutil.get_terminal_size().columns - 1]
        self.stream.write(f"\r{text}\x1b[K" if self.tty else text + "\n")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
        self.drawn = False


def _calls_line(outcome, result) -> str:
    """The summary's calls-and-cost line of a batch run ("batch" prices said so)."""
    totals = result.totals
    interactive = f", {outcome.fallback_calls} interactively at full price (--batch-fallback)" if outcome.fallback_calls else ""
    earlier = max(0, totals.cached_calls - outcome.answers_collected)
    return (
        f"ragtui: {totals.calls} calls ({outcome.answers_collected} answered by batch jobs collected now{interactive}, "
        f"{earlier} from the cache), {totals.tokens_in} tokens in, {totals.tokens_out} out, "
        f"{verdicts_cost(totals.cost_usd)} (batch)"
    )


def _jobs_left(job_path: Path) -> str:
    """What a stopped batch run leaves at the provider: its open jobs, listed in the job file, or none."""
    from ragtui.core.judge.batch.jobfile import open_job_count

    jobs = open_job_count(job_path)
    if not jobs:
        return "no batch job was submitted"
    return f"{jobs} submitted batch job{'s' if jobs != 1 else ''} keep{'s' if jobs == 1 else ''} running at the provider, listed in {job_path}"


def run_batch(args: argparse.Namespace, raw, gold: dict, settings, out: Path) -> int:
    """Judge RUN into OUT through batch jobs. Exit 0 (also when jobs are left running with --no-wait)."""
    import asyncio
    import signal

    from ragtui.cli.judge import _judge_logging
    from ragtui.cli.judge_summary import print_summary
    from ragtui.cli.output import output_stream
    from ragtui.core.judge.batch.jobfile import job_file_path, open_job_count
    from ragtui.core.judge.batch.runner import BatchOptions, check_batch_settings, judge_run_batch
    from ragtui.core.judge.client import CallError
    from ragtui.core.loading.records import write_run_lines

    check_batch_settings(settings)
    job_path = job_file_path(out)
    options = BatchOptions(
        job_path, wait=not args.no_wait, fallback=args.batch_fallback, poll_interval=max(0.001, args.poll_interval), retry_errors=args.retry_errors
    )
    progress = None if args.quiet else BatchProgressLine(sys.stderr)
    started = time.monotonic()

    async def main():
        task = asyncio.current_task()
        try:  # SIGTERM (a CI timeout, `kill`) stops like Ctrl-C
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        return await judge_run_batch(raw, settings, options, gold=gold, progress=progress)

    try:
        with _judge_logging(args.verbose):
            outcome = asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        rerun = "rerun the same command to collect them (nothing is submitted twice)" if open_job_count(job_path) else "rerun the same command"
        say(f"ragtui: interrupted; {_jobs_left(job_path)}; {out} not written — {rerun}")
        return 130
    except CallError as exc:
        say(f"ragtui: judge stopped: {exc}; {out} not written ({_jobs_left(job_path)})")
        return 2
    if outcome.jobs_submitted:
        say(f"ragtui: submitted {outcome.requests_submitted} requests in {outcome.jobs_submitted} batch jobs (listed in {job_path})")
    if outcome.result is None:
        say(f"ragtui: {outcome.open_jobs} batch jobs still running (results within 24 h); {out} not written — rerun the same command to collect them")
        return 0
    result = outcome.result
    for message in result.warnings:
        say(f"ragtui: warning: {message}")
    if outcome.requests_failed:
        say(f"ragtui: {outcome.requests_failed} requests failed in their batch jobs (kept in {job_path}): their questions carry "
            f"a judge error; --retry-errors submits them again")
    with output_stream(args.output) as handle:
        write_run_lines(handle, result.meta, result.records)
    print_summary(result, settings, out, calls_line=_calls_line(outcome, result))
    say(f"ragtui: batch run took {format_duration(time.monotonic() - started)} here; jobs in {job_path}")
    return 0
