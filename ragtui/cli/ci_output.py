"""The CI formats of `ragtui report`: which renderer writes each, from the CI view.

`render_ci` is where the report's data becomes the typed view (`ci_model.ci_report`) and
goes to the format's renderer; `--format github` also appends the markdown report to
`$GITHUB_STEP_SUMMARY` when the job sets it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragtui.core.comparing.gates import GateResult
    from ragtui.core.comparing.result import Comparison

CI_FORMATS = ("junit", "github", "html")


def render_ci(fmt: str, report: dict[str, Any], comparison: Comparison, gates: list[GateResult]) -> str:
    """The text of `report` (built from `comparison`, gated by `gates`) in the CI format `fmt`."""
    from ragtui.cli.ci_model import ci_report

    view = ci_report(report, comparison, gates, details=fmt == "html")
    if fmt == "junit":
        from ragtui.cli.render_junit import render_junit

        return render_junit([view])
    if fmt == "github":
        from ragtui.cli.render_github import append_step_summary, render_github
        from ragtui.cli.render_markdown import render_markdown

        append_step_summary(render_markdown(report))
        return render_github([view])
    from ragtui.cli.render_html import render_html

    return render_html(view)
