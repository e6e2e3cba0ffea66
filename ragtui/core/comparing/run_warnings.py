"""The warnings a comparison carries into every view: unpaired questions, a judge that
changed between the runs, a judge of the generator's family, answers that address the judge."""

from __future__ import annotations

from ragtui.core.measuring.evaluate import Evaluation, judge_directed_of


def unpaired_warning(unpaired: dict[str, list[str]]) -> str | None:
    parts = []
    for label, ids in unpaired.items():
        if ids:
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            parts.append(f"{len(ids)} only in {label} ({shown})")
    if not parts:
        return None
    return "questions in only one run are left out of A, B and Δ alike: " + "; ".join(parts)


def judge_change_warning(a: Evaluation, b: Evaluation) -> str | None:
    """When A and B were judged by different models or prompts, Δ of a judged metric mixes the
    system's change with the judge's: said in every view."""
    model_a, model_b = a.run.judge_model(), b.run.judge_model()
    prompt_a = a.run.meta.extra.get("judge_prompt_version")
    prompt_b = b.run.meta.extra.get("judge_prompt_version")
    differences = []
    if model_a and model_b and model_a != model_b:
        differences.append(f"A by {model_a}, B by {model_b}")
    if prompt_a and prompt_b and prompt_a != prompt_b:
        differences.append(f"prompt {prompt_a} for A, {prompt_b} for B")
    if not differences:
        return None
    return (
        "the runs were judged differently (" + "; ".join(differences) + "): Δ of faithfulness and utility mixes the "
        "system's change with the judge's; run `ragtui judge` on both runs with one judge"
    )


def judge_directed_warning(a: Evaluation, b: Evaluation) -> tuple[str, ...]:
    """B addresses the judge more than A: its faithfulness may have been talked up."""
    flags_a, flags_b = judge_directed_of([a, b])
    in_a, in_b = flags_a["questions"], flags_b["questions"]
    if in_b <= in_a:
        return ()
    return (
        f"B has more questions whose answer or passages address the judge than A ({in_b} vs {in_a}): "
        "its verdicts may have been talked into; read those questions (⚠) before trusting a gain",
    )


def judge_warnings(evaluation: Evaluation, label: str | None = None) -> tuple[str, ...]:
    from ragtui.core.families import same_family_warning

    run = evaluation.run
    warning = same_family_warning(run.meta.generator_model, run.judge_model())
    if warning is None:
        return ()
    return (f"{label or run.name} ({run.name}): {warning}" if label else warning,)


