"""The question view's gold keys: fix the gold set from triage, with a reason, and undo.

`g` toggles whether a retrieved passage of the active side is gold (a menu of its top 9,
on the passage the focused sentence cites first); `G` opens the other fixes — mark
unanswerable, change the category, edit the expected answer in $EDITOR, add or remove
a tag; `u` takes back the last fix. The edits log (`core.gold.triage.GoldFixer`, handed
to the view) has each fix on disk before the view moves on; the view then posts
`GoldEdited`, and the app recomputes the comparison with the edits applied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content

from ragtui.core.gold.edits import GoldEdit
from ragtui.core.gold.triage import GoldFixer
from ragtui.core.sanitize import neutralize
from ragtui.ui.messages import GoldEdited
from ragtui.ui.models.question import load_question, retrieved
from ragtui.ui.safe_text import safe
from ragtui.ui.screens.gold_menu import GOLD_FIXES, GoldMenu
from ragtui.ui.screens.menus import Choice, ChoiceMenu, Prompt
from ragtui.ui.widgets.answer_view import sentences

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

    from ragtui.core.comparing.compare import Comparison
    from ragtui.ui.models.question import QuestionData

GOLD_BINDINGS = [
        Binding("g", "gold_passage", "gold?", show=False, tooltip="Toggle whether a retrieved passage is gold (in GOLD.edits.jsonl, with a reason)", id="question.gold_passage"),
        Binding("G", "gold_menu", "fix gold", key_display="G", show=False, tooltip="Fix the gold: unanswerable, category, expected answer, tag", id="question.gold_menu"),
        Binding("u", "gold_undo", "undo gold", show=False, tooltip="Undo the last fix to the gold set", id="question.gold_undo"),
]


class QuestionGoldKeys:
    """Fixing the gold, mixed into the question view (which provides the attributes below)."""

    gold: GoldFixer | None
    comparison: Comparison
    data: QuestionData
    side: str
    sentence_at: dict[str, int]
    app: App[Any]

    if TYPE_CHECKING:  # the view's own, declared for the type checker only
        question_id: str

        def _say(self, message: str, **kwargs: object) -> None: ...

        def post_message(self, message: Message) -> bool: ...

        def redraw(self, *, reset_scroll: bool = False) -> None: ...

    def use_comparison(self, comparison: Comparison) -> None:
        """The comparison recomputed (with the gold fixed): the same question, drawn again."""
        self.comparison = comparison
        self.data = load_question(comparison, self.question_id)
        self.redraw()

    def with_unretrieved_gold(self, row: dict[str, Any] | None) -> dict[str, Any] | None:
        """The row with the corpus text of each gold passage it did not retrieve (`--corpus`)."""
        if row is None or self.gold is None or self.gold.corpus is None:
            return row
        found = {passage for _, passage, _, _ in retrieved(row)}
        missed = [p for p in row.get("gold_passages") or [] if p not in found]
        return row | {"gold_not_retrieved": [(p, self.gold.corpus_text(p)) for p in missed]} if missed else row

    def _gold_fixer(self) -> GoldFixer | None:
        if self.gold is None:
            self._say("no gold set to fix: open the runs with --gold GOLD.yaml", severity="warning", timeout=4)
        return self.gold

    def _gold_recorded(self, made: list[GoldEdit], what: str) -> None:
        """Say what was saved and where; the app recomputes the comparison with it."""
        if self.gold is None or not made:
            self._say(f"{self.question_id}: nothing changed", timeout=3)
            return
        self._say(f"{self.question_id}: {what} — saved in {self.gold.edits.path}", timeout=4)
        self.post_message(GoldEdited())

    def _gold_write(self, edit: Callable[[], list[GoldEdit]], what: str) -> None:
        try:
            made = edit()
        except OSError as exc:
            path = self.gold.edits.path if self.gold is not None else ""
            self._say(f"could not write {path}: {exc.strerror or exc}: nothing changed", severity="error", timeout=10)
            return
        self._gold_recorded(made, what)

    def action_gold_passage(self) -> None:
        """g: pick a retrieved passage of the active side (the one the focused sentence cites first)."""
        fixer = self._gold_fixer()
        row = self.data.rows.get(self.side)
        if fixer is None:
            return
        items = retrieved(row) if row else []
        if not items:
            self._say(f"{self.question_id}: run {self.side} retrieved nothing", timeout=3)
            return
        gold = set(fixer.value(self.question_id, "gold_passages") or [])
        said = sentences(row)
        cited = (said[self.sentence_at[self.side]].get("evidence") or []) if said else []
        shown = items[:9]
        choices = [
            Choice(str(index + 1), Content.assemble("★ " if passage in gold else "  ", safe(passage, one_line=True, limit=30),
                                                    " ", safe(text or "", one_line=True, limit=30).stylize("dim")), passage)
            for index, (_, passage, text, _) in enumerate(shown)
        ]
        focus = next((i for i, (_, passage, _, _) in enumerate(shown) if passage in cited), 0)
        title = Content.assemble("Gold passages of ", safe(self.question_id, one_line=True, limit=30), f" (run {self.side}): ★ is gold, picking toggles")

        def done(result: tuple[str, str] | None) -> None:
            if result is not None:
                passage, why = result
                verb = "no longer gold" if passage in gold else "now gold"
                self._gold_write(lambda: fixer.toggle_gold_passage(self.question_id, passage, why), f"{passage} {verb}")

        self.app.push_screen(GoldMenu(title, choices, highlighted=focus), callback=done)

    def action_gold_menu(self) -> None:
        """G: the other fixes, each with a reason."""
        fixer = self._gold_fixer()
        if fixer is None:
            return
        question = self.question_id

        def done(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            fix, why = result
            if fix == "unanswerable":
                self._gold_write(lambda: fixer.mark_unanswerable(question, why), "marked unanswerable")
            elif fix == "category":
                self._choose_category(fixer, question, why)
            elif fix == "expected_answer":
                self._edit_expected_answer(fixer, question, why)
            elif fix == "tag":
                self._choose_tag(fixer, question, why)

        title = Content.assemble("Fix the gold of ", safe(question, one_line=True, limit=40))
        self.app.push_screen(GoldMenu(title, GOLD_FIXES), callback=done)

    def _choose_category(self, fixer: GoldFixer, question: str, why: str) -> None:
        current = fixer.value(question, "category")
        letters = "abcdefghijklmnopqrstuvwxyz"
        choices = [
            Choice(letters[i], safe(self.comparison.config.category_name(c), one_line=True, limit=50), c)
            for i, c in enumerate(c for c in fixer.categories() if c != current) if i < len(letters)
        ]

        def done(category: str | None) -> None:
            if category is not None:
                self._gold_write(lambda: fixer.set_category(question, category, why), f"category {category}")

        self.app.push_screen(ChoiceMenu(Content.assemble("New category of ", safe(question, one_line=True, limit=40)), choices), callback=done)

    def _choose_tag(self, fixer: GoldFixer, question: str, why: str) -> None:
        has = fixer.value(question, "tags") or []
        hint = f"a tag to add, or one of {', '.join(has)} to remove (Tab completes, Enter records, Esc cancels)" if has else "a tag to add (Tab completes, Enter records, Esc cancels)"

        def done(value: str | None) -> None:
            tag = (value or "").strip()
            if tag:
                verb = "removed" if tag in has else "added"
                self._gold_write(lambda: fixer.toggle_tag(question, tag, why), f"tag {tag} {verb}")

        self.app.push_screen(Prompt("tag", neutralize(hint), suggestions=fixer.tags()), callback=done)

    def _edit_expected_answer(self, fixer: GoldFixer, question: str, why: str) -> None:
        from ragtui.ui.external import edit_outside

        before = fixer.value(question, "expected_answer") or ""
        edited, message = edit_outside(self.app, before, name=neutralize(f"{question}-expected.txt", keep_newlines=False).replace("/", "_"))
        if edited is None:
            self._say(message, severity="warning", timeout=5)
            return
        self._gold_write(lambda: fixer.set_expected_answer(question, edited or None, why), "expected answer edited")

    def action_gold_undo(self) -> None:
        """u: take back the last fix to the gold set (whatever question it was on)."""
        fixer = self._gold_fixer()
        if fixer is None:
            return
        try:
            undone = fixer.undo()
        except OSError as exc:
            self._say(f"could not write {fixer.edits.path}: {exc.strerror or exc}: nothing undone", severity="error", timeout=10)
            return
        if not undone:
            self._say("no fix to the gold set to undo", timeout=3)
            return
        first = undone[0]
        self._say(f"undone: {first.question} {first.field} — saved in {fixer.edits.path}", timeout=4)
        self.post_message(GoldEdited())

