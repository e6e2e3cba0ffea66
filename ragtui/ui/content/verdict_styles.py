"""The triage vocabulary: one symbol and one colour role for each verdict and status.

Meaning never rests on colour alone (NO_COLOR terminals, colour-blind readers): every
state has a symbol, and the colour is a theme variable on top. The app defines
ragtui's own variables (`$verdict-pass`, `$gold-passage`, …) with defaults; a host app
that does not (a test app, an embedding) gets Textual's standard colours instead of
silently losing the colour, because an unknown variable in a Content style is dropped.
"""

from __future__ import annotations

from textual.app import App

from ragtui.core.vocabulary import VERDICT_FAIL, VERDICT_PASS, VERDICT_UNKNOWN

# role → (ragtui theme variable, Textual fallback variable): the one table of colour roles.
_ROLES = {
    "pass": ("verdict-pass", "success"),
    "fail": ("verdict-fail", "error"),
    "not_judged": ("not-judged", "warning"),
    "gold": ("gold-passage", "accent"),
    "regression": ("regression", "error"),
    "improvement": ("improvement", "success"),
    "no_change": ("no-change", "text-muted"),
}
# Each state's role: a question's status, a comparison's verdict, a run against its target.
STATUS_ROLES = {"regressed": "regression", "fixed": "improvement", "still_failing": "fail", "passing": "muted", "not_measured": "muted"}
VERDICT_ROLES = {"improved": "improvement", "regressed": "regression", "no_clear_change": "no_change"}
TARGET_ROLES = {"meets": "pass", "misses": "fail", "inconclusive": "no_change"}


def role_style(role: str) -> str:
    """The role's own theme variable (`$verdict-pass`), for Content drawn in ragtui's app,
    whose themes define every one (`role_colour` falls back for a host app that does not)."""
    return f"${_ROLES[role][0]}"


VERDICT_STYLE = {verdict: role_style(role) for verdict, role in VERDICT_ROLES.items()}
TARGET_STYLE = {reading: role_style(role) for reading, role in TARGET_ROLES.items()}


def role_colour(app: App, role: str) -> str:
    """The colour variable of a role, e.g. `$verdict-pass` (or `$success` if undefined)."""
    if role == "muted":
        return "$text-muted"
    own, fallback = _ROLES[role]
    return f"${own}" if own in app.theme_variables else f"${fallback}"


def verdict_mark(attested: bool | None) -> tuple[str, str, str]:
    """(symbol, colour role, label) of a sentence verdict; None means not judged."""
    if attested is True:
        return VERDICT_PASS, "pass", "attested"
    if attested is False:
        return VERDICT_FAIL, "fail", "not attested"
    return VERDICT_UNKNOWN, "not_judged", "not judged"
