"""Join a run to its gold set and compute every per-question outcome.

The result, `Evaluation.questions`, has one row per gold question (missing ones
included and flagged) with the retrieval outcomes at k, abstention, the judge's counts,
and the failure kinds of docs/metrics.md. Aggregates (`metrics`) and the comparison of two
runs (`compare`) are computed from these columns only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.config import DEFAULT_K, Config
from ragtui.core.loading.gold import GoldSet
from ragtui.core.loading.run import Run
from ragtui.core.loading.schema import GOLD_FIELDS, UNCATEGORIZED
from ragtui.core.measuring.clusters import with_clusters
from ragtui.core.measuring.retrieval import RETRIEVAL_COLUMNS, retrieval_outcomes, sorted_ids
from ragtui.core.measuring.textnorm import contains_any_phrase

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.judge_directed import RunFlags

FAILURE_KINDS = (
    "retrieval_miss",
    "unfaithful",
    "answered_unanswerable",
    "false_abstention",
    "low_utility",
    "system_error",
    "judge_error",
    "missing",
)


@dataclass(frozen=True)
class Evaluation:
    """One run measured against the gold set at cut-off k."""

    run: Run
    k: int
    questions: pl.DataFrame
    extra_ids: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    utility_target: float = 4.0
    # What named the questions' documents (measuring/clusters.py); empty: each question stands alone.
    clustered_by: tuple[str, ...] = ()

    @property
    def judge_directed(self) -> RunFlags:
        """What addresses the judge in this run (judge_directed.py): counts and question ids.

        Read once per evaluation and kept in its own `__dict__`: a scan of every answer and
        passage (`judge_directed_of` reads several evaluations' in one scan).
        """
        return judge_directed_of([self])[0]

    @property
    def missing_ids(self) -> list[str]:
        return self.questions.filter(~pl.col("present")).get_column("id").to_list()

    def question(self, question_id: str, *, texts: bool = True) -> dict | None:
        """One question's row as a dict (for the question view), or None.

        Its texts (passages, sentences, reasons) come from the run cache or the run file
        when the run was opened lean (`Run.texts_of`); `texts_error` says why when they
        cannot be read. `texts=False`: the frame's row as it is, without reading them.
        """
        rows = self.questions.filter(pl.col("id") == question_id)
        if not rows.height:
            return None
        row = rows.row(0, named=True)
        if texts and self.run.texts is not None and row.get("present", True):
            try:
                row.update(self.run.texts_of(question_id) or {})
            except OSError as exc:
                row["texts_error"] = f"the texts of this run cannot be read again ({exc}): reopen it to see them"
        return row


def judge_directed_of(evaluations: Sequence[Evaluation]) -> list[RunFlags]:
    """Each evaluation's `judge_directed`, the ones not read yet in one scan of their texts
    (`judge_directed.runs_flags`: the rules' patterns compiled once for all runs)."""
    missing = [evaluation for evaluation in evaluations if "_judge_directed" not in evaluation.__dict__]
    if missing:
        from ragtui.core.judge_directed import runs_flags

        for evaluation, flags in zip(missing, runs_flags([evaluation.questions for evaluation in missing]), strict=True):
            evaluation.__dict__["_judge_directed"] = flags
    return [evaluation.__dict__["_judge_directed"] for evaluation in evaluations]


def _join_gold(run: Run, gold: GoldSet | None) -> tuple[pl.DataFrame, tuple[str, ...], list[str]]:
    """Gold questions with the run's columns; (frame, extra run ids, warnings)."""
    frame = run.frame
    if gold is None:
        return frame.with_columns(present=pl.lit(True)), (), []
    gold_frame = gold.frame.drop("line")
    warnings = []
    run_gold = frame.select("id", *[pl.col(c).alias(f"_run_{c}") for c in GOLD_FIELDS])
    run_side = frame.drop(*GOLD_FIELDS).with_columns(present=pl.lit(True))
    # A run made from the gold set holds its ids in its order: every join below is then the
    # two frames side by side (the gold set's ids are unique: its loaders refuse a repeat).
    aligned = _aligned(gold_frame, run_side)
    compared = gold_frame.hstack(run_gold.drop("id").get_columns()) if aligned else gold_frame.join(run_gold, on="id", how="inner")
    # One query counts every field's conflicts as given; lists of ids that differ are looked at again.
    counted = compared.select(_conflicts(name).sum().alias(name) for name in GOLD_FIELDS).row(0, named=True)
    if counted["gold_passages"]:
        counted["gold_passages"] = _reordered_conflicts(compared.filter(_conflicts("gold_passages")))
    for name in GOLD_FIELDS:
        conflicts = int(counted[name])
        if conflicts:
            warnings.append(f"{run.name}: {conflicts} question(s) give a {name} that differs from the gold set; the gold set wins")
    if aligned:
        joined, extra = gold_frame.hstack(run_side.drop("id").get_columns()), []
    else:
        joined = gold_frame.join(run_side, on="id", how="left", maintain_order="left").with_columns(pl.col("present").fill_null(False))
        extra = run.frame.join(gold_frame.select("id"), on="id", how="anti").get_column("id").to_list()
    if extra:
        warnings.append(f"{run.name}: {len(extra)} question(s) not in the gold set, kept out of the metrics")
    missing = joined.filter(~pl.col("present")).height
    if missing == joined.height:
        raise InputError(problem(run.path, None, "id", f"no question in common with the gold set {gold.path}: is it the right gold set?"))
    if missing:
        warnings.append(f"{run.name}: {missing} question(s) missing, counted as failures")
    return joined, tuple(extra), warnings


def _aligned(gold_frame: pl.DataFrame, run_side: pl.DataFrame) -> bool:
    """Whether the run's rows are the gold questions', one each, in the gold set's order,
    with no column named like one of the gold set's but the id."""
    overlap = (set(gold_frame.columns) & set(run_side.columns)) - {"id"}
    return not overlap and gold_frame.get_column("id").equals(run_side.get_column("id"))


def _conflicts(name: str) -> pl.Expr:
    """Whether a question gives a `name` of its own that differs from the gold set's, as given."""
    given, wanted = pl.col(f"_run_{name}"), pl.col(name)
    return given.is_not_null() & (given != wanted).fill_null(True)


def _reordered_conflicts(differing: pl.DataFrame) -> int:
    """How many of the questions whose gold passages differ as given differ in more than
    their order. Only those are sorted, and only when there are some: two equal lists sort
    equal, and sorting every list was most of the count."""
    given, wanted = sorted_ids(pl.col("_run_gold_passages")), sorted_ids(pl.col("gold_passages"))
    return int(differing.select((given != wanted).fill_null(True).sum()).item())


def _no_relevant_topics_warning(run: Run, frame: pl.DataFrame, trec_denominator: bool) -> list[str]:
    """What a qrels topic without a relevant document does to the retrieval means, said either way."""
    empty = frame.filter(pl.col("present") & (pl.col("gold_passages").list.len() == 0)).get_column("id").to_list()
    if not empty:
        return []
    shown = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
    count = f"{len(empty)} topic(s) of the qrels have no relevant document ({shown})"
    if trec_denominator:
        return [f"{run.name}: {count}: each scores 0 in the retrieval means, as trec_eval counts it (--trec-denominator)"]
    return [
        f"{run.name}: {count}: ragtui reads them as unanswerable and leaves them out of the retrieval means, "
        "while trec_eval averages them in as 0 — --trec-denominator counts them as trec_eval does"
    ]


def evaluate(
    run: Run, gold: GoldSet | None, config: Config, k: int | None = None, *,
    trec_denominator: bool = False, passage_documents: dict[str, str] | None = None,
) -> Evaluation:
    """Measure `run` against `gold` (else the gold fields in the run) at cut-off k.

    `trec_denominator`: with a gold set read from TREC qrels, a topic judged with no relevant
    document scores 0 in the retrieval means, as trec_eval counts it, instead of being left out.
    `passage_documents` (passage id → document, from `--corpus`) names the document of a
    question the gold set does not place (measuring/clusters.py).
    """
    k = k if k is not None else (config.k or DEFAULT_K)
    frame, extra, warnings = _join_gold(run, gold)
    frame, clustered_by = with_clusters(frame, passage_documents, config.cluster_pattern)
    trec_denominator = trec_denominator and gold is not None and gold.from_qrels
    if gold is not None and gold.from_qrels:
        warnings += _no_relevant_topics_warning(run, frame, trec_denominator)
    if gold is None and frame.get_column("gold_passages").null_count() == frame.height:
        warnings.append(f"{run.name}: no gold passages (give --gold): retrieval metrics are not available")
    phrases = run.meta.fallback_phrases or config.fallback_phrases
    unavailable = unavailable_parts(run)
    for part in sorted(unavailable):
        warnings.append(f"{run.name}: {UNAVAILABLE_TEXT[part]}")
    # Which questions are unanswerable is known from the gold set, or from a run's own
    # category or gold passages; without either, abstention cannot be told right from wrong.
    frame = frame.with_columns(
        answerability_known=pl.col("gold_passages").is_not_null() | pl.col("category").is_not_null(),
        category=pl.col("category").fill_null(UNCATEGORIZED),
    )
    unknown = frame.select((~pl.col("answerability_known")).sum()).item()
    if unknown:
        what = "are not available" if unknown == frame.height else f"leave out the {unknown} question(s) with neither"
        warnings.append(
            f"{run.name}: no gold set, category or gold passages tells which questions are unanswerable: "
            f"abstention and false abstention {what} (give --gold)"
        )
    ids = pl.col("retrieved_ids")
    repeated = frame.lazy().filter(ids.list.n_unique() < ids.list.len()).select("id").collect().get_column("id").to_list()
    if repeated:
        shown = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more" if len(repeated) > 5 else "")
        warnings.append(
            f"{run.name}: {len(repeated)} question(s) list a passage twice in `retrieved` ({shown}): each counts once, "
            "at its first rank (trec_eval refuses such runs)"
        )
    frame = retrieval_outcomes(frame, k, grades=gold.grades if gold is not None else None, empty_gold_scores_zero=trec_denominator)
    if "retrieval" in unavailable:
        frame = frame.with_columns(
            pl.lit(None, dtype=frame.schema[name]).alias(name) for name in RETRIEVAL_COLUMNS if name != "n_gold"
        )
    utility_in_run = frame.get_column("judge_utility").is_not_null().any()
    # The phrases looked for once, in a column: polars runs a Python-made column
    # (`contains_any_phrase`) once for each expression that uses it.
    frame = frame.with_columns(contains_any_phrase(pl.col("answer"), phrases).alias(_PHRASE_FOUND))
    frame = frame.with_columns(_outcomes(unavailable, config.unanswerable_categories, utility_in_run, not trec_denominator)).drop(_PHRASE_FOUND)
    frame = frame.with_columns(_failure_kinds(config.utility_target))
    frame = frame.with_columns(failures=_failure_list()).with_columns(failed=pl.col("failures").list.len() > 0)
    return Evaluation(
        run=run,
        k=k,
        questions=frame,
        extra_ids=extra,
        warnings=tuple(warnings),
        utility_target=config.utility_target,
        clustered_by=clustered_by,
    )


UNAVAILABLE_TEXT = {
    "retrieval": "retrieved passages are missing or have made-up ids: retrieval metrics are not available",
    "answer": "the file has no answers: abstention metrics are not available",
    "judge": "the file has no judge verdicts: faithfulness and utility are not available (run `ragtui judge`)",
}


def unavailable_parts(run: Run) -> set[str]:
    """What an imported file lacks ("retrieval", "answer", "judge"): shown as not available."""
    imported = run.meta.extra.get("imported_from")
    lacking = set(imported.get("not_available", [])) if isinstance(imported, dict) else set()
    parts = set()
    if "retrieved" in lacking or run.meta.extra.get("retrieval_ids") in ("positional", "mixed"):
        parts.add("retrieval")
    if "answer" in lacking:
        parts.add("answer")
    if "judge" in lacking:
        parts.add("judge")
    return parts


_PHRASE_FOUND = "_abstention_phrase_found"


def _outcomes(
    unavailable: set[str],
    unanswerable_categories: tuple[str, ...],
    utility_in_run: bool,
    empty_gold_unanswerable: bool = True,
) -> list[pl.Expr]:
    present = pl.col("present")
    # A system error (the record's `error`) measures nothing: it leaves every population
    # (retrieval, abstention, the judge's) and is a failure of its own, never averaged.
    system_failed = present & pl.col("system_error").is_not_null()
    answer_known = pl.lit("answer" not in unavailable) & ~system_failed
    answer = pl.col("answer")
    detected = pl.col(_PHRASE_FOUND).fill_null(False)
    abstained = present & pl.coalesce(pl.col("abstained_given"), detected)
    sentences = pl.col("judge_sentences")
    n_sentences = sentences.list.len().fill_null(0)
    n_attested = sentences.list.eval(pl.element().struct.field("attested").cast(pl.Int64)).list.sum().fill_null(0)
    judge_ok = present & ~system_failed & pl.col("judge_present") & pl.col("judge_error").is_null()
    needs_verdict = present & answer.is_not_null() & ~abstained
    judged = needs_verdict & judge_ok & (n_sentences > 0)
    # A verdict without a utility score, in a run whose verdicts score utility, is an error
    # too: counted, never dropped silently from the mean.
    no_utility = judge_ok & pl.col("judge_utility").is_null() & pl.lit(utility_in_run)
    judge_failed = present & ~system_failed & (pl.col("judge_error").is_not_null() | (needs_verdict & ~judged) | no_utility)
    if "judge" in unavailable:
        judge_failed = pl.lit(False)
    category = pl.col("category")
    gold = pl.col("gold_passages")
    no_gold = (gold.list.len() == 0).fill_null(False) & pl.lit(empty_gold_unanswerable)
    unanswerable = category.is_in(list(unanswerable_categories)).fill_null(False) | no_gold
    return [
        unanswerable.alias("unanswerable"),
        (~unanswerable).alias("answerable"),
        answer_known.alias("answer_known"),
        system_failed.alias("system_failed"),
        (gold.is_not_null() & pl.lit("retrieval" not in unavailable) & ~system_failed).alias("gold_known"),
        pl.when(answer_known).then(abstained).alias("abstained"),
        judged.alias("judged"),
        judge_failed.alias("judge_failed"),
        pl.when(judged).then(n_sentences).alias("n_sentences"),
        pl.when(judged).then(n_attested).alias("n_attested"),
        pl.when(judged).then(n_attested / n_sentences).alias("faithfulness_q"),
        # A judge error never enters a mean: its utility score (if any) is left out too.
        pl.when(judge_ok & ~judge_failed).then(pl.col("judge_utility")).alias("utility_q"),
        (present & abstained & answer_known).alias("abstained_excluded"),
        # A missing question fails every measure that counts it: for false abstention, that
        # is counting it as abstained (it gave the user no answer).
        pl.when(answer_known).then(abstained | ~present).alias("abstained_or_missing"),
    ]


def _failure_list() -> pl.Expr:
    """Each question's failure kinds, in FAILURE_KINDS order (an empty list when it passes).

    Joined as text and split: a list of seven `when(…).then(kind)` values with the nulls
    dropped took 3.4 s for 1,000,000 questions, this 0.4 s (docs/performance.md). The
    kinds are identifiers, so a space never splits one.
    """
    joined = pl.concat_str([pl.when(pl.col(f"fail_{kind}")).then(pl.lit(f"{kind} ")).otherwise(pl.lit("")) for kind in FAILURE_KINDS])
    split = joined.str.strip_suffix(" ").str.split(" ")
    return pl.when(joined == "").then(pl.lit([], dtype=pl.List(pl.String))).otherwise(split)


def _failure_kinds(utility_target: float) -> list[pl.Expr]:
    present = pl.col("present")
    return [
        (pl.col("answerable") & pl.col("gold_known") & (pl.col("hit_at_k") == 0).fill_null(False)).alias("fail_retrieval_miss"),
        (pl.col("judged") & (pl.col("n_attested") < pl.col("n_sentences"))).fill_null(False).alias("fail_unfaithful"),
        (present & pl.col("unanswerable") & ~pl.col("abstained")).fill_null(False).alias("fail_answered_unanswerable"),
        (present & pl.col("answerable") & pl.col("answerability_known") & pl.col("abstained")).fill_null(False).alias("fail_false_abstention"),
        (pl.col("utility_q") < utility_target).fill_null(False).alias("fail_low_utility"),
        pl.col("system_failed").alias("fail_system_error"),
        pl.col("judge_failed").alias("fail_judge_error"),
        (~present).alias("fail_missing"),
    ]

