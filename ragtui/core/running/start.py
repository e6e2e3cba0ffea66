"""From a gold set and a system to a run file: the one path `ragtui run` and `ragtui.evaluate` share.

`run_gold_set` loads the gold set, writes the metadata of a new run (or resumes the one
at `out`) and asks the questions through `runner.run_system`. It is synchronous: from a
running event loop (a notebook) it runs in a thread of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.config import Config
from ragtui.core.loading.gold import load_gold
from ragtui.core.running.metadata import run_metadata
from ragtui.core.running.runner import GoldQuestion, ProgressSink, RunResult, RunSettings, System, run_system

T = TypeVar("T")


def gold_questions(gold_path: Path) -> list[GoldQuestion]:
    """The questions of a gold set, in its order. Raises InputError."""
    frame = load_gold(gold_path).frame
    questions = []
    for question_id, question, category in frame.select("id", "question", "category").iter_rows():
        if question is None:
            raise InputError(problem(gold_path, None, "question", f"question {question_id} has no text to ask"))
        questions.append(GoldQuestion(str(question_id), str(question), None if category is None else str(category)))
    return questions


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, or the same in a thread when an event loop already runs here (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def run_gold_set_async(
    gold_path: Path,
    system: System,
    out: Path,
    config: Config,
    *,
    k: int,
    name: str | None = None,
    concurrency: int = 4,
    rerun_errors: bool = False,
    check_first_call: bool = False,
    progress: ProgressSink | None = None,
) -> RunResult:
    """Run `system` on every gold question `out` does not hold yet. Raises InputError."""
    questions = gold_questions(gold_path)
    meta = run_metadata(
        name=name if name is not None else out.stem,
        k=k,
        gold_path=gold_path,
        system=system.description,
        fallback_phrases=config.fallback_phrases,
        sources=system.sources,
    )
    settings = RunSettings(k=k, concurrency=concurrency, rerun_errors=rerun_errors, fallback_phrases=config.fallback_phrases, check_first_call=check_first_call)
    return await run_system(system, questions, out, meta, settings, progress=progress)


def run_gold_set(gold_path: Path, system: System, out: Path, config: Config, **options: Any) -> RunResult:
    """`run_gold_set_async`, from synchronous code."""
    return run_coroutine(run_gold_set_async(gold_path, system, out, config, **options))
