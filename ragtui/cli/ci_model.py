"""What the CI renderers (JUnit, GitHub annotations, the HTML report) read: one typed view.

`ci_report` is the one function that reads the report document (`build_report`'s dicts),
the comparison behind it (question texts, passages, verdicts) and the gates' results; the
renderers read only the frozen dataclasses below. It formats numbers with the text
vocabulary's formats (`value_text`, `delta_ci_text`, …, as the text report and the app) and
words, so a CI view and the text report say the same thing.

Strings from files (ids, questions, passages, run and category names, warnings) are kept
as they came: each renderer escapes them for its own medium.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragtui.cli.render import headline_names, metric_cells, status_summary
from ragtui.core.comparing.gates import GateResult
from ragtui.core.comparing.report_model import Report
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import (
    CAUSE_EXPLAINED,
    KIND_LABELS,
    VERDICT_LABEL,
    delta_ci_text,
    status_label,
    target_text,
    value_text,
)

if TYPE_CHECKING:
    import polars as pl

    from ragtui.core.comparing.question_falls import MetricFall
    from ragtui.core.comparing.result import Comparison

# The HTML report shows the passages and verdicts of at most this many questions
# (regressed first, then still failing); it says how many more it leaves out.
DETAIL_LIMIT = 300
QUESTION_START = 60  # characters of the question in a JUnit test case's name
# The statuses that a comparison counts as a failure of the latest run.
FAILING_STATUSES = ("regressed", "still_failing")


@dataclass(frozen=True)
class RunLine:
    label: str  # "A" or "B"
    name: str
    path: str
    questions: int
    missing: int
    extra_questions: int
    judge_errors: int
    judge_model: str | None
    system_errors: int = 0  # questions the system under test failed on (`ragtui run`'s `error`)


@dataclass(frozen=True)
class MetricLine:
    """One row of the dashboard's panels: values, target and verdict as the text report prints them."""

    name: str
    target: str  # "≥0.80", or "" without a target
    a: str
    b: str | None
    delta: str | None
    verdict: str | None  # regressed / improved / no_clear_change (two runs)
    verdict_label: str | None
    target_a: str | None  # meets / misses / inconclusive
    target_b: str | None
    drop_flagged: bool


@dataclass(frozen=True)
class CategoryCell:
    metric: str
    text: str  # "0.900 → 0.850"
    target: str | None  # the latest run's verdict against the target


@dataclass(frozen=True)
class CategoryLine:
    key: str
    name: str
    n: int
    cells: tuple[CategoryCell, ...]


@dataclass(frozen=True)
class Passage:
    rank: int
    id: str
    text: str | None
    score: float | None
    gold: bool


@dataclass(frozen=True)
class Sentence:
    number: int
    text: str | None
    verdict: str  # supported / unsupported / not judged
    reason: str | None


@dataclass(frozen=True)
class QuestionLine:
    """One gold question: its status in the latest run and, when it fails, why."""

    id: str
    question: str
    category: str
    category_name: str
    status: str
    status_label: str
    cause: str | None
    cause_text: str
    kinds_added: tuple[str, ...]  # failure kinds new in B (for one run: the run's), as labels
    falls: tuple[MetricFall, ...]
    changes: tuple[str, ...]  # "gold p_042 fell out of the top 5", … (question_diff)
    failed: bool  # regressed (two runs) or failing (one run): what CI counts as a failure
    missing_from_latest: bool
    detailed: bool  # its answer, passages and sentences below were read (the HTML report shows it)
    answer: str | None = None
    passages: tuple[Passage, ...] = ()
    sentences: tuple[Sentence, ...] = ()
    texts_error: str | None = None

    def falls_text(self) -> str:
        """`faithfulness 100.0% → 66.7%; utility 5.00 → n/a` (empty when nothing fell)."""
        specs = [metric_by_name(fall.metric) for fall in self.falls]
        return "; ".join(f"{fall.metric} {value_text(fall.a, spec)} → {value_text(fall.b, spec)}" for fall, spec in zip(self.falls, specs, strict=True))


