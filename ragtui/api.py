"""ragtui from Python (a notebook, a pytest test): `evaluate` a system, `compare` two runs.

    import ragtui
    from my_rag import chercher, repondre

    baseline = ragtui.evaluate("gold.yaml", retriever=chercher, generator=repondre, k=5, output="k5.jsonl")
    wider = ragtui.evaluate("gold.yaml", retriever=chercher, generator=repondre, k=20, output="k20.jsonl")
    result = ragtui.compare(baseline, wider, gold="gold.yaml")
    recall = result.metrics["recall@5"]
    print(recall.a.value, recall.b.value, recall.delta, recall.ci, recall.verdict)
    assert result.runs["B"].counts.system_errors == 0

Both run the code of the command line: `evaluate` is `ragtui run` (same records, same
resumability: an existing `output` is resumed), `compare` is `ragtui report`'s
comparison. Functions may be given as objects or as `"FILE.py:name"` strings; sync or
async. Problems raise `ragtui.core.errors.InputError`, listing each one.
"""

from __future__ import annotations

import inspect
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragtui.core.comparing.result import Comparison
from ragtui.core.errors import InputError, problem
from ragtui.core.loading.config import DEFAULT_K, load_config
from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.runs import Run, load_run
from ragtui.core.running.callables import ROLES, CallableSystem, LoadedFunction, load_function
from ragtui.core.running.start import run_gold_set
from ragtui.core.session import load_comparison

__all__ = ["compare", "evaluate"]

Function = Callable[..., Any] | str


def _function(value: Function | None, role: str) -> LoadedFunction | None:
    if value is None:
        return None
    if isinstance(value, str):
        return load_function(value, role)
    option, parameters, _ = ROLES[role]
    name = getattr(value, "__qualname__", repr(value))
    try:
        inspect.signature(value).bind(None, None)
    except TypeError:
        raise InputError(problem(role, None, name, f"wrong signature: it is called as {name}{parameters}")) from None
    except ValueError:
        pass
    source = inspect.getsourcefile(value) if inspect.isfunction(value) else None
    is_async = inspect.iscoroutinefunction(value)
    return LoadedFunction(value, name, is_async, Path(source) if source else None)


def evaluate(
    gold: str | Path,
    *,
    retriever: Function | None = None,
    generator: Function | None = None,
    system: Function | None = None,
    k: int | None = None,
    output: str | Path | None = None,
    name: str | None = None,
    config: str | Path | None = None,
    concurrency: int = 4,
    rerun_errors: bool = False,
) -> Run:
    """Ask the system every question of `gold` and return the run, as `ragtui run` writes it.

    Args:
        gold: The gold set.
        retriever: `chercher(question, k) -> [{id, text, score}]`, with `generator`.
        generator: `repondre(question, passages) -> str | {answer, tokens_in, tokens_out, cost_usd}`.
        system: `answer(question, k) -> {passages, answer}`, instead of the two above.
        k: Passages asked of the retriever (else the config's k, else 5).
        output: The run file (.jsonl), resumed when it exists; default a new file in a
            temporary folder (kept: it is the returned run's `path`).
        name: The run's name (default: the file name).
        config: ragtui.yaml (else ./ragtui.yaml if present).
        concurrency: Questions asked at once (sync functions run in threads).
        rerun_errors: Ask again the questions `output` records with a system error.

    Raises:
        InputError: unusable input, a function that does not load, or a first call that fails.
    """
    settings = load_config(config)
    k = k if k is not None else (settings.k if settings.k is not None else DEFAULT_K)
    chosen = CallableSystem(system=_function(system, "system"), retriever=_function(retriever, "retriever"), generator=_function(generator, "generator"))
    out = Path(output) if output is not None else Path(tempfile.mkdtemp(prefix="ragtui-run-")) / "run.jsonl"
    result = run_gold_set(Path(gold), chosen, out, settings, k=k, name=name, concurrency=concurrency, rerun_errors=rerun_errors, check_first_call=True)
    if result.totals.stopped is not None:
        raise InputError(problem(out, None, None, f"the run stopped: {result.totals.stopped}"))
    return load_run(out)


def compare(a: Run | str | Path, b: Run | str | Path | None = None, *, gold: str | Path | None = None, config: str | Path | None = None, k: int | None = None) -> Comparison:
    """B against A (or A alone), as `ragtui report` computes it: metrics, Δ, intervals, verdicts, counts."""

    def path_of(run: Run | str | Path) -> Path:
        if isinstance(run, Run):
            if not isinstance(run.path, Path):
                raise InputError(problem(str(run.path), None, None, "compare runs from local files"))
            return run.path
        return Path(run)

    inputs = Inputs(
        a=path_of(a),
        b=None if b is None else path_of(b),
        gold=None if gold is None else Path(gold),
        config=None if config is None else Path(config),
        k=k,
    )
    return load_comparison(inputs)
