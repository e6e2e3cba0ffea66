"""Check a gold set against the course's rules, its corpus and the runs made on it.

What a gold set is made of (`composition`): per category its questions, their share, how
many are answerable, and the smallest drop of a 0/1 metric (recall@k, abstention) that many
questions can detect — ragtui's own power computation (`comparing.power`) for a stated
share of questions changing outcome between two runs. Then what is wrong with it
(`findings`), each with a kind, the question it concerns, a severity and the file and line:

- `too_few_questions` / `too_many_questions`: outside 50–200 questions (warning);
- `unanswerable_share`: outside 20–30 % unanswerable (warning);
- `answerable_without_gold`: an answerable category and no gold passage (error: it would
  be measured as unanswerable);
- `unanswerable_with_gold`: an unanswerable category with gold passages (error);
- `unknown_passage`: a gold passage id absent from the corpus (error);
- `duplicate_question`: the same question up to case, accents, punctuation and spacing
  (warning, both ids named);
- `missing_expected_answer` (warning);
- `never_retrieved`: a gold passage no given run retrieves, for any question, in its top
  100 — the id likely went stale after a re-chunking (warning).

No Textual, no CLI: `ragtui gold check` renders what `check_gold_set` returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ragtui.core.comparing.power import smallest_binary_drop
from ragtui.core.loading.config import Config
from ragtui.core.loading.corpus import Corpus
from ragtui.core.loading.gold import GoldSet
from ragtui.core.measuring.textnorm import normalize_question
from ragtui.core.vocabulary import percent_text

MIN_QUESTIONS, MAX_QUESTIONS = 50, 200
MIN_UNANSWERABLE, MAX_UNANSWERABLE = 0.20, 0.30
# The share of questions assumed to change outcome between two runs, for the detectable
# drop of a gold set on its own (no runs compared yet): two versions of one system
# typically disagree on one question in seven to one in five.
ASSUMED_DISCORDANCE = 0.15
RETRIEVED_DEPTH = 100  # never_retrieved looks this deep into each run's ranking

ERROR, WARNING = "error", "warning"
FINDING_KINDS = (
    "too_few_questions", "too_many_questions", "unanswerable_share", "answerable_without_gold",
    "unanswerable_with_gold", "unknown_passage", "duplicate_question", "missing_expected_answer", "never_retrieved",
)


@dataclass(frozen=True)
class Finding:
    """One thing wrong with the gold set."""

    kind: str
    question: str | None
    severity: str
    message: str
    file: str
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "question": self.question, "severity": self.severity,
                "message": self.message, "file": self.file, "line": self.line}

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.kind}: {'' if self.severity == ERROR else 'warning: '}{self.message}"


@dataclass(frozen=True)
class CategoryMakeup:
    """One category of the gold set."""

    n: int
    share: float
    answerable: int
    unanswerable: int
    detectable_drop: float | None  # the smallest drop its questions detect (0–1), None: none


@dataclass(frozen=True)
class GoldCheck:
    """What `ragtui gold check` reports."""

    questions: int
    unanswerable_share: float
    categories: dict[str, CategoryMakeup]
    tags: dict[str, int]
    findings: list[Finding] = field(default_factory=list)
    detectable_drop: float | None = None  # over the whole set
    confidence: float = 0.95
    runs: int = 0
    corpus_passages: int | None = None

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def to_json(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "unanswerable_share": self.unanswerable_share,
            "detectable_drop": self.detectable_drop,
            "power": {"level": 0.8, "confidence": self.confidence, "assumed_discordance": ASSUMED_DISCORDANCE},
            "categories": {
                name: {"n": c.n, "share": c.share, "answerable": c.answerable, "unanswerable": c.unanswerable,
                       "detectable_drop": c.detectable_drop}
                for name, c in self.categories.items()
            },
            "tags": {tag: {"n": n} for tag, n in self.tags.items()},
            "findings": [f.to_json() for f in self.findings],
        }


def unanswerable_expr(config: Config) -> pl.Expr:
    """A question is unanswerable when its category says so or it has no gold passage (as `evaluate` measures it)."""
    return pl.col("category").is_in(list(config.unanswerable_categories)).fill_null(False) | (
        pl.col("gold_passages").list.len() == 0
    ).fill_null(False)


def tag_counts(gold: GoldSet) -> dict[str, int]:
    """Questions carrying each tag, most frequent first (then by name)."""
    tags = gold.frame.select(pl.col("tags").explode().drop_nulls()).get_column("tags")
    counted = tags.value_counts().sort(["count", "tags"], descending=[True, False])
    return dict(zip(counted.get_column("tags").to_list(), counted.get_column("count").to_list(), strict=True))


def composition(gold: GoldSet, config: Config) -> tuple[dict[str, CategoryMakeup], float]:
    """Per category (in order of first appearance) and the share of unanswerable questions."""
    frame = gold.frame.with_columns(unanswerable_expr(config).alias("_unanswerable"), pl.col("category").fill_null("uncategorized"))
    total = frame.height
    grouped = frame.group_by("category", maintain_order=True).agg(pl.len().alias("n"), pl.col("_unanswerable").sum().alias("u"))
    out = {}
    for category, n, unanswerable in grouped.iter_rows():
        out[str(category)] = CategoryMakeup(
            n, n / total if total else 0.0, n - unanswerable, unanswerable,
            smallest_binary_drop(n, ASSUMED_DISCORDANCE, config.confidence),
        )
    share = float(frame.get_column("_unanswerable").sum()) / total if total else 0.0
    return out, share


def _finding(gold: GoldSet, kind: str, question: str | None, severity: str, message: str, line: int | None) -> Finding:
    return Finding(kind, question, severity, message, str(gold.path), line)


def _size_findings(gold: GoldSet, share: float) -> list[Finding]:
    n = gold.frame.height
    out = []
    if n < MIN_QUESTIONS:
        out.append(_finding(gold, "too_few_questions", None, WARNING, f"{n} questions: the course asks for {MIN_QUESTIONS} to {MAX_QUESTIONS}", None))
    if n > MAX_QUESTIONS:
        out.append(_finding(gold, "too_many_questions", None, WARNING, f"{n} questions: the course asks for {MIN_QUESTIONS} to {MAX_QUESTIONS}", None))
    if not MIN_UNANSWERABLE - 1e-9 <= share <= MAX_UNANSWERABLE + 1e-9:
        out.append(_finding(
            gold, "unanswerable_share", None, WARNING,
            f"{percent_text(share, digits=0)} of the questions are unanswerable: the course asks for "
            f"{percent_text(MIN_UNANSWERABLE, digits=0)} to {percent_text(MAX_UNANSWERABLE, digits=0)}", None,
        ))
    return out


def _question_findings(gold: GoldSet, config: Config, corpus: Corpus | None) -> list[Finding]:
    unanswerable_categories = set(config.unanswerable_categories)
    out = []
    first_of: dict[str, tuple[str, int]] = {}
    for row in gold.frame.iter_rows(named=True):
        qid, line, category, passages = row["id"], row["line"], row["category"], row["gold_passages"] or []
        if category is not None and category not in unanswerable_categories and not passages:
            out.append(_finding(gold, "answerable_without_gold", qid, ERROR,
                                f"'{qid}' is in the answerable category '{category}' but has no gold passage: it would be measured as unanswerable", line))
        if category in unanswerable_categories and passages:
            out.append(_finding(gold, "unanswerable_with_gold", qid, ERROR,
                                f"'{qid}' is in the unanswerable category '{category}' but names {len(passages)} gold passage(s)", line))
        if corpus is not None:
            for passage in passages:
                if passage not in corpus:
                    out.append(_finding(gold, "unknown_passage", qid, ERROR, f"'{qid}': gold passage '{passage}' is not in the corpus {corpus.path}", line))
        if not (row["expected_answer"] or "").strip():
            out.append(_finding(gold, "missing_expected_answer", qid, WARNING, f"'{qid}' has no expected answer", line))
        text = row["question"]
        if text:
            key = normalize_question(text)
            if key in first_of:
                other, other_line = first_of[key]
                out.append(_finding(gold, "duplicate_question", qid, WARNING,
                                    f"'{qid}' asks the same question as '{other}' (line {other_line})", line))
            else:
                first_of[key] = (qid, line)
    return out


def retrieved_anywhere(frames: list[pl.DataFrame]) -> set[str]:
    """Every passage id some run retrieves, for any question, in its top RETRIEVED_DEPTH."""
    found: set[str] = set()
    for frame in frames:
        found.update(frame.select(pl.col("retrieved_ids").list.head(RETRIEVED_DEPTH).explode().drop_nulls().unique()).to_series().to_list())
    return found


def _never_retrieved(gold: GoldSet, retrieved: set[str], runs: int) -> list[Finding]:
    out = []
    for qid, line, passages in gold.frame.select("id", "line", "gold_passages").iter_rows():
        for passage in passages or []:
            if passage not in retrieved:
                out.append(_finding(
                    gold, "never_retrieved", qid, WARNING,
                    f"'{qid}': gold passage '{passage}' is retrieved by none of the {runs} run(s), for any question, "
                    f"in the top {RETRIEVED_DEPTH}: was it renamed by a re-chunking?", line,
                ))
    return out


def check_gold_set(
    gold: GoldSet, config: Config, *, corpus: Corpus | None = None, run_frames: list[pl.DataFrame] | None = None
) -> GoldCheck:
    """The composition of `gold` and every finding, given its corpus and runs when known."""
    categories, share = composition(gold, config)
    findings = _size_findings(gold, share) + _question_findings(gold, config, corpus)
    if run_frames:
        findings += _never_retrieved(gold, retrieved_anywhere(run_frames), len(run_frames))
    return GoldCheck(
        questions=gold.frame.height,
        unanswerable_share=share,
        categories=categories,
        tags=tag_counts(gold),
        findings=findings,
        detectable_drop=smallest_binary_drop(gold.frame.height, ASSUMED_DISCORDANCE, config.confidence),
        confidence=config.confidence,
        runs=len(run_frames or []),
        corpus_passages=len(corpus.passages) if corpus is not None else None,
    )

