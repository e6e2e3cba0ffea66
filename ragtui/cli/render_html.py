"""`report --format html -o report.html`: one self-contained page a reviewer opens from CI.

The dashboard's panels (value, target, verdict), the metrics table, the category grid,
the gates, and the regressed and failing questions with their passages (gold marked) and
the judge's per-sentence verdicts, filtered by category and status. Styles and the small
filter script are inside the file: it loads nothing, from anywhere.

Safety is two locks. Jinja2 escapes every value (`autoescape`), after `neutralize` has made
its control characters visible (the environment's `finalize`), so a run's `<script>`,
`<img onerror=…>`, `<iframe>` or `javascript:` link is text on the page. And the page's
Content-Security-Policy allows nothing but its own style and script, named by their
SHA-256: were a tag ever to slip through, the browser would not run it or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from typing import Any

from ragtui.cli.ci_model import CiReport
from ragtui.core.measuring.metric_specs import HEADLINE
from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import (
    FAIL,
    NA,
    PASS,
    STATUS_SYMBOL,
    TARGET_LABEL,
    TARGET_LEGEND,
    TARGET_SYMBOL,
    VERDICT_SYMBOL,
    interval_heading,
    status_label,
)

_TEMPLATES = "templates"


def _asset(name: str) -> str:
    return resources.files("ragtui.cli").joinpath(_TEMPLATES, name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(css: str, script: str) -> str:
    """Nothing from anywhere; only this page's own style and script, by their hashes."""
    return (
        f"default-src 'none'; style-src {_digest(css)}; script-src {_digest(script)}; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; "
        "frame-src 'none'; child-src 'none'; worker-src 'none'; manifest-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )


def _finalize(value: Any) -> Any:
    """Every value printed by the template: an untrusted string's controls made visible first."""
    from markupsafe import Markup

    if isinstance(value, str) and not isinstance(value, Markup):
        return neutralize(value)
    return value


@cache
def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("ragtui.cli", _TEMPLATES), autoescape=True, undefined=StrictUndefined, finalize=_finalize,
        keep_trailing_newline=True,
    )


def render_html(report: CiReport) -> str:
    """The report as one self-contained HTML page."""
    from markupsafe import Markup

    css, script = _asset("report.css"), _asset("report.js")
    questions = [question for question in report.questions if question.status in ("regressed", "still_failing")]
    questions.sort(key=lambda question: 0 if question.status == "regressed" else 1)
    shown = {question.status for question in questions}
    statuses = [(status, status_label(status, report.two_runs)) for status in ("regressed", "still_failing") if status in shown]
    template = _environment().get_template("report.html.j2")
    return str(
        template.render(
            r=report,
            css=Markup(css), script=Markup(script), csp=content_security_policy(css, script),
            headline=[m for m in report.metrics if m.name.split("@")[0] in HEADLINE],
            headline_names=[cell.metric for cell in report.categories[0].cells] if report.categories else [],
            questions=[question for question in questions if question.detailed],
            statuses=statuses,
            latest="B" if report.two_runs else "A",
            delta_heading=f"Δ ({interval_heading(report.confidence)})",
            symbol={"pass": PASS, "fail": FAIL, "na": NA},
            target_symbol=TARGET_SYMBOL, target_label=TARGET_LABEL, target_legend=TARGET_LEGEND,
            verdict_symbol=VERDICT_SYMBOL, status_symbol=STATUS_SYMBOL,
        )
    )
