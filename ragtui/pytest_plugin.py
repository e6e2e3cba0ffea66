"""ragtui's pytest plugin: assert a comparison's gates from a team's own test suite.

Installed with ragtui (the `pytest11` entry point), it gives every test the
`ragtui_compare` fixture::

    def test_the_candidate_does_not_regress(ragtui_compare):
        comparison = ragtui_compare("runs/baseline.jsonl", "runs/candidate.jsonl", gold="gold.yaml")
        assert comparison.gates(fail_on_regression=True).passed

The gates are `ragtui report`'s own (`core.comparing.gates`), read from the same report
document, so a test and CI agree. When a test that ran a gate fails, its report gains a
"ragtui gates" section: each gate's line and the regressed questions, listed as the text
report lists them. `assert outcome.passed, outcome` puts the same text in the assertion.

Importing this module costs nothing: pytest loads it in every session of an environment
where ragtui is installed, and the comparison's libraries are imported by the fixture.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ragtui.core.comparing.report_model import Report

if TYPE_CHECKING:
    from ragtui.core.comparing.gates import GateResult
    from ragtui.core.comparing.result import Comparison

SECTION = "ragtui gates"


@dataclass(frozen=True)
class GateOutcome:
    """The gates asked for, each with its one-line reason, and the regressed questions."""

    results: tuple[GateResult, ...]
    regressions: tuple[str, ...]  # the text report's "Questions: …" and regressed lines

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    @property
    def failed_gates(self) -> tuple[GateResult, ...]:
        return tuple(result for result in self.results if not result.passed)

    def __str__(self) -> str:
        from ragtui.core.sanitize import neutralize

        # The same inert lines `ragtui report` prints: a gate's reason may quote a peer tool's metric name.
        return "\n".join([*(neutralize(f"ragtui: {result.line()}", keep_newlines=False) for result in self.results), *self.regressions])

    def __repr__(self) -> str:
        verdict = "passed" if self.passed else "FAILED: " + ", ".join(result.flag for result in self.failed_gates)
        return f"<ragtui gates {verdict}>"


@dataclass(frozen=True)
class GatedComparison:
    """A comparison of two runs (or one run), as `ragtui report` reads it, with its gates."""

    comparison: Comparison
    report: Report
    _outcomes: list[GateOutcome] = field(default_factory=list, repr=False, compare=False)

    def __repr__(self) -> str:
        from ragtui.core.sanitize import neutralize

        names = " → ".join(neutralize(run["name"], keep_newlines=False) for run in self.report["runs"].values())
        return f"<ragtui comparison {names}>"

    @property
    def regressed(self) -> list[str]:
        """The ids of the regressed questions (empty for one run)."""
        return list(self.report["questions"].get("regressed", []))

    def gates(
        self, *, fail_on_regression: bool = False, fail_below_target: bool = False, strict_targets: bool = False,
        fail_on_drop: bool = False, allow_unavailable: bool = False,
    ) -> GateOutcome:
        """The gates of `ragtui report --fail-…`, each as that flag; at least one must be asked for.

        Raises:
            ValueError: no gate asked for (nothing would be checked, and nothing must pass unchecked).
        """
        from ragtui.cli.render import regression_lines
        from ragtui.core.comparing.gates import run_gates

        if not (fail_on_regression or fail_below_target or fail_on_drop):
            raise ValueError("ask for at least one gate: fail_on_regression, fail_below_target or fail_on_drop")
        results = run_gates(
            self.report, on_regression=fail_on_regression, below_target=fail_below_target, on_drop=fail_on_drop,
            allow_unavailable=allow_unavailable, strict_targets=strict_targets,
        )
        lines = regression_lines(self.report) if "B" in self.report["runs"] else []
        outcome = GateOutcome(tuple(results), tuple(lines))
        self._outcomes.append(outcome)
        return outcome


_OUTCOMES = pytest.StashKey[list[GateOutcome]]()


def _compare(outcomes: list[GateOutcome]) -> Callable[..., GatedComparison]:
    def compare(
        a: str | Path, b: str | Path | None = None, *, gold: str | Path | None = None, config: str | Path | None = None,
        k: int | None = None, labels: str | Path | None = None,
    ) -> GatedComparison:
        """Load, measure and compare as `ragtui report A B` does (exit-2 input problems raise InputError)."""
        from ragtui.core.comparing.report import build_report
        from ragtui.core.loading.inputs import Inputs
        from ragtui.core.loading.remote import run_location
        from ragtui.core.session import load_comparison

        inputs = Inputs(
            a=run_location(str(a)), b=run_location(str(b)) if b is not None else None,
            gold=Path(gold) if gold is not None else None, config=Path(config) if config is not None else None,
            k=k, detail=False, labels=Path(labels) if labels is not None else None,
        )
        comparison = load_comparison(inputs)
        return GatedComparison(comparison, build_report(comparison), outcomes)

    return compare


@pytest.fixture
def ragtui_compare(request: pytest.FixtureRequest) -> Callable[..., GatedComparison]:
    """`ragtui_compare(A, B, gold=…, config=…, k=…)`: a comparison whose `.gates(…)` a test asserts."""
    outcomes: list[GateOutcome] = []
    request.node.stash[_OUTCOMES] = outcomes
    return _compare(outcomes)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A failed test that ran gates shows each failed gate and the regressed questions."""
    outcome = yield
    report = outcome.get_result()
    failed = [gated for gated in item.stash.get(_OUTCOMES, []) if not gated.passed]
    if report.when == "call" and report.failed and failed:
        report.sections.append((SECTION, "\n\n".join(str(gated) for gated in failed)))
