"""How many questions regressed, were fixed, or still fail — each opens its list.

Each count is a compact button (Enter or a click) and has a key on the dashboard
(r, x, s), so the answer to "what broke?" is one keystroke away.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.content import Content
from textual.widgets import Button, Static

from ragtui.core.vocabulary import STATUS_LABEL, STATUS_SYMBOL, count_text
from ragtui.ui.content.verdict_styles import STATUS_ROLES, role_colour
from ragtui.ui.messages import OpenFailures

STATUS_KEY = {"regressed": "r", "fixed": "x", "still_failing": "s"}


class StatusCounts(HorizontalGroup):
    """One row: ▼ regressed · ▲ fixed · ✗ still failing (buttons) · ✓ passing."""

    DEFAULT_CSS = """
    StatusCounts {
        height: auto;
        padding: 0 1;
        & > Button { margin-right: 1; min-width: 0; }
        & > .passing { width: auto; color: $text-muted; }
    }
    """

    def __init__(self, counts: dict[str, int], *, two_runs: bool) -> None:
        super().__init__()
        self.counts = counts
        self.two_runs = two_runs

    def compose(self) -> ComposeResult:
        shown = ("regressed", "fixed", "still_failing") if self.two_runs else ("still_failing",)
        for status in shown:
            label = STATUS_LABEL[status] if self.two_runs else "failing"
            text = Content.assemble(
                (f"{STATUS_SYMBOL[status]} {count_text(self.counts[status])} ", f"bold {role_colour(self.app, STATUS_ROLES[status])}"),
                label,
                (f" ({STATUS_KEY[status]})", "dim"),
            )
            yield Button(text, id=f"status-{status}", compact=True, classes=status)
        passing = self.counts["passing"]
        yield Static(Content(f"{STATUS_SYMBOL['passing']} {count_text(passing)} passing"), classes="passing")
        unmeasured = self.counts.get("not_measured", 0)
        if unmeasured:  # never folded into passing: nothing measured them
            yield Static(Content(f" · {STATUS_SYMBOL['not_measured']} {count_text(unmeasured)} not measured"), classes="passing")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        status = (event.button.id or "").removeprefix("status-")
        self.post_message(OpenFailures(status=status))
