"""`ragtui judge RUN --print-prompt ID`: the exact prompt one question would be judged with.

Nothing is called and nothing is written: the messages are rendered as `ragtui judge`
renders them — fenced tags, neutralised answer and passages — and printed on stdout,
themselves neutralised for the terminal (a passage cannot send escape sequences to it).
When the run's call cache already holds a nonce seed (`-o OUT` or `--cache DIR`), the
prompt is byte for byte the one a run with that cache sends; otherwise its nonce is drawn
for this display only, and the header says so.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ragtui.cli.messages import say


def _settings(args: argparse.Namespace, run_meta: dict[str, Any]):
    """The judge settings that shape the prompt (no model or key needed to print it)."""
    from ragtui.core.judge.settings import JudgeSettings

    meta_k = run_meta.get("k") if isinstance(run_meta.get("k"), int) else None
    settings = JudgeSettings.from_config(args.config, lang=args.lang, prompts=args.prompts, cache=args.cache, k=args.k or meta_k)
    if settings.cache_dir is None and args.output and not args.no_cache:
        settings = settings.replace(cache_dir=Path(str(args.output) + ".cache"))
    return settings


def print_prompt(args: argparse.Namespace, raw, gold: dict[str, dict]) -> int:
    """Print the prompt for question `args.print_prompt` of `raw`. Exit 0, or 2 when it cannot be built."""
    from ragtui.core.errors import InputError, problem
    from ragtui.core.judge.fencing import NonceSource, read_seed
    from ragtui.core.judge.inputs import build_inputs
    from ragtui.core.judge.judging import prompt_messages
    from ragtui.core.judge.prompts import load_prompts
    from ragtui.core.judge_directed import LABEL, MARK, question_flags
    from ragtui.core.sanitize import neutralize

    wanted = str(args.print_prompt)
    record = next((r for r in raw.records if str(r.get("id")) == wanted), None)
    if record is None:
        raise InputError(problem(raw.path, None, "id", f"no question with id '{neutralize(wanted, keep_newlines=False)}' in this run"))
    settings = _settings(args, raw.meta)
    inputs = build_inputs(record, settings.k, gold.get(wanted))
    if inputs.problem:
        say(f"ragtui: {wanted} cannot be judged: {inputs.problem}")
        return 2
    prompts = load_prompts(settings.lang, settings.prompts_dir)
    seed = read_seed(settings.cache_dir) if settings.cache_dir is not None and not args.no_cache else None
    messages = prompt_messages(prompts, inputs, NonceSource(seed))
    origin = f"the nonce of a run cached in {settings.cache_dir}" if seed else "nonce drawn for this display; a run draws its own"
    lines = [f"# prompt for {neutralize(wanted, keep_newlines=False)} · {prompts.version} · {origin}"]
    flags = question_flags(inputs.answer, [(p.id, p.text) for p in inputs.passages])
    if flags:
        lines.append(f"# {MARK} {LABEL}: {flags.describe()}")
    for message in messages:
        lines += [f"## {message['role']}", message["content"], ""]
    sys.stdout.write(neutralize("\n".join(lines)))
    return 0
