"""`C`: how far to trust the judge, per run, measured against people's labels.

For each run: the labels (from the queue / all) and their file, sentence agreement and
Cohen's κ overall and per category, the judge × person confusion matrix, utility
agreement, the judge's bias on the sampled labels with its interval, and faithfulness
and utility corrected by those labels (PPI++) beside the raw values, with the label
budget; then the judge's noise when the run was judged more than once (`ragtui judge
--repeat N`): how often its verdicts flip. Recomputed each time the screen is shown, so
labels just made count. `L` opens the calibration queue.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ragtui.core.calibration_words import (
    NO_SAMPLED,
    OUTSIDE_QUEUE,
    bias_text,
    budget_text,
    corrected_text,
    noise_text,
    plan_text,
    worth_text,
)
from ragtui.core.comparing.compare import Comparison, relabelled
from ragtui.core.measuring.calibration_queue import QUEUE_SEED
from ragtui.core.measuring.judge_noise import RunNoise
from ragtui.core.measuring.label_values import Calibration, CorrectedMetric
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import UNSTABLE_MARK, percent_text, value_text
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.models.session import Session
from ragtui.ui.widgets.key_footer import KeyFooter

GOOD_AGREEMENT = 0.85  # what a good judge reaches on sentences


def _agreement_line(c: Calibration) -> Content:
    if c.sentence_agreement is None:
        return Content.styled("sentences: no pair of judge and person verdicts yet", "dim")
    low = c.sentence_agreement < GOOD_AGREEMENT
    agree = Content.styled(f"{'⚠ ' if low else ''}{percent_text(c.sentence_agreement)} agree", "$warning bold" if low else "bold")
    kappa = f" · κ {c.sentence_kappa:.2f}" if c.sentence_kappa is not None else ""
    return join(f"sentences {c.sentences} pairs · ", agree, kappa, Content.styled("  (a good judge: about 85 %)", "dim"))


def _category_lines(c: Calibration, category_name) -> list[Content]:
    lines = []
    for category, a in c.by_category.items():
        if a.agreement is None:
            continue
        kappa = f" κ {a.kappa:.2f}" if a.kappa is not None else ""
        name = safe(category_name(category), one_line=True, limit=24)
        lines.append(join("  ", name, f"  {percent_text(a.agreement, digits=0)}{kappa} ({a.sentences})"))
    return lines


def _confusion_lines(c: Calibration) -> list[Content]:
    if not c.sentences:
        return []
    m = c.confusion
    return [
        Content.styled("  judge × person   person ✓  person ✗", "dim"),
        Content(f"  judge ✓          {m['judge_yes_person_yes']:>8}  {m['judge_yes_person_no']:>8}"),
        Content(f"  judge ✗          {m['judge_no_person_yes']:>8}  {m['judge_no_person_no']:>8}"),
    ]


def _corrected_lines(metric: str, result: CorrectedMetric, category_name) -> list[Content]:
    c = result.corrected
    too_few = c is not None and c.too_few
    text = corrected_text(metric, result.raw, c.value if c else None, c.ci if c else None, c.labels if c else 0, too_few=too_few)
    lines = [join(Content.styled(f"{metric} ", "bold"), text + (f" · λ {c.lam:.2f}" if c and not too_few else ""))]
    budget = budget_text(metric, result.budget, result.target_half_width, result.floor_half_width)
    if budget:
        lines.append(Content.styled(f"  {budget}", "dim"))
    plan = result.plan
    if plan is not None and c is not None and plan.total is not None:  # where to label next (Neyman allocation over the categories)
        following = category_name(plan.next_category) if plan.next_category is not None else None
        lines.append(join("  ", safe(plan_text(metric, following, plan.next_more, plan.target_half_width, plan.total), one_line=True)))
    if result.effective_labels is not None and c is not None:
        worth = worth_text(result.effective_labels, c.groups, weak=result.weak_judge)
        lines.append(Content.styled(f"  {worth}", "$warning" if result.weak_judge else "dim"))
    if result.partly_labelled:
        lines.append(Content.styled(f"  answers partly labelled: {result.partly_labelled}, left out until complete", "dim"))
    by_category = [
        f"{category_name(cat)} {value_text(value.value, metric_by_name(metric))}" for cat, value in result.by_category.items() if value is not None
    ]
    if c is not None and not too_few and by_category:
        lines.append(join("  by category ", safe(" · ".join(by_category), one_line=True)))
    return lines


def _shown_path(path) -> str:
    """The labels file as the person would type it: relative to the current folder when inside it."""
    from pathlib import Path

    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def run_section(comparison: Comparison, side: str, labelling) -> Content:
    """One run's calibration, as lines."""
    evaluation = comparison.a if side == "A" or comparison.b is None else comparison.b
    labels = labelling.labels[side]
    config = comparison.config
    name = safe(evaluation.run.name, one_line=True, limit=30)
    judge = safe(evaluation.run.judge_model() or "unknown judge", one_line=True, limit=30)
    lines: list[Content] = [join(Content.styled(f"{side} · ", "bold"), name.stylize("bold"), Content.styled(" · judge ", "dim"), judge)]
    where = safe(_shown_path(labels.path) if labels.path else "no labels file", one_line=True, limit=60)
    lines.append(join(f"labels {labels.count()} ({labels.count(sampled_only=True)} from the queue) → ", where))
    noise = _noise_lines(comparison.runs[side].noise)
    result = comparison.runs[side].calibration
    if result is None:
        lines.append(Content.styled("no labels yet: press L to label answers from the random queue", "italic"))
        return Content("\n").join(lines + noise)
    if result.labels > result.labels_sampled:
        lines.append(Content.styled(OUTSIDE_QUEUE, "dim"))
    lines.append(_agreement_line(result))
    lines += _category_lines(result, config.category_name)
    lines += _confusion_lines(result)
    if result.utility_exact is not None and result.utility_within_one is not None and result.utility_mean_abs_diff is not None:
        lines.append(Content(
            f"utility {result.utility_pairs} pairs · {percent_text(result.utility_exact, digits=0)} exact · "
            f"{percent_text(result.utility_within_one, digits=0)} within ±1 · mean |Δ| {result.utility_mean_abs_diff:.2f}"
        ))
    biases = [bias_text(m, b.value, b.ci, b.n) for m, b in (("faithfulness", result.faithfulness_bias), ("utility", result.utility_bias)) if b]
    if biases:
        lines.append(join(Content.styled("bias (judge − person) ", "bold"), "; ".join(biases)))
    else:
        lines.append(Content.styled(NO_SAMPLED, "italic"))
    for metric, corrected in comparison.corrected.items():
        lines += _corrected_lines(metric, corrected.runs[side], config.category_name)
    return Content("\n").join(lines + noise)


