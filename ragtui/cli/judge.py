"""`ragtui judge RUN -o OUT`: fill in judge verdicts by calling an LLM over HTTP.

Only stdlib and light ragtui modules are imported at the top: the parser of every
command is built at start-up, and `ragtui report` must not pay for httpx. The judge
engine (ragtui.core.judge.*) is imported inside `run`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from pathlib import Path

from ragtui.cli.common import positive_int, positive_k
from ragtui.cli.judge_batch import add_batch_arguments, check_batch_flags
from ragtui.cli.judge_progress import verdicts_cost
from ragtui.cli.messages import InertFormatter, say

PROVIDER_CHOICES = ("openai", "anthropic", "ollama", "lexical")


def add_arguments(parser: argparse.ArgumentParser, name: str = "judge") -> None:
    """Options of `ragtui judge`."""
    parser.epilog = (
        "The API key is read from OPENAI_API_KEY / ANTHROPIC_API_KEY (or --api-key-env NAME), "
        "never from a flag or a file. Every call is cached in OUT.cache/: rerun the same "
        "command after an interruption to resume without paying twice. See docs/judge.md."
    )
    parser.add_argument("run", metavar="RUN", help="the run to judge (.jsonl, .json, .yaml or .parquet)")
    parser.add_argument("-o", "--output", metavar="OUT", help="the judged run to write (.jsonl, written atomically; - for stdout, with --cache DIR or --no-cache); required unless --print-prompt")
    parser.add_argument("--gold", metavar="GOLD.yaml", help="the gold set: questions and expected answers (else the fields in the run)")
    parser.add_argument("--config", metavar="ragtui.yaml", help="settings, incl. a judge: section (else ./ragtui.yaml if present)")
    parser.add_argument("-k", type=positive_k, metavar="N", help="passages judged when a record has no `cited` list (else the run's k, else 5)")
    parser.add_argument("--print-prompt", metavar="ID", help="print the prompt question ID would be judged with, and stop (no call, nothing written)")
    judge = parser.add_argument_group("judge model")
    judge.add_argument("--provider", choices=PROVIDER_CHOICES, help="wire format: openai (also vLLM, llama.cpp, Ollama /v1), anthropic, ollama (native), lexical (offline, approximate); default openai")
    judge.add_argument("--model", help="the judge model, e.g. gpt-4.1-mini, claude-sonnet-4-5, qwen2.5:14b")
    judge.add_argument("--base-url", metavar="URL", help="the server, e.g. http://localhost:8000/v1 for vLLM (default: the provider's official API)")
    judge.add_argument("--api-key-env", metavar="NAME", help="the environment variable holding the API key")
    judge.add_argument("--lang", choices=("fr", "en"), help="language of the judge prompts (default fr)")
    judge.add_argument("--prompts", metavar="DIR", help="a folder of templates overriding the shipped ones ({lang}.system.txt, .user.txt, .repair.txt)")
    judge.add_argument("--threshold", type=float, dest="lexical_threshold", metavar="SHARE", help="lexical judge: share of a sentence's words found in the passages to attest it (default 0.6)")
    calls = parser.add_argument_group("calls")
    calls.add_argument("--max-tokens", type=int, metavar="N", help="bound on the judge's output tokens (default 2048; doubled once on truncation)")
    calls.add_argument("--timeout", type=float, metavar="SECONDS", help="per-request timeout (default 60)")
    calls.add_argument("--concurrency", type=int, metavar="N", help="requests in flight at once (default 8)")
    calls.add_argument("--max-retries", type=int, metavar="N", help="retries on 408/409/429/5xx/timeouts (default 6)")
    calls.add_argument("--backoff", type=float, dest="backoff_base", metavar="SECONDS", help="first retry wait when the server gives none; doubles each time (default 0.5)")
    calls.add_argument("--cache", metavar="DIR", help="the call cache (default OUT.cache/)")
    calls.add_argument("--no-cache", action="store_true", help="neither read nor write the cache (every call is paid)")
    calls.add_argument("--repeat", type=positive_int, default=1, metavar="N", help="judge every answer N times (each repetition cached: a rerun pays for none twice); the report and the app show how often verdicts flip (default 1)")
    calls.add_argument("--retry-errors", action="store_true", help="ask again the questions whose judge error comes from a reply kept in the cache (unusable or cut off) and, with --batch, the requests a batch job failed; good verdicts are not asked again")
    calls.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    calls.add_argument("-v", "--verbose", action="store_true", help="log every request (API keys redacted) and retry")
    add_batch_arguments(parser)


def _settings(args: argparse.Namespace, run_meta: dict, out: Path):
    from ragtui.core.judge.settings import JudgeSettings

    meta_k = run_meta.get("k") if isinstance(run_meta.get("k"), int) else None
    overrides = {
        "provider": args.provider,
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "lang": args.lang,
        "prompts": args.prompts,
        "max_tokens": args.max_tokens,
        "timeout": args.timeout,
        "concurrency": args.concurrency,
        "max_retries": args.max_retries,
        "backoff_base": args.backoff_base,
        "lexical_threshold": args.lexical_threshold,
        "cache": args.cache,
        "k": args.k if args.k is not None else meta_k,
    }
    if isinstance(run_meta.get("fallback_phrases"), list):
        overrides["fallback_phrases"] = tuple(str(p) for p in run_meta["fallback_phrases"])
    settings = JudgeSettings.from_config(args.config, **overrides)
    if args.no_cache:
        if args.retry_errors:
            from ragtui.core.errors import InputError, problem

            raise InputError(problem("command line", None, "--retry-errors", "--retry-errors asks again the errors kept in the cache: drop --no-cache (without a cache every call is asked anyway)"))
        settings = settings.replace(cache_dir=None)
    elif settings.cache_dir is None:
        if str(out) == "-":
            from ragtui.core.errors import InputError, problem

            # The cache is what lets an interrupted run resume without paying twice: never guess its place.
            message = "the judged run goes to stdout: say where calls are cached (--cache DIR, or judge.cache) or --no-cache"
            raise InputError(problem("-o -", None, "--cache", message))
        settings = settings.replace(cache_dir=Path(str(out) + ".cache"))
    return settings.validated()


def _load_gold(path: str) -> dict[str, dict]:
    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.records import load_yaml_records

    _, items, lines = load_yaml_records(Path(path), ("questions",))
    gold: dict[str, dict] = {}
    for item, line in zip(items, lines):
        if not isinstance(item, dict) or item.get("id") is None:
            raise InputError(problem(path, line, "id", "expected a question record with an id"))
        gold.setdefault(str(item["id"]), item)
    return gold


@contextlib.contextmanager
def _judge_logging(verbose: bool):
    """Judge logs on stderr for this command only (warnings; every request with -v)."""
    logger = logging.getLogger("ragtui.judge")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(InertFormatter("ragtui: %(message)s"))
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.WARNING)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def _print_summary(result, settings, out: Path, calls_line: str | None = None) -> None:
    from ragtui.core.sanitize import neutralize

    totals = result.totals
    paid = totals.calls - totals.cached_calls
    say(
        f"ragtui: judged {totals.judged} answers with {result.meta['judge_model']} "
        f"({result.meta['judge_prompt_version']}): {totals.judged - totals.errors} with verdicts, {totals.errors} judge errors")
    if calls_line:  # a batch run tells its calls apart (ragtui.cli.judge_batch)
        say(calls_line)
    elif settings.provider != "lexical":
        say(
            f"ragtui: {totals.calls} calls ({paid} paid now, {totals.cached_calls} from the cache), "
            f"{totals.tokens_in} tokens in, {totals.tokens_out} out, {verdicts_cost(totals.cost_usd)}")
    flagged = (
        ("the judge reported an injection attempt in {n} answer(s)", "verdicts kept, marked injection: true", totals.injection_ids),
        ("{n} question(s) address the judge (detector)", "read them before trusting a score", totals.directed_ids),
    )
    for what, advice, ids in flagged:
        if ids:
            shown = ", ".join(neutralize(i, keep_newlines=False) for i in sorted(ids)[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            say(f"ragtui: warning: {what.format(n=len(ids))}: {shown} — {advice}")
    _print_error_origin(totals)
    for record in [r for r in result.records if (r.get("judge") or {}).get("error")][:5]:
        say(f"ragtui: judge error on {record.get('id')}: {record['judge']['error']}")
    if totals.errors > 5:
        say(f"ragtui: … and {totals.errors - 5} more (judge.error in {out})")
    noise = _noise_line(result.records)
    if noise:
        say(noise)
    say(f"ragtui: wrote {out}")


def _print_error_origin(totals) -> None:
    """What --retry-errors did, or that it would help: errors replayed by the cache stay otherwise."""
    if totals.retried_ids:
        still = len(set(totals.retried_ids) & set(totals.error_ids))
        say(f"ragtui: asked again {len(totals.retried_ids)} question(s) whose judge error came from the cache (--retry-errors): {len(totals.retried_ids) - still} now with verdicts")
    if totals.replayed_error_ids:
        n = len(totals.replayed_error_ids)
        say(f"ragtui: {n} judge error(s) come from replies kept in the cache, not asked again: rerun with --retry-errors to ask those questions again")


def run(args: argparse.Namespace) -> int:
    """Judge RUN into OUT. Exit 0 (judge errors are recorded, not fatal), 2 on unusable input."""
    import asyncio
    import signal

    from ragtui.cli.judge_progress import Progress
    from ragtui.cli.output import check_output_path, is_stdout, output_stream
    from ragtui.core.errors import InputError, problem
    from ragtui.core.judge.runner import family_warning, judge_run
    from ragtui.core.loading.records import read_raw_run, write_run_lines

    if args.print_prompt is not None:
        from ragtui.cli.judge_prompt import print_prompt

        raw = read_raw_run(args.run)
        if raw.problems:
            raise InputError(raw.problems)
        return print_prompt(args, raw, _load_gold(args.gold) if args.gold else {})
    if not args.output:
        say("ragtui: judge: -o OUT is required (the judged run to write), unless --print-prompt ID")
        return 2
    check_batch_flags(args)
    _check_repeat(args)
    out = Path(args.output)
    if not is_stdout(args.output) and out.suffix.lower() not in (".jsonl", ".ndjson"):
        raise InputError(problem(out, None, None, "the judged run is written as JSONL: name it OUT.jsonl"))
    check_output_path(args.output)
    raw = read_raw_run(args.run)
    if raw.problems:
        raise InputError(raw.problems)
    gold = _load_gold(args.gold) if args.gold else {}
    settings = _settings(args, raw.meta, out)

    warning = family_warning(raw.meta.get("generator_model"), settings)
    if warning:
        say(f"ragtui: warning: {warning}")
    if settings.provider == "lexical":
        say("ragtui: note: the lexical judge is approximate (word overlap, no model): use it offline or in tests")
    if args.batch:
        from ragtui.cli.judge_batch import run_batch

        return run_batch(args, raw, gold, settings, out)
    if settings.provider == "lexical" and args.repeat > 1:
        raise InputError(problem("command line", None, "--repeat", "the lexical judge gives the same verdicts every time: repetitions would measure nothing"))
    progress = None if args.quiet else Progress(len(raw.records) * args.repeat, sys.stderr)

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        try:  # SIGTERM (a CI timeout, `kill`) stops like Ctrl-C: pending cache writes finish
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        return await judge_run(raw, settings, gold=gold, progress=progress, repeat=args.repeat, retry_errors=args.retry_errors)

    from ragtui.core.judge.client import CallError

    try:
        with _judge_logging(args.verbose):
            result = asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        where = f" (calls made so far are cached in {settings.cache_dir})" if settings.cache_dir else ""
        say(f"ragtui: interrupted{where}; {out} not written — rerun the same command to resume")
        return 130
    except CallError as exc:
        say(f"ragtui: judge stopped: {exc}; {out} not written")
        return 2
    for message in result.warnings:
        say(f"ragtui: warning: {message}")
    with output_stream(args.output) as handle:
        write_run_lines(handle, result.meta, result.records)
    _print_summary(result, settings, out)
    return 0


def _check_repeat(args: argparse.Namespace) -> None:
    """--repeat works through the interactive calls only (a batch run judges each answer once)."""
    from ragtui.core.errors import InputError, problem

    if args.repeat > 1 and args.batch:
        raise InputError(problem("command line", None, "--repeat", "--repeat judges through interactive calls: drop --batch (or judge once with --batch, then repeat without it)"))


def _noise_line(records: list[dict]) -> str | None:
    """`ragtui: 3 repetitions of 40 answers: faithfulness 4.0 % flip (…)` from the judged records."""
    from ragtui.core.calibration_words import noise_text
    from ragtui.core.measuring.judge_noise import noise_of_judge, summarize

    found = {}
    for record in records:
        noise = noise_of_judge(record.get("judge") or {})
        if noise is not None:
            found[str(record.get("id"))] = noise
    run = summarize(found)
    if run is None:
        return None
    rates = [(metric, rate.flipped, rate.units) for metric, rate in (("faithfulness", run.faithfulness), ("utility", run.utility))]
    return "ragtui: " + noise_text(run.repeats, run.answers, rates, len(run.unstable_ids), run.left_out)
