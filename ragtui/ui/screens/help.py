"""`?`: the keys of every screen, and what the symbols mean.

The keys are read from each screen's BINDINGS (and the user's key map), so this list
cannot drift from what the keys really do.
"""

from __future__ import annotations

import importlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from ragtui.core.vocabulary import KIND_CODES, KIND_LABELS, UNSTABLE_LABEL, UNSTABLE_MARK
from ragtui.ui.content.safe_text import join
from ragtui.ui.widgets.key_footer import KeyFooter

# (title, screen class, widgets with keys of their own) for each screen whose keys are
# listed; looked up lazily so this file does not import every screen at start-up.
SCREENS = (
    ("Dashboard", ("ragtui.ui.screens.dashboard", "DashboardScreen"), ()),
    ("Trade-off (more than two runs)", ("ragtui.ui.screens.tradeoff", "TradeoffScreen"), ()),
    (
        "Failure list",
        ("ragtui.ui.screens.failures", "FailureListScreen"),
        (("ragtui.ui.widgets.failure_table", "FailureTable"),),
    ),
    ("Question", ("ragtui.ui.screens.question", "QuestionScreen"), ()),
    ("Judge verdicts", ("ragtui.ui.screens.verdicts", "VerdictScreen"), ()),
    ("Calibration", ("ragtui.ui.screens.calibration", "CalibrationScreen"), ()),
)

SYMBOLS = (
    ("✓ / ✗ / ?", "meets / misses its target / inconclusive: the run's own interval decides (per question: passes / fails)"),
    ("▲ / ▼ / ~", "improved / regressed / no clear change (the interval of Δ, at the configured confidence)"),
    ("!", "a drop beyond the configured max_drop, even when it could be noise"),
    ("◆", "the worst category for that metric in the category grid"),
    ("✦ / ● / ◦", "trade-off: the best run on both recall and faithfulness / on the Pareto front / dominated"),
    ("┄ / ╎", "trade-off: the faithfulness target / the recall target"),
    ("⚠", "something that changes how to read the numbers (missing questions, judge errors)"),
    ("n/a  –", "not measurable here (no question in that population)"),
    ("★", "a gold passage (it holds the answer)"),
    ("┆", "a passage ranked beyond k: retrieved, but not sent to the model"),
    ("›", "the cursor row, or the focused sentence of an answer"),
    ("? (sentence)", "a sentence the judge did not judge"),
    ("⊘", "the system abstained"),
    ("≠", "the judge and the human label disagree"),
    (UNSTABLE_MARK, f"{UNSTABLE_LABEL}: the judge's verdicts change between repetitions (judge --repeat)"),
    ("·", "a question that passes in both runs"),
    ("o b g f", "a question's mark in the failure list: ok, bug, gold wrong, flaky"),
    ("[-…-] {+…+}", "words removed / added from A's answer to B's (d)"),
    ("+ − ↑ ↓ =", "a passage entered / left the top k, moved up / down, kept its rank (d)"),
)


def _screen_class(module: str, name: str) -> type[DOMNode]:
    """Imported here, when ? is pressed: the help screen must not load every screen at start."""
    return getattr(importlib.import_module(module), name)


def key_rows(bindings: list, keymap: dict[str, str], key_display) -> list[tuple[str, str]]:
    """(keys as shown, description — tooltip) of the bindings that have a description."""
    rows = []
    for binding in Binding.make_bindings(bindings):
        if not binding.description:
            continue
        key = keymap.get(binding.id, binding.key) if binding.id else binding.key
        shown = binding.key_display or ", ".join(key_display(Binding(part.strip(), binding.action)) for part in key.split(","))
        text = binding.description[:1].upper() + binding.description[1:]
        tooltip = binding.tooltip
        if tooltip and tooltip.lower().startswith(binding.description.lower()):
            text = tooltip  # "Back to the previous screen", not "Back — Back to …"
        elif tooltip:
            text = f"{text} — {tooltip}"
        rows.append((shown, text))
    return rows


class HelpScreen(ModalScreen[None]):
    """A scrollable list of keys per screen; Esc, ? or Enter closes it."""

    BINDINGS = [
        # Shown as `?` (the key that opened it); Esc and Enter close it too.
        Binding("escape,question_mark,enter", "dismiss", "Close", key_display="?", id="help.close"),
        # A modal screen hides the app's keys: `q` must still quit from here.
        Binding("q", "app.quit", "Quit", id="help.quit"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 76; max-width: 100%; height: auto; max-height: 100%;
            border: round $primary; background: $surface; padding: 0 1;
        }
        & .section { text-style: bold; color: $primary; margin-top: 1; }
    }
    """

    def __init__(self, current: str | None = None, keymap: dict[str, str] | None = None) -> None:
        super().__init__(id="help")
        self.current = current  # class name of the screen ? was pressed on
        self.keymap = keymap or {}  # the user's keys (keymap.yaml): binding id → key

    def compose(self) -> ComposeResult:
        app = self.app
        keymap = self.keymap
        with VerticalScroll() as scroll:
            scroll.border_title = Content("Keys")
            yield Static(Content("Everywhere"), classes="section")
            rows = key_rows(list(type(app).BINDINGS), keymap, app.get_key_display)
            rows.append((app.get_key_display(Binding(app.COMMAND_PALETTE_BINDING, "")), "Command palette: every action, themes"))
            yield self._table(rows)
            for title, (module, name), widgets in SCREENS:
                cls = _screen_class(module, name)
                here = "  (this screen)" if name == self.current else ""
                yield Static(Content(title + here), classes="section")
                bindings = list(cls.BINDINGS)
                for widget_module, widget_name in widgets:
                    bindings += list(_screen_class(widget_module, widget_name).BINDINGS)
                yield self._table(key_rows(bindings, keymap, app.get_key_display))
            yield Static(Content("Symbols"), classes="section")
            yield self._table(list(SYMBOLS))
            yield Static(Content("Failure kinds in the list"), classes="section")
            yield self._table([(code, KIND_LABELS[kind]) for kind, code in KIND_CODES.items()])
        yield KeyFooter()

    @staticmethod
    def _table(rows: list[tuple[str, str]]) -> Static:
        width = max((len(key) for key, _ in rows), default=0)
        lines = [join(Content.styled(f"  {key:<{width}}  ", "bold"), Content(text)) for key, text in rows]
        return Static(Content("\n").join(lines) if lines else Content("  (no keys)"))