def _noise_lines(noise: RunNoise | None) -> list[Content]:
    """`judge noise 3 repetitions of 40 answers: …`: how often the judge changes its mind."""
    if noise is None:
        return [Content.styled("judge noise: judged once (ragtui judge --repeat N measures it)", "dim")]
    rates = [(metric, rate.flipped, rate.units) for metric, rate in (("faithfulness", noise.faithfulness), ("utility", noise.utility))]
    text = noise_text(noise.repeats, noise.answers, rates, len(noise.unstable_ids), noise.left_out)
    style = "$warning" if noise.unstable_ids else ""
    return [join(Content.styled(f"judge noise {UNSTABLE_MARK if noise.unstable_ids else ''}".rstrip() + " ", "bold"), Content.styled(text, style))]


class CalibrationScreen(Screen):
    """The judge against people, run by run."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", id="calibration.back"),
    ]
    DEFAULT_CSS = """
    CalibrationScreen #calibration-title {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    CalibrationScreen #calibration-body {
        height: 1fr;
        padding: 0 1;
    }
    CalibrationScreen #calibration-body > Static {
        margin-bottom: 1;
    }
    """

    def __init__(self, comparison: Comparison, session: Session | None = None) -> None:
        super().__init__()
        self.comparison = comparison
        self.session = session if session is not None else Session.over(comparison)
        self.sides = ("B", "A") if comparison.b is not None else ("A",)

    def compose(self) -> ComposeResult:
        yield Static(id="calibration-title")
        with VerticalScroll(id="calibration-body"):
            for side in self.sides:
                yield Static(id=f"calibration-{side}")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.refresh_numbers()
        self.query_one("#calibration-body", VerticalScroll).focus()

    def on_screen_resume(self) -> None:
        self.refresh_numbers()

    def refresh_numbers(self) -> None:
        labelling = self.session.labelling_of(self.comparison)
        title = join(Content.styled("Calibration · the judge against people", "bold"), Content.styled(f"   queue seed {QUEUE_SEED} · L: label", "dim"))
        self.query_one("#calibration-title", Static).update(title)
        current = relabelled(self.comparison, labelling.labels)  # the labels may have changed since the load
        for side in self.sides:
            self.query_one(f"#calibration-{side}", Static).update(run_section(current, side, labelling))

    def action_back(self) -> None:
        self.dismiss()
