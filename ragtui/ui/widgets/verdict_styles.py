"""The triage vocabulary: one symbol and one colour role for each verdict and status.

Meaning never rests on colour alone (NO_COLOR terminals, colour-blind readers): every
state has a symbol, and the colour is a theme variable on top. The app defines
ragtui's own variables (`$verdict-pass`, `$gold-passage`, …) with defaults; a host app
that does not (a test app, an embedding) gets Textual's standard colours instead of
silently losing the colour, because an unknown variable in a Content style is dropped.
"""

from __future__ import annotations

from textual.app import App

STATUS_SYMBOLS = {"regressed": "▼", "fixed": "▲", "still_failing": "✗", "passing": "·"}
STATUS_LABELS = {"regressed": "regressed", "fixed": "fixed", "still_failing": "still failing", "passing": "passing"}
STATUS_ROLES = {"regressed": "regression", "fixed": "improvement", "still_failing": "fail", "passing": "muted"}

VERDICT_PASS, VERDICT_FAIL, VERDICT_UNKNOWN = "✓", "✗", "?"
GOLD_MARK = "★"
BEYOND_K_MARK = "┆"
CURSOR_MARK = "›"
DISAGREE_MARK = "≠"

# Short codes keep the A→B kinds column narrow at 80 columns; the detail line and the
# question view spell them out.
KIND_CODES = {
    "retrieval_miss": "R",
    "unfaithful": "F",
    "answered_unanswerable": "H",
    "false_abstention": "A",
    "low_utility": "U",
    "judge_error": "J",
    "missing": "M",
}
KIND_LABELS = {
    "retrieval_miss": "retrieval miss",
    "unfaithful": "unfaithful",
    "answered_unanswerable": "answered the unanswerable",
    "false_abstention": "false abstention",
    "low_utility": "low utility",
    "judge_error": "judge error",
    "missing": "missing",
}
CAUSE_LABELS = {
    "retrieval": "retrieval",
    "generation_same_passages": "generation (same passages)",
    "generation": "generation",
    "missing": "missing from B",
}
CAUSE_SHORT = {"retrieval": "retrieval", "generation_same_passages": "gen·same", "generation": "generation", "missing": "missing"}

# role → (ragtui theme variable, Textual fallback variable)
_ROLES = {
    "pass": ("verdict-pass", "success"),
    "fail": ("verdict-fail", "error"),
    "not_judged": ("not-judged", "warning"),
    "gold": ("gold-passage", "accent"),
    "regression": ("regression", "error"),
    "improvement": ("improvement", "success"),
}


def role_colour(app: App, role: str) -> str:
    """The colour variable of a role, e.g. `$verdict-pass` (or `$success` if undefined)."""
    if role == "muted":
        return "$text-muted"
    own, fallback = _ROLES[role]
    return f"${own}" if own in app.theme_variables else f"${fallback}"


def missing_theme_variables(app: App) -> list[str]:
    """ragtui's theme variables the running app does not define (for a one-time notice)."""
    return [own for own, _ in _ROLES.values() if own not in app.theme_variables]


def kind_codes(kinds: list[str] | None) -> str:
    """'RU' for [retrieval_miss, low_utility]; '—' for none."""
    return "".join(KIND_CODES.get(kind, "?") for kind in kinds or []) or "—"


def kind_words(kinds: list[str] | None) -> str:
    """'retrieval miss, low utility'; 'passes' for none."""
    return ", ".join(KIND_LABELS.get(kind, kind) for kind in kinds or []) or "passes"


KIND_LEGEND = " ".join(f"{code}={KIND_LABELS[kind]}" for kind, code in KIND_CODES.items())


def status_label(status: str, two_runs: bool = True) -> str:
    """'still failing' compares two runs; a single run's failing question is just 'failing'."""
    if status == "still_failing" and not two_runs:
        return "failing"
    return STATUS_LABELS.get(status, status)


def verdict_mark(attested: bool | None) -> tuple[str, str, str]:
    """(symbol, colour role, label) of a sentence verdict; None means not judged."""
    if attested is True:
        return VERDICT_PASS, "pass", "attested"
    if attested is False:
        return VERDICT_FAIL, "fail", "not attested"
    return VERDICT_UNKNOWN, "not_judged", "not judged"