@dataclass(frozen=True)
class CiReport:
    """A comparison (or one run) as the CI renderers read it."""

    title: str  # "baseline → candidate", names from files
    two_runs: bool
    k: int
    runs: tuple[RunLine, ...]
    metrics: tuple[MetricLine, ...]
    categories: tuple[CategoryLine, ...]
    questions: tuple[QuestionLine, ...]  # every question of the comparison, in the gold set's order
    gates: tuple[GateResult, ...]
    warnings: tuple[str, ...]
    summary: str  # "26 regressed (of which 4 missing from B, …) · 16 fixed · …"
    details_left_out: int  # failing questions whose texts the HTML report does not show (DETAIL_LIMIT)
    confidence: float  # of the intervals: the comparison's configured level

    @property
    def regressed(self) -> tuple[QuestionLine, ...]:
        return tuple(question for question in self.questions if question.status == "regressed")


def _runs(report: Report) -> tuple[RunLine, ...]:
    return tuple(
        RunLine(
            label, run["name"], run["path"], run["questions"], run["missing"], run["extra_questions"], run["judge_errors"], run["judge_model"],
            run.get("system_errors", 0),
        )
        for label, run in report["runs"].items()
    )


def _metrics(report: Report, two: bool) -> tuple[MetricLine, ...]:
    lines = []
    for name, m in report["metrics"].items():
        verdict = m.get("verdict") or ""
        spec, a, b = metric_cells(name, m)
        lines.append(
            MetricLine(
                name=name, target=target_text(m["target"], spec, missing=""), a=a,
                b=b if two else None,
                delta=delta_ci_text(m.get("delta"), m.get("ci"), spec) if two else None,
                verdict=verdict, verdict_label=VERDICT_LABEL.get(verdict, "n/a") if two else None,
                target_a=m["meets_target"].get("A"), target_b=m["meets_target"].get("B"),
                drop_flagged=bool(m.get("drop_flagged")),
            )
        )
    return tuple(lines)


def _categories(report: Report, two: bool) -> tuple[CategoryLine, ...]:
    latest = "B" if two else "A"
    lines = []
    for key, data in report["categories"].items():
        cells = []
        for name in headline_names(report):
            cell = data["metrics"][name]
            _, a, b = metric_cells(name, cell)
            text = a + (f" → {b}" if two else "")
            target = (cell.get("meets_target") or {}).get(latest) if cell.get(latest) is not None else None
            cells.append(CategoryCell(name, text, target))
        lines.append(CategoryLine(key, data["name"], data["n"], tuple(cells)))
    return tuple(lines)


def _sentences(row: dict[str, Any]) -> tuple[Sentence, ...]:
    verdicts = {True: "supported", False: "unsupported"}
    return tuple(
        Sentence(number, sentence.get("text"), verdicts.get(sentence.get("attested"), "not judged"), sentence.get("reason"))
        for number, sentence in enumerate(row.get("judge_sentences") or [], start=1)
    )


def _passages(row: dict[str, Any], k: int) -> tuple[Passage, ...]:
    """The top k passages and every gold passage retrieved below it, gold marked."""
    gold = set(row.get("gold_passages") or [])
    ids, texts, scores = row.get("retrieved_ids") or [], row.get("retrieved_texts") or [], row.get("retrieved_scores") or []
    return tuple(
        Passage(rank, passage, texts[rank - 1] if rank - 1 < len(texts) else None,
                scores[rank - 1] if rank - 1 < len(scores) else None, passage in gold)
        for rank, passage in enumerate(ids, start=1)
        if rank <= k or passage in gold
    )


