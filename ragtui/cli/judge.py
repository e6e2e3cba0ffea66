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
from ragtui.cli.judge_summary import print_summary
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
    judge.add_argument(
        "--jury", metavar="M1,M2",
        help="judge with each model in turn (same provider): OUT holds M1's verdicts and every juror's in `jury`, "
        "and each further juror's run is written as OUT.jury-2.jsonl, … (compare them with `ragtui agreement`)",
    )
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
        "model": args.model if args.model is not None or not args.jury else args.jury.split(",")[0].strip(),
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


def run(args: argparse.Namespace) -> int:
    """Judge RUN into OUT. Exit 0 (judge errors are recorded, not fatal), 2 on unusable input."""

    from ragtui.cli.judge_progress import Progress
    from ragtui.cli.output import check_output_path, is_stdout, output_stream
    from ragtui.core.errors import InputError, problem
    from ragtui.core.judge.runner import family_warning
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
    if args.jury:
        return _run_jury(args, raw, gold, settings, out)
    if args.batch:
        from ragtui.cli.judge_batch import run_batch

        return run_batch(args, raw, gold, settings, out)
    if settings.provider == "lexical" and args.repeat > 1:
        raise InputError(problem("command line", None, "--repeat", "the lexical judge gives the same verdicts every time: repetitions would measure nothing"))
    progress = None if args.quiet else Progress(len(raw.records) * args.repeat, sys.stderr)

    result = _judge_once(args, raw, gold, settings, out, progress=progress, repeat=args.repeat)
    if isinstance(result, int):
        return result
    with output_stream(args.output) as handle:
        write_run_lines(handle, result.meta, result.records)
    print_summary(result, settings, out)
    return 0


def _judge_once(args: argparse.Namespace, raw, gold: dict, settings, out: Path, *, progress=None, repeat: int = 1):
    """The run judged once through `settings`; an exit code instead when it was interrupted or stopped."""
    import asyncio
    import signal

    from ragtui.core.judge.client import CallError
    from ragtui.core.judge.runner import judge_run

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        try:  # SIGTERM (a CI timeout, `kill`) stops like Ctrl-C: pending cache writes finish
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        return await judge_run(raw, settings, gold=gold, progress=progress, repeat=repeat, retry_errors=args.retry_errors)

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
    return result


def _jury_problem(args: argparse.Namespace, settings) -> str | None:
    """Why --jury cannot run with these options, or None."""
    from ragtui.cli.output import is_stdout

    if args.model is not None:
        return "--jury names the models: drop --model"
    if args.batch or args.repeat > 1:
        return "--jury judges through interactive calls, once per model: drop --batch and --repeat"
    if settings.provider == "lexical":
        return "the lexical judge is no model: a jury needs two models of a provider"
    if is_stdout(args.output):
        return "a jury writes a file per juror beside OUT: give -o OUT.jsonl, not -"
    return None


def _run_jury(args: argparse.Namespace, raw, gold: dict, settings, out: Path) -> int:
    """`--jury M1,M2`: the run judged by each model in turn; OUT with every juror's verdicts."""

    from ragtui.cli.output import output_stream
    from ragtui.core.errors import InputError, problem
    from ragtui.core.judge.jury import juror_path, jury_models, with_jury
    from ragtui.core.judge.runner import family_warning
    from ragtui.core.loading.records import write_run_lines

    try:
        models = jury_models(args.jury)
    except ValueError as exc:
        raise InputError(problem("command line", None, "--jury", str(exc))) from None
    why = _jury_problem(args, settings)
    if why is not None:
        raise InputError(problem("command line", None, "--jury", why))
    results = []
    for model in models:
        juror = settings.replace(model=model).validated()
        warning = family_warning(raw.meta.get("generator_model"), juror)
        if warning and model != models[0]:  # the first model's warning was said already
            say(f"ragtui: warning: {warning}")
        result = _judge_once(args, raw, gold, juror, out)
        if isinstance(result, int):
            return result
        results.append((juror, result))
    first_settings, first = results[0]
    for position, (juror, result) in enumerate(results[1:], start=2):
        path = juror_path(out, position)
        with output_stream(str(path)) as handle:
            write_run_lines(handle, result.meta, result.records)
        print_summary(result, juror, path)
    with output_stream(args.output) as handle:
        write_run_lines(handle, first.meta, with_jury(first.records, [result.records for _, result in results[1:]]))
    print_summary(first, first_settings, out)
    say(f"ragtui: compare the jurors with: ragtui agreement {out} {juror_path(out, 2)}")
    return 0


def _check_repeat(args: argparse.Namespace) -> None:
    """--repeat works through the interactive calls only (a batch run judges each answer once)."""
    from ragtui.core.errors import InputError, problem

    if args.repeat > 1 and args.batch:
        raise InputError(problem("command line", None, "--repeat", "--repeat judges through interactive calls: drop --batch (or judge once with --batch, then repeat without it)"))
