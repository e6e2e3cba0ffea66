"""Judge trust: how the judge agrees with people, and how far off it is, per run.

Labels come from the run's own `human` objects and from the labels sidecar
(`ragtui.core.loading.labels`). Agreement, Cohen's κ and the judge × person confusion matrix use
every label; the judge's bias — mean(judge − person) with its interval — only the labels
drawn from the random calibration queue (`sampled`), because labels chosen by looking at
failures say nothing about the judge on the run as a whole. A good judge reaches about
85 % raw agreement; κ corrects for chance agreement.
"""

from __future__ import annotations

import polars as pl

from ragtui.core.loading.labels import RunLabels, from_run
from ragtui.core.loading.schema import UNCATEGORIZED
from ragtui.core.measuring.label_values import Agreement, Calibration
from ragtui.core.measuring.ppi import clustered_mean

CONFUSION_CELLS = ("judge_yes_person_yes", "judge_yes_person_no", "judge_no_person_yes", "judge_no_person_no")


def cohen_kappa(judge: list[bool] | pl.Series, human: list[bool] | pl.Series) -> float | None:
    """Cohen's κ for two binary raters; None when undefined (no pairs, or chance = 1)."""
    j = pl.Series(judge, dtype=pl.Boolean).to_numpy().astype(float)
    h = pl.Series(human, dtype=pl.Boolean).to_numpy().astype(float)
    if j.size == 0:
        return None
    observed = float((j == h).mean())
    pj, ph = float(j.mean()), float(h.mean())
    expected = pj * ph + (1 - pj) * (1 - ph)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _mean(values: pl.Series) -> float:
    return float(values.cast(pl.Float64).to_numpy().mean())


def _judged(questions: pl.DataFrame) -> pl.Expr:
    """The faithfulness population: answers with a verdict on at least one sentence."""
    if "judged" in questions.columns:
        return pl.col("judged").fill_null(False)
    return (
        pl.col("judge_present").fill_null(False)
        & pl.col("judge_error").is_null()
        & (pl.col("judge_sentences").list.len() > 0).fill_null(False)
    )


def _category(questions: pl.DataFrame) -> pl.Expr:
    return pl.col("category").fill_null(UNCATEGORIZED) if "category" in questions.columns else pl.lit(UNCATEGORIZED)


def sentence_units(questions: pl.DataFrame) -> pl.DataFrame:
    """One row per judged sentence: id, category, sentence (index), judge (attested)."""
    return (
        questions.lazy()  # the filter then copies only the columns selected
        .filter(_judged(questions))
        .select(
            "id",
            _category(questions).alias("category"),
            pl.col("judge_sentences").list.eval(pl.element().struct.field("attested")).alias("judge"),
        )
        .with_columns(pl.int_ranges(pl.col("judge").list.len()).alias("sentence"))
        .explode("judge", "sentence")
        .with_columns(pl.col("judge").fill_null(False), pl.col("sentence").cast(pl.Int64))
        .collect()
    )


def utility_units(questions: pl.DataFrame) -> pl.DataFrame:
    """One row per answer the judge scored: id, category, judge (utility)."""
    if "utility_q" in questions.columns:
        judge = pl.col("utility_q")
    else:
        judge = pl.when(pl.col("judge_present").fill_null(False) & pl.col("judge_error").is_null()).then(pl.col("judge_utility"))
    return questions.select("id", _category(questions).alias("category"), judge.cast(pl.Float64).alias("judge")).drop_nulls("judge")


def labelled_sentences(questions: pl.DataFrame, labels: RunLabels) -> pl.DataFrame:
    """Judged sentences joined to their person label: id, category, sentence, judge, human, sampled."""
    return sentence_units(questions).join(labels.sentence_frame(), on=["id", "sentence"], how="inner")


def labelled_utility(questions: pl.DataFrame, labels: RunLabels) -> pl.DataFrame:
    return utility_units(questions).join(labels.utility_frame(), on="id", how="inner")


def _agreement(pairs: pl.DataFrame) -> Agreement:
    if pairs.height == 0:
        return Agreement(0, None, None)
    judge, human = pairs.get_column("judge"), pairs.get_column("human")
    return Agreement(pairs.height, _mean(judge == human), cohen_kappa(judge, human))


def _confusion(pairs: pl.DataFrame) -> dict[str, int]:
    j, h = pl.col("judge"), pl.col("human")
    row = pairs.select(
        (j & h).sum().alias(CONFUSION_CELLS[0]),
        (j & ~h).sum().alias(CONFUSION_CELLS[1]),
        (~j & h).sum().alias(CONFUSION_CELLS[2]),
        (~j & ~h).sum().alias(CONFUSION_CELLS[3]),
    ).row(0, named=True)
    return {key: int(value or 0) for key, value in row.items()}


def calibrate(questions: pl.DataFrame, labels: RunLabels | None = None, *, confidence: float = 0.95) -> Calibration | None:
    """Agreement and bias on a per-question frame; None without any label.

    Args:
        questions: an Evaluation's frame (or any frame with id and judge_* columns).
        labels: the run's labels; by default those inside the run (`human` objects).
        confidence: of the bias intervals.
    """
    labels = labels if labels is not None else from_run("", questions)
    total = labels.count()
    if total == 0 and not labels.misaligned:
        return None  # before every judged sentence is unfolded to be matched with none
    sentences = labelled_sentences(questions, labels)
    utility = labelled_utility(questions, labels)
    diff = (utility.get_column("judge") - utility.get_column("human")).abs()
    sampled = sentences.filter(pl.col("sampled"))
    sampled_utility = utility.filter(pl.col("sampled"))
    by_category = {
        category: _agreement(group)
        for (category,), group in sentences.group_by("category", maintain_order=True)
    }
    overall = _agreement(sentences)
    return Calibration(
        answers=pl.concat([sentences.select("id"), utility.select("id")]).n_unique(),
        sentences=overall.sentences,
        sentence_agreement=overall.agreement,
        sentence_kappa=overall.kappa,
        misaligned_answers=labels.misaligned,
        utility_pairs=utility.height,
        utility_exact=_mean(diff == 0) if utility.height else None,
        utility_within_one=_mean(diff <= 1) if utility.height else None,
        utility_mean_abs_diff=_mean(diff) if utility.height else None,
        labels=total,
        labels_sampled=labels.count(sampled_only=True),
        unmatched_labels=total - sentences.height - utility.height,
        by_category=dict(sorted(by_category.items())),
        confusion=_confusion(sentences),
        faithfulness_bias=clustered_mean(
            (sampled.get_column("judge").cast(pl.Float64) - sampled.get_column("human").cast(pl.Float64)).to_numpy(),
            sampled.get_column("id").to_numpy(),
            confidence=confidence,
        ),
        utility_bias=clustered_mean(
            (sampled_utility.get_column("judge") - sampled_utility.get_column("human")).to_numpy(),
            sampled_utility.get_column("id").to_numpy(),
            confidence=confidence,
        ),
    )
