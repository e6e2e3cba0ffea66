"""Judge noise: how often the judge changes its mind when asked again (`ragtui judge --repeat N`).

A run judged N times keeps the first repetition as its verdicts and the others in
`judge.repeats` (loaded as `judge_repeat_attested` / `judge_repeat_utility`). Here:
- a sentence *flips* when the repetitions that judged it do not all agree (attested in
  one, not in another); an answer's utility flips when its scores are not all equal;
- the *flip rate* of a metric is the share of its units that flip, among the units
  judged at least twice: sentences for faithfulness, answers for utility;
- a question has an *unstable verdict* when any of its sentences or its score flips.
A repetition that gave no verdict (a judge error), or verdicts for another number of
sentences, is left out of the comparison and counted, never read as agreement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the judge command reads repetitions from plain records, without polars
    import polars as pl

COLUMNS = ("id", "judge_sentences", "judge_utility", "judge_repeat_attested", "judge_repeat_utility")


@dataclass(frozen=True)
class SentenceVotes:
    """How the repetitions judged one sentence: `attested` of `judged` said it is attested."""

    attested: int
    judged: int

    @property
    def flipped(self) -> bool:
        return 0 < self.attested < self.judged


@dataclass(frozen=True)
class QuestionNoise:
    """One answer's repetitions, compared."""

    repeats: int  # repetitions of this answer, the first included
    sentences: tuple[SentenceVotes, ...]  # one per sentence of the first repetition
    scores: tuple[float, ...]  # every utility score given, the first first
    left_out: int  # repetitions with no usable verdict (error, other sentence count)

    @property
    def flipped_sentences(self) -> int:
        return sum(vote.flipped for vote in self.sentences)

    @property
    def utility_flipped(self) -> bool:
        return len(set(self.scores)) > 1

    @property
    def unstable(self) -> bool:
        return self.flipped_sentences > 0 or self.utility_flipped


@dataclass(frozen=True)
class FlipRate:
    """`flipped` of `units` judged at least twice changed between repetitions."""

    flipped: int
    units: int

    @property
    def value(self) -> float | None:
        return self.flipped / self.units if self.units else None


@dataclass(frozen=True)
class RunNoise:
    """A run's judge noise: flip rates per metric and the questions whose verdict is unstable."""

    repeats: int  # the most repetitions an answer had
    answers: int  # answers judged more than once
    faithfulness: FlipRate
    utility: FlipRate
    unstable_ids: tuple[str, ...]
    left_out: int  # repetitions left out of the comparison


def question_noise(
    first: list[bool] | None, first_score: float | None, repeats: list[list[bool] | None] | None, repeat_scores: list[float | None] | None
) -> QuestionNoise | None:
    """The comparison of one answer's repetitions, or None when it was judged once."""
    if not repeats and not repeat_scores:
        return None
    others = list(repeats or [])
    scores_given = list(repeat_scores or [])
    count = 1 + max(len(others), len(scores_given))
    usable = [verdicts for verdicts in others if first is not None and verdicts is not None and len(verdicts) == len(first)]
    left_out = len(others) - len(usable)
    votes = tuple(
        SentenceVotes(attested=int(verdict) + sum(v[index] for v in usable), judged=1 + len(usable)) for index, verdict in enumerate(first or [])
    )
    scores = tuple(float(s) for s in [first_score, *scores_given] if s is not None)
    return QuestionNoise(repeats=count, sentences=votes, scores=scores, left_out=left_out)


def noise_of_row(row: dict[str, Any]) -> QuestionNoise | None:
    """`question_noise` of one question row (Evaluation.question)."""
    sentences = row.get("judge_sentences")
    first = None if sentences is None else [bool(s["attested"]) for s in sentences]
    return question_noise(first, row.get("judge_utility"), row.get("judge_repeat_attested"), row.get("judge_repeat_utility"))


def noise_of_judge(judge: Mapping[str, Any]) -> QuestionNoise | None:
    """`question_noise` of a `judge` object as `ragtui judge --repeat N` writes it."""

    def attested(verdicts: Mapping[str, Any]) -> list[bool] | None:
        sentences = (verdicts.get("faithfulness") or {}).get("sentences")
        return None if sentences is None else [bool(s.get("attested")) for s in sentences]

    repeats = judge.get("repeats") or []
    return question_noise(
        attested(judge),
        (judge.get("utility") or {}).get("score"),
        [attested(r) for r in repeats],
        [(r.get("utility") or {}).get("score") for r in repeats],
    )


def sentence_repeats(row: Mapping[str, Any], index: int) -> list[bool | None] | None:
    """Each repetition's verdict on sentence `index`, the first first (None where one gave
    none, or judged another number of sentences); None when the answer was judged once."""
    repeats = row.get("judge_repeat_attested")
    sentences = row.get("judge_sentences") or []
    if not repeats or index >= len(sentences):
        return None
    first = sentences[index].get("attested")
    return [first, *[v[index] if v is not None and len(v) == len(sentences) else None for v in repeats]]


def score_repeats(row: Mapping[str, Any]) -> list[float | None] | None:
    """Each repetition's utility score, the first first; None when the answer was judged once."""
    repeats = row.get("judge_repeat_utility")
    return [row.get("judge_utility"), *repeats] if repeats else None


def noise_by_question(questions: pl.DataFrame) -> dict[str, QuestionNoise]:
    """Every question judged more than once, by id (the others are absent)."""
    import polars as pl

    if "judge_repeat_attested" not in questions.columns:
        return {}
    repeated = questions.filter(pl.col("judge_repeat_attested").is_not_null() | pl.col("judge_repeat_utility").is_not_null())
    out: dict[str, QuestionNoise] = {}
    for row in repeated.select(COLUMNS).iter_rows(named=True):
        noise = noise_of_row(row)
        if noise is not None:
            out[row["id"]] = noise
    return out


def run_noise(questions: pl.DataFrame) -> RunNoise | None:
    """The run's flip rates, or None when no answer was judged more than once."""
    return summarize(noise_by_question(questions))


def summarize(found: Mapping[str, QuestionNoise]) -> RunNoise | None:
    """Flip rates over the answers of `found` (by id), or None when it is empty."""
    if not found:
        return None
    noises = found.values()
    sentences = [vote for noise in noises for vote in noise.sentences if vote.judged > 1]
    scored = [noise for noise in noises if len(noise.scores) > 1]
    return RunNoise(
        repeats=max(noise.repeats for noise in noises),
        answers=len(found),
        faithfulness=FlipRate(sum(vote.flipped for vote in sentences), len(sentences)),
        utility=FlipRate(sum(noise.utility_flipped for noise in scored), len(scored)),
        unstable_ids=tuple(qid for qid, noise in found.items() if noise.unstable),
        left_out=sum(noise.left_out for noise in noises),
    )