def _statuses(comparison: Comparison) -> pl.DataFrame:
    """id, category, status, cause and failure kinds: those new in B, or for one run the run's own."""
    import polars as pl

    if comparison.b is not None:
        return comparison.status.select("id", "category", "status", "cause", "kinds_added")
    kinds = comparison.a.questions.select("id", pl.col("failures").alias("kinds_added"))
    return (
        comparison.status.select("id", "category", "status")
        .join(kinds, on="id", how="left", maintain_order="left")
        .select("id", "category", "status", pl.lit(None, pl.String).alias("cause"), "kinds_added")
    )


def ci_report(report: Report, comparison: Comparison, gates: list[GateResult], *, details: bool = False) -> CiReport:
    """The CI view of `report` (built from `comparison`) and its gates.

    Args:
        details: read the answer, passages and per-sentence verdicts of the failing
            questions (the HTML report), at most DETAIL_LIMIT of them.
    """
    import polars as pl

    from ragtui.core.comparing.question_diff import CHANGE_COLUMNS, describe_changes
    from ragtui.core.comparing.question_falls import metric_falls

    two = comparison.b is not None
    latest = comparison.b if comparison.b is not None else comparison.a
    k = report["k"]
    names = {key: data["name"] for key, data in report["categories"].items()}
    status = _statuses(comparison)
    texts = dict(latest.questions.select("id", "question").iter_rows())
    failing_ids = status.filter(pl.col("status").is_in(FAILING_STATUSES)).get_column("id").to_list()
    falls: dict[str, tuple[MetricFall, ...]] = {}
    changes: dict[str, tuple[str, ...]] = {}
    if comparison.b is not None:
        regressed_ids = status.filter(pl.col("status") == "regressed").get_column("id").to_list()
        falls = metric_falls(comparison.a, comparison.b, regressed_ids, k)
        regressed = pl.col("id").is_in(regressed_ids)
        rows_a = {row["id"]: row for row in comparison.a.questions.filter(regressed).select(CHANGE_COLUMNS).to_dicts()}
        rows_b = {row["id"]: row for row in comparison.b.questions.filter(regressed).select(CHANGE_COLUMNS).to_dicts()}
        changes = {qid: tuple(change.text for change in describe_changes(rows_a.get(qid), rows_b.get(qid), k)) for qid in regressed_ids}
    # Regressed first, then still failing: the questions a reviewer opens first.
    detailed = sorted(failing_ids, key=lambda qid: qid not in falls)[:DETAIL_LIMIT] if details else []
    rows = {qid: latest.question(qid) or {} for qid in detailed}
    questions = []
    for qid, category, state, cause, kinds in status.iter_rows():
        row = rows.get(qid)
        present = row.get("present", True) if row is not None else True
        questions.append(
            QuestionLine(
                id=qid, question=texts.get(qid) or "", category=category, category_name=names.get(category, category),
                status=state, status_label=status_label(state, two), cause=cause,
                cause_text=CAUSE_EXPLAINED.get(cause, cause) if cause else "",
                kinds_added=tuple(KIND_LABELS.get(kind, kind) for kind in kinds or []),
                falls=falls.get(qid, ()), changes=changes.get(qid, ()),
                failed=state == ("regressed" if two else "still_failing"),
                missing_from_latest=cause == "missing",
                detailed=row is not None,
                answer=row.get("answer") if row else None,
                passages=_passages(row, k) if row and present else (),
                sentences=_sentences(row) if row and present else (),
                texts_error=row.get("texts_error") if row else None,
            )
        )
    runs = report["runs"]
    title = f"{runs['A']['name']} → {runs['B']['name']}" if two else runs["A"]["name"]
    return CiReport(
        title=title, two_runs=two, k=k, runs=_runs(report), metrics=_metrics(report, two), categories=_categories(report, two),
        questions=tuple(questions), gates=tuple(gates), warnings=tuple(report["warnings"]),
        summary=status_summary(report) if two else f"{len(report['questions'].get('still_failing', []))} failing",
        details_left_out=len(failing_ids) - len(detailed) if details else 0,
        confidence=comparison.config.confidence,
    )
