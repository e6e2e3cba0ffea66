"""The CI formats of `ragtui report`: which renderer writes each, from the CI view.

`render_ci` is where each comparison's report becomes the typed view (`ci_model.ci_report`)
and goes to the format's renderer; `--format github` also appends the markdown report to
`$GITHUB_STEP_SUMMARY` when the job sets it. JUnit and GitHub take one comparison or
several (each candidate against A); the HTML page shows one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragtui.core.comparing.gates import GateResult
    from ragtui.core.comparing.result import Comparison

CI_FORMATS = ("junit", "github", "html")
ONE_COMPARISON = ("html",)


def render_ci(fmt: str, gated: list[tuple[dict[str, Any], Comparison, list[GateResult]]], markdown: Callable[[], str]) -> str:
    """The text of each (report, comparison, gate results) in the CI format `fmt`.

    Args:
        markdown: makes the markdown report, for `$GITHUB_STEP_SUMMARY`.
    """
    from ragtui.cli.ci_model import ci_report

    views = [ci_report(report, comparison, gates, details=fmt == "html") for report, comparison, gates in gated]
    if fmt == "junit":
        from ragtui.cli.render_junit import render_junit

        return render_junit(views)
    if fmt == "github":
        from ragtui.cli.render_github import append_step_summary, render_github

        append_step_summary(markdown)
        return render_github(views)
    from ragtui.cli.render_html import render_html

    assert len(views) == 1, "the HTML report shows one comparison"
    return render_html(views[0])
