"""What `ragtui judge` says when it is done: verdicts, calls and cost, flagged questions,
judge errors, the judge's noise, and where the judged run was written (stderr)."""

from __future__ import annotations

from pathlib import Path

from ragtui.cli.judge_progress import verdicts_cost
from ragtui.cli.messages import say


def print_summary(result, settings, out: Path, calls_line: str | None = None) -> None:
    from ragtui.core.sanitize import neutralize

    totals = result.totals
    paid = totals.calls - totals.cached_calls
    say(
        f"ragtui: judged {totals.judged} answers with {result.meta['judge_model']} "
        f"({result.meta['judge_prompt_version']}): {totals.judged - totals.errors} with verdicts, {totals.errors} judge errors")
    if calls_line:  # a batch run tells its calls apart (ragtui.cli.judge_batch)
        say(calls_line)
    elif settings.provider != "lexical":
        say(
            f"ragtui: {totals.calls} calls ({paid} paid now, {totals.cached_calls} from the cache), "
            f"{totals.tokens_in} tokens in, {totals.tokens_out} out, {verdicts_cost(totals.cost_usd)}")
    flagged = (
        ("the judge reported an injection attempt in {n} answer(s)", "verdicts kept, marked injection: true", totals.injection_ids),
        ("{n} question(s) address the judge (detector)", "read them before trusting a score", totals.directed_ids),
    )
    for what, advice, ids in flagged:
        if ids:
            shown = ", ".join(neutralize(i, keep_newlines=False) for i in sorted(ids)[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            say(f"ragtui: warning: {what.format(n=len(ids))}: {shown} — {advice}")
    print_error_origin(totals)
    for record in [r for r in result.records if (r.get("judge") or {}).get("error")][:5]:
        say(f"ragtui: judge error on {record.get('id')}: {record['judge']['error']}")
    if totals.errors > 5:
        say(f"ragtui: … and {totals.errors - 5} more (judge.error in {out})")
    noise = noise_line(result.records)
    if noise:
        say(noise)
    say(f"ragtui: wrote {out}")


def print_error_origin(totals) -> None:
    """What --retry-errors did, or that it would help: errors replayed by the cache stay otherwise."""
    if totals.retried_ids:
        still = len(set(totals.retried_ids) & set(totals.error_ids))
        say(f"ragtui: asked again {len(totals.retried_ids)} question(s) whose judge error came from the cache (--retry-errors): {len(totals.retried_ids) - still} now with verdicts")
    if totals.replayed_error_ids:
        n = len(totals.replayed_error_ids)
        say(f"ragtui: {n} judge error(s) come from replies kept in the cache, not asked again: rerun with --retry-errors to ask those questions again")


def noise_line(records: list[dict]) -> str | None:
    """`ragtui: 3 repetitions of 40 answers: faithfulness 4.0 % flip (…)` from the judged records."""
    from ragtui.core.calibration_words import noise_text
    from ragtui.core.measuring.judge_noise import noise_of_judge, summarize

    found = {}
    for record in records:
        noise = noise_of_judge(record.get("judge") or {})
        if noise is not None:
            found[str(record.get("id"))] = noise
    run = summarize(found)
    if run is None:
        return None
    rates = [(metric, rate.flipped, rate.units) for metric, rate in (("faithfulness", run.faithfulness), ("utility", run.utility))]
    return "ragtui: " + noise_text(run.repeats, run.answers, rates, len(run.unstable_ids), run.left_out)
