"""One call from file paths to a Comparison: what the CLI and the app both use."""

from __future__ import annotations

from ragtui.core.compare import Comparison, compare
from ragtui.core.config import Config, load_config
from ragtui.core.errors import InputError
from ragtui.core.evaluate import evaluate
from ragtui.core.gold import GoldSet, load_gold
from ragtui.core.inputs import Inputs
from ragtui.core.runs import Run, load_run

__all__ = ["Inputs", "load_comparison", "resolve_k"]


def resolve_k(cli_k: int | None, config: Config, run: Run) -> int:
    """-k wins, then the config file's k, then the run's own k, then 5."""
    if cli_k is not None:
        return cli_k
    if config.path is not None:
        return config.k
    return run.meta.k or config.k


def load_comparison(inputs: Inputs) -> Comparison:
    """Load, validate, measure and compare; raises InputError on unusable input.

    Every input is read before giving up, so one error lists the problems of the config,
    the gold set and both runs together.
    """
    problems: list = []

    def attempt(load, *args, **kwargs):
        try:
            return load(*args, **kwargs)
        except InputError as exc:
            problems.extend(exc.problems)
            return None

    config = attempt(load_config, inputs.config)
    gold: GoldSet | None = attempt(load_gold, inputs.gold) if inputs.gold else None
    questions = gold.question_index() if gold is not None else None
    run_a = attempt(load_run, inputs.a, inputs.fmt, questions, detail=inputs.detail)
    run_b = attempt(load_run, inputs.b, inputs.fmt, questions, detail=inputs.detail) if inputs.b else None
    if problems:
        raise InputError(problems)
    k = resolve_k(inputs.k, config, run_a)
    evaluation_a = evaluate(run_a, gold, config, k)
    evaluation_b = evaluate(run_b, gold, config, k) if run_b is not None else None
    return compare(evaluation_a, evaluation_b, config)
