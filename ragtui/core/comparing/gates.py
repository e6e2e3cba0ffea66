"""The CI gates of `ragtui report`: each passes or fails for a reason it states in one line.

A gate never passes on what was not measured. Its metrics are every metric it checks
(a regression or a flagged drop anywhere fails it), and the metrics with a target must be
available: a metric whose population is empty in the run the gate reads (its verdicts
missing or all errored, no gold set, …) fails the gate unless `--allow-unavailable`.
Gates read the report document (`build_report`), so CI sees exactly what it prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragtui.core.comparing.report_model import MetricFields, Report
from ragtui.core.comparing.targets import inconclusive_targets, metric_spec, target_failures
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import ci_text, delta_text

ON_REGRESSION, BELOW_TARGET, ON_DROP = "--fail-on-regression", "--fail-below-target", "--fail-on-drop"


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome and the one line that says why."""

    flag: str
    passed: bool
    reason: str

    def line(self) -> str:
        return f"gate {self.flag}: {'passed' if self.passed else 'FAILED'}: {self.reason}"


def _unavailable(report: Report, sides: tuple[str, ...]) -> list[str]:
    """The metrics with a target that a side does not measure, with that run's counts."""
    out = []
    for name, metric in report["metrics"].items():
        if metric.get("target") is None:
            continue
        empty = [side for side in sides if side in metric.get("not_available", [])]
        if empty:
            run = report["runs"][empty[0]]
            out.append(
                f"{name} not available in {'/'.join(empty)} ({run['judge_errors']} judge errors, {run['missing']} missing)"
            )
    return out


def _answer_metrics(report: Report) -> dict[str, MetricFields]:
    """The metrics that judge answers: latency, cost and tokens gate through their targets only
    (`{max: …}` with --fail-below-target), since a slower CI runner is not a regression of the system."""
    return {name: m for name, m in report["metrics"].items() if not _is_quantity(name)}


def _is_quantity(name: str) -> bool:
    try:
        return metric_by_name(name).quantity
    except KeyError:  # a peer tool's metric
        return False


def _gated(report: Report) -> dict[str, MetricFields]:
    """ragtui's metrics and a peer tool's (`TOOL:METRIC`): a tool's metrics gate like ragtui's own."""
    return {**_answer_metrics(report), **report.get("tool_metrics", {})}


def _regression(report: Report) -> tuple[list[str], int]:
    regressed = []
    for name, m in _gated(report).items():
        if m.get("verdict") == "regressed":
            spec = metric_spec(name, m)
            regressed.append(f"{name} regressed (Δ {delta_text(m.get('delta'), spec)}, CI {ci_text(m.get('ci'), spec)})")
    # A question the system failed on is in no metric: more of them in B is a regression in itself.
    errors = {side: run.get("system_errors", 0) for side, run in report["runs"].items()}
    if errors.get("B", 0) > errors.get("A", 0):
        regressed.append(f"B failed on more questions than A (system errors: A {errors['A']}, B {errors['B']})")
    return regressed, sum(1 for m in _gated(report).values() if m.get("verdict") is not None)


def _targets_checked(report: Report, latest: str) -> int:
    return sum(1 for m in _gated(report).values() if m.get("target") is not None and m.get(latest) is not None)


def _below_target(report: Report, latest: str, strict: bool) -> tuple[list[str], int]:
    """`misses` fails (and `inconclusive` with `--strict-targets`): the verdicts of `targets`."""
    return target_failures(report, strict=strict), _targets_checked(report, latest)


def _target_pass_text(report: Report, latest: str, strict: bool) -> tuple[str, str]:
    """What a passing `--fail-below-target` saw: every target met, none to check, or none
    missed and some inconclusive (which pass only because `--strict-targets` was not asked for)."""
    if not _targets_checked(report, latest):
        return f"no target to check in {latest}", ""
    inconclusive = [] if strict else inconclusive_targets(report)
    if not inconclusive:
        return f"every target met by {latest}", ""
    names = ", ".join(inconclusive)
    return f"no target missed by {latest}", f"; {len(inconclusive)} inconclusive ({names}) — --strict-targets fails on them"


def _drop(report: Report) -> tuple[list[str], int]:
    drops = [
        f"{name} dropped more than max_drop (Δ {delta_text(m.get('delta'), metric_spec(name, m))}, "
        f"{(m.get('verdict') or 'n/a').replace('_', ' ')})"
        for name, m in _answer_metrics(report).items()
        if m.get("drop_flagged")
    ]
    return drops, sum(1 for m in _answer_metrics(report).values() if m.get("delta") is not None)


def _gate(
    flag: str, found: tuple[list[str], int], unavailable: list[str], allow_unavailable: bool, ok_text: tuple[str, str]
) -> GateResult:
    """`ok_text`: what a pass says, and what follows its count ("; 4 inconclusive (…)")."""
    failures, checked = found
    if failures:
        return GateResult(flag, False, "; ".join(failures + unavailable))
    if unavailable and not allow_unavailable:
        return GateResult(flag, False, "; ".join(unavailable) + " (--allow-unavailable lets it pass)")
    said, after = ok_text
    reason = f"{said} ({checked} checked){after}"
    if unavailable:
        reason += "; not measured, allowed by --allow-unavailable: " + "; ".join(unavailable)
    return GateResult(flag, True, reason)


def run_gates(
    report: Report, *, on_regression: bool = False, below_target: bool = False, on_drop: bool = False,
    allow_unavailable: bool = False, strict_targets: bool = False,
) -> list[GateResult]:
    """The result of every gate asked for, in the order of the flags above."""
    two_runs = "B" in report["runs"]
    latest = "B" if two_runs else "A"
    results = []
    comparisons: list[tuple[bool, str, Callable[[], tuple[list[str], int]], tuple[str, str]]] = [
        (on_regression, ON_REGRESSION, lambda: _regression(report), ("no metric regressed", "")),
        (below_target, BELOW_TARGET, lambda: _below_target(report, latest, strict_targets), _target_pass_text(report, latest, strict_targets)),
        (on_drop, ON_DROP, lambda: _drop(report), ("no drop larger than max_drop", "")),
    ]
    for asked, flag, check, ok_text in comparisons:
        if not asked:
            continue
        if flag != BELOW_TARGET and not two_runs:
            # Nothing to compare: a comparison gate on one run has measured nothing.
            results.append(_gate(flag, ([], 0), ["it needs two runs, A and B"], allow_unavailable, ok_text))
            continue
        sides = (latest,) if flag == BELOW_TARGET else ("A", "B")
        results.append(_gate(flag, check(), _unavailable(report, sides), allow_unavailable, ok_text))
    return results
