"""One call from file paths to a Comparison: what the CLI and the app both use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragtui.core.comparing.compare import Comparison, compare
from ragtui.core.errors import InputError
from ragtui.core.loading.config import DEFAULT_K, Config, load_config
from ragtui.core.loading.corpus import load_corpus
from ragtui.core.loading.gold import GoldSet, load_gold
from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.labels import load_labels
from ragtui.core.loading.remote import RemoteLocation
from ragtui.core.loading.run import Run
from ragtui.core.loading.run_cache import RunCache
from ragtui.core.loading.run_process import PROCESSES_FROM_BYTES, ProcessParse, worth_processes
from ragtui.core.loading.runs import load_run, needs_no_gold
from ragtui.core.loading.schema import UNCATEGORIZED
from ragtui.core.measuring.evaluate import Evaluation, evaluate
from ragtui.core.measuring.tool_scores import apply_status_source, resolve_status_source, with_tool_scores
from ragtui.core.side_by_side import side_by_side

__all__ = ["Inputs", "load_comparison", "load_comparisons", "resolve_k"]


def resolve_k(cli_k: int | None, config: Config, run: Run) -> int:
    """-k wins, then the config file's k, then the run's own k, then 5."""
    if cli_k is not None:
        return cli_k
    if config.k is not None:
        return config.k
    return run.meta.k or DEFAULT_K


def _load_runs(
    inputs: Inputs,
    questions: dict[str, str] | None,
    categories: frozenset[str],
    problems: list,
    cache: RunCache | None,
    processes: ProcessParse | None,
) -> tuple[Run | None, Run | None]:
    """Both runs, read side by side — each parsed in a process of its own with `processes`;
    each run's problems are collected, A's first."""

    def load(path, variant):
        try:
            run = load_run(
                path, inputs.fmt, questions, detail=inputs.detail, variant=variant, gold_categories=categories, cache=cache, parse=processes
            )
            return run, []
        except InputError as exc:
            return None, exc.problems

    if inputs.b is None:
        (run_a, found), run_b = load(inputs.a, inputs.variants[0]), None
        problems.extend(found)
        return run_a, run_b
    b = inputs.b
    (run_a, found_a), (run_b, found_b) = side_by_side(lambda: load(inputs.a, inputs.variants[0]), lambda: load(b, inputs.variants[1]), name="ragtui-run-b")
    problems.extend(found_a + found_b)
    return run_a, run_b


def load_comparison(inputs: Inputs, *, intervals: bool = True, processes_from: int = PROCESSES_FROM_BYTES) -> Comparison:
    """Load, validate, measure and compare; raises InputError on unusable input.

    Every input is read before giving up, so one error lists the problems of the config,
    the gold set and both runs together. `intervals=False` leaves the bootstrap intervals
    and what they decide pending (`comparing.intervals.with_intervals` fills them in).
    Two native JSONL runs of at least `processes_from` bytes each are parsed in two
    processes (loading/run_process.py).
    """
    problems: list = []

    def attempt(load, *args, **kwargs):
        try:
            return load(*args, **kwargs)
        except InputError as exc:
            problems.extend(exc.problems)
            return None

    config = attempt(load_config, inputs.config)
    corpus = attempt(load_corpus, inputs.corpus) if inputs.corpus is not None else None
    documents = {pid: p.document for pid, p in corpus.passages.items() if p.document is not None} if corpus is not None else None
    cache = RunCache.default() if inputs.cache else None
    processes = ProcessParse() if worth_processes((inputs.a, inputs.b), processes_from) else None
    if inputs.gold and all(needs_no_gold(run, inputs.fmt) for run in (inputs.a, inputs.b) if run is not None):
        # Native runs load the same without the gold set: it is read beside them.
        run_problems: list = []
        (gold, gold_problems, gold_notes), (run_a, run_b) = side_by_side(
            lambda: _read_gold(inputs, cache), lambda: _load_runs(inputs, None, frozenset(), run_problems, cache, processes), name="ragtui-runs"
        )
        problems += gold_problems + run_problems
    else:
        gold, gold_problems, gold_notes = _read_gold(inputs, cache)
        problems += gold_problems
        questions = gold.question_index() if gold is not None else None
        run_a, run_b = _load_runs(inputs, questions, _known_categories(gold, config or Config()), problems, cache, processes)
    if problems:
        raise InputError(problems)
    assert run_a is not None  # no problem means run A loaded
    if run_b is not None:
        run_a, run_b = distinct_titles(run_a, run_b, inputs.variants)
    k = resolve_k(inputs.k, config, run_a)

    def measure(run: Run) -> Evaluation:
        return with_tool_scores(
            evaluate(run, gold, config, k, trec_denominator=inputs.trec_denominator, passage_documents=documents), config
        )

    if run_b is None:
        evaluations = [measure(run_a)]
    else:
        second = run_b
        evaluations = list(side_by_side(lambda: measure(run_a), lambda: measure(second), name="ragtui-run-b"))
    status_from = resolve_status_source(inputs.status_from, evaluations)
    evaluations = [apply_status_source(evaluation, status_from) for evaluation in evaluations]
    evaluation_a, evaluation_b = evaluations[0], (evaluations[1] if len(evaluations) > 1 else None)
    sides = {"A": evaluation_a, **({"B": evaluation_b} if evaluation_b is not None else {})}
    labels = load_labels(sides, inputs.labels)
    comparison = compare(evaluation_a, evaluation_b, config, labels=labels, status_from=status_from, intervals=intervals)
    # The gold edits applied, labels cut short, stale or for other runs, then what the run cache did: said in every view.
    notes = (*gold_notes, *dict.fromkeys(warning for side in labels.values() for warning in side.warnings()))
    notes += tuple(cache.notes) if cache is not None else ()
    notes += tuple(processes.notes) if processes is not None else ()
    if cache is not None and cache.settle():
        # A run served from its cache entry failed the whole-file check made meanwhile (a
        # rewrite that kept its size, times and sampled blocks): that entry is gone, so
        # this second load parses the file.
        return load_comparison(inputs, intervals=intervals, processes_from=processes_from)
    return replace(comparison, warnings=comparison.warnings + notes) if notes else comparison


def _read_gold(inputs: Inputs, cache: RunCache | None) -> tuple[GoldSet | None, list, list[str]]:
    """The gold set with its edits applied (None without --gold or when unusable), the
    problems that stop the comparison, and the notes said in every view; a JSONL gold set
    is kept in the run `cache` as the runs are."""
    if not inputs.gold:
        return None, [], []
    try:
        gold: GoldSet | None = load_gold(inputs.gold, cache)
    except InputError as exc:
        return None, list(exc.problems), []
    problems: list = []
    notes: list[str] = []
    edits_path = inputs.gold_edits_path()
    named = inputs.gold_edits is not None
    if gold is not None and edits_path is not None and (named or edits_path.is_file()):
        # The edits' module only where there is a log (or a named one to say is missing):
        # without one `with_gold_edits` changes nothing, and its import is ~3 ms of a start.
        from ragtui.core.gold.edits import with_gold_edits

        gold, edit_problems, note = with_gold_edits(gold, edits_path, named=named)
        problems.extend(p for p in edit_problems if p.is_error)
        notes += [str(p) for p in edit_problems if not p.is_error] + ([note] if note else [])
    return gold, problems, notes


def load_comparisons(inputs: Inputs, candidates: list[Path | RemoteLocation]) -> list[Comparison]:
    """Each candidate compared with run A, exactly as B is by `load_comparison` (one engine).

    Every pair is tried before giving up, so one error lists the problems of every run
    (A's and the gold set's once, not once per pair).
    """
    comparisons: list[Comparison] = []
    problems: list = []
    for candidate in candidates:
        try:
            comparisons.append(load_comparison(replace(inputs, b=candidate)))
        except InputError as exc:
            problems.extend(found for found in exc.problems if found not in problems)
    if problems:
        raise InputError(problems)
    return comparisons


def _known_categories(gold: GoldSet | None, config: Config) -> frozenset[str]:
    """The categories a peer tool's tag may name: the gold set's, else the config's."""
    if gold is not None:
        return frozenset(gold.frame.get_column("category").drop_nulls().unique().to_list())
    return frozenset(name for name in config.categories if name != UNCATEGORIZED)


def distinct_titles(run_a: Run, run_b: Run, variants: tuple[int | None, int | None] = (None, None)) -> tuple[Run, Run]:
    """Runs that share a title are told apart by their file names (and variants).

    Two DeepEval runs both named after the test file, or two promptfoo variants of one
    file, would otherwise read "test_rag.py → test_rag.py" everywhere.
    """
    if run_a.name != run_b.name:
        return run_a, run_b
    titles = [run.path.name for run in (run_a, run_b)]
    if titles[0] == titles[1]:
        titles = [str(run.path) for run in (run_a, run_b)]
    if titles[0] == titles[1]:
        titles = [f"{title} (variant {variant})" if variant is not None else title for title, variant in zip(titles, variants, strict=True)]
    if titles[0] == titles[1]:
        titles = [f"{titles[0]} (A)", f"{titles[1]} (B)"]
    return (
        replace(run_a, meta=replace(run_a.meta, name=titles[0])),
        replace(run_b, meta=replace(run_b.meta, name=titles[1])),
    )
