"""`TriageScreen`: the base of the screens that triage questions — the question view, the
failure list and the verdict inspector — with the keys they share as typed methods.

Mark, copy, pager, editor, jump and export act on the question a screen names
(`triage_target`); the person's label keys (`+`, `-`, `1`–`5`, `0`) on the answer and
sentence it names (`label_target`); the search index is built once per comparison, in a
worker on a large one. Marks, labels and the index live in the screen's `Session`, so
every screen sees the same ones. A screen adds `TRIAGE_BINDINGS` (and `LABEL_BINDINGS`
where it labels) to its own and overrides the hooks it needs.

A question whose rows are long (a 5,000-sentence answer read back from a JSONL run takes
most of a second) is read in a worker, kept in the session's `QuestionRows`, with
"loading the question…" said first (`read_rows_then`): the question view steps onto it
that way, and `y`, `o`, `e` on the failure list wait for it before they offer its texts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.worker import get_current_worker

from ragtui.core.triage.notes import MARK_LABELS, Notes
from ragtui.ui.content.safe_text import safe, toast
from ragtui.ui.models.labelling import Labelling, LabelsUnwritable
from ragtui.ui.models.session import Session

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.measuring.evaluate import Evaluation
    from ragtui.core.triage.search import SearchIndex
    from ragtui.ui.models.question_texts import QuestionText

# From this many questions, the search index is built in a worker: the screen stays usable
# while every text of both runs is read and normalised (28 s at 100,000 accented ones).
BACKGROUND_INDEX_FROM = 20_000
# From this many questions, a term's match (a scan of every question's texts: 25-55 ms of
# CPU at 100,000, ten times that at a million) runs in a worker too.
SEARCH_IN_WORKER_FROM = BACKGROUND_INDEX_FROM
# Up to this many questions, `X` writes its file at once; more in a worker (about 18 µs a
# question: 1.8 s for a whole listed failure list of 100,000, which the screen does not wait for).
EXPORTED_AT_ONCE = 2_000
INDEXING = "indexing the texts for the search…"  # what the list and the question view say meanwhile
SEARCHING = "searching…"  # what the list and the question view say while a worker matches a term
READING = "loading the question…"  # what a screen says while a long question's rows are read in a worker

# Footer-less keys (the `?` screen lists them): 80 columns hold only the most used.
TRIAGE_BINDINGS = [
    Binding("m", "mark", "mark", tooltip="Mark this question: ok, bug, gold wrong, flaky, with a note", id="triage.mark"),
    Binding("y", "copy", "copy", show=False, tooltip="Copy the id, question, answer, passages, record or a reopen command", id="triage.copy"),
    Binding("o", "pager", "pager", show=False, tooltip="Read a text of this question in $PAGER", id="triage.pager"),
    Binding("e", "editor", "editor", show=False, tooltip="Open a read-only copy of a text in $EDITOR", id="triage.editor"),
    Binding("colon", "jump", "jump", key_display=":", show=False, tooltip="Jump to any question by id, passing ones too", id="triage.jump"),
    Binding("X", "export", "export", key_display="X", show=False, tooltip="Export the marked (else the listed) questions as markdown or JSONL", id="triage.export"),
]

# Not compact: the keys must read apart ("+ - 1–5 0 person", not "+-1–50 person").
_PERSON = Binding.Group("person", compact=False)

LABEL_BINDINGS = [
    Binding("plus", "label_sentence(True)", "attested", key_display="+", group=_PERSON, id="label.attested",
            tooltip="Person: the focused sentence is attested by the passages"),
    Binding("minus", "label_sentence(False)", "not attested", key_display="-", group=_PERSON, id="label.not_attested",
            tooltip="Person: the focused sentence is not attested"),
    Binding("1", "label_utility(1)", "utility 1–5", key_display="1–5", group=_PERSON, id="label.utility_1",
            tooltip="Person: the answer's utility, 1 (useless) to 5"),
    *[Binding(str(n), f"label_utility({n})", f"utility {n}", show=False, id=f"label.utility_{n}") for n in range(2, 6)],
    Binding("0", "label_clear", "clear", key_display="0", group=_PERSON, id="label.clear",
            tooltip="Clear the person's label of the focused sentence (else of the utility)"),
]


def mark_text(notes: Notes, question_id: str) -> Content | None:
    """`[bug] the note` for a marked question, None for an unmarked one."""
    mark = notes.get(question_id)
    if mark is None or mark.mark is None:
        return None
    parts: list[Content | str] = [Content(f"[{MARK_LABELS[mark.mark]}]").stylize("bold reverse")]
    if mark.note:
        parts += [" ", safe(mark.note, one_line=True, limit=120)]
    return Content.assemble(*parts)


class TriageScreen(Screen[Any]):
    """A screen about the questions of one comparison; see the module docstring."""

    def __init__(self, comparison: Comparison, *, session: Session | None = None, **screen: Any) -> None:
        """`session`: the app's (marks, labels and the search index shared with every screen);
        None for a screen opened on its own, which gets a session of its own."""
        super().__init__(**screen)
        self.comparison = comparison
        self.session = session if session is not None else Session.over(comparison)
        self._reading: tuple[Comparison, str] | None = None  # the question whose long rows a worker reads now, of which comparison
        self._then_read: Callable[[Comparison, str], None] | None = None  # what is done once they are read

    # -- what the screen provides -------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        """(the question the keys act on, or None; the side, "A" or "B")."""
        raise NotImplementedError

    def after_mark(self, question_id: str) -> None:
        """Redraw what shows the mark."""

    def jump_to(self, question_id: str) -> None:
        """Show `question_id` (an id of the comparison)."""
        raise NotImplementedError

    def export_ids(self) -> tuple[list[str], str]:
        """The ids `X` exports when nothing is marked, and what they are ("listed")."""
        question_id, _ = self.triage_target()
        return ([question_id] if question_id else []), "shown"

    def loaded_rows(self) -> dict[str, dict[str, Any] | None]:
        """The rows of the target question the screen holds already, by side ("A", "B"):
        the texts to copy are made from them rather than read again (most of a second for
        a 5,000-sentence row)."""
        return {}

    def label_target(self) -> tuple[str, str, int | None, int] | None:
        """(side, question id, focused sentence or None, sentence count), or None: nothing to label."""
        return None

    def label_sampled(self) -> bool:
        """True when labels made here are drawn from the random queue."""
        return False

    def label_changed(self, *, sentence_labelled: bool) -> None:
        """Redraw after a label; `sentence_labelled` when a sentence just got a label."""

    # -- what the session holds -----------------------------------------------------------

    @property
    def notes(self) -> Notes:
        return self.session.notes_of(self.comparison)

    @property
    def labelling(self) -> Labelling:
        return self.session.labelling_of(self.comparison)

    def say(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None) -> None:
        """A toast from this screen (`toast`: its text names ids and paths from the files)."""
        toast(self, message, title=title, severity=severity, timeout=timeout)

    # -- the search index -------------------------------------------------------------------

    def index_in_background(self) -> bool:
        """Whether the search index is still to build and large enough to build in a worker."""
        return self.comparison.a.questions.height >= BACKGROUND_INDEX_FROM and self.session.search.built(self.comparison) is None

    def match_in_background(self, term: str) -> bool:
        """Whether finding `term` is a scan large enough to run in a worker (its matches are
        not remembered from a search just made)."""
        if self.comparison.a.questions.height < SEARCH_IN_WORKER_FROM:
            return False
        index = self.session.search.built(self.comparison)
        return index is None or not index.remembered(term)

    def search_index(self) -> SearchIndex:
        """The comparison's search index, built now if it is not yet."""
        return self.session.search.of(self.comparison)

    def build_index_then(self, done: Callable[[SearchIndex], None]) -> None:
        """Build the search index in a worker, then call `done` with it on the UI thread."""

        def build() -> None:
            index = self.search_index()
            with contextlib.suppress(RuntimeError):  # the app quit while the index was built
                self.app.call_from_thread(done, index)

        self.run_worker(build, thread=True, exclusive=True, group="search-index")

    # -- a question's rows: at once when short, else read in a worker (`QuestionRows`) --------

    def _evaluations(self) -> list[Evaluation]:
        return [e for e in (self.comparison.a, self.comparison.b) if e is not None]

    def rows_at_once(self, question_id: str) -> bool:
        """Whether every run's row of `question_id` is cheap to have now (kept, or a short line)."""
        rows = self.session.rows
        return all(rows.at_once(evaluation, question_id) for evaluation in self._evaluations())

    def read_rows_then(self, question_id: str, then: Callable[[Comparison, str], None]) -> None:
        """Read every run's row of `question_id` into the session's `QuestionRows` in a
        worker, then call `then(comparison, question_id)` on the UI thread (`then` checks the
        rows are still wanted: the screen may have moved on). Call it once the screen has
        painted what it says meanwhile (`call_after_refresh`): the worker's parsing holds
        the GIL. The latest request wins: one for the question being read replaces its
        `then` (the rows are not read twice); one for another question, or of another
        comparison (recomputed after a gold fix), cancels that worker (it stops before its
        next run; what it read is kept, and never handed over)."""
        self._then_read = then
        if self._reading_now(self.comparison, question_id):
            return
        comparison, rows, evaluations = self.comparison, self.session.rows, self._evaluations()
        self._reading = (comparison, question_id)

        def read() -> None:
            worker = get_current_worker()
            for evaluation in evaluations:
                if worker.is_cancelled:
                    return
                rows.row(evaluation, question_id)
            with contextlib.suppress(RuntimeError):  # the app quit while the rows were read
                self.app.call_from_thread(self._rows_arrived, comparison, question_id)

        self.run_worker(read, thread=True, exclusive=True, group="question-rows")

    def _reading_now(self, comparison: Comparison, question_id: str) -> bool:
        return self._reading is not None and self._reading[0] is comparison and self._reading[1] == question_id

    def _rows_arrived(self, comparison: Comparison, question_id: str) -> None:
        if not self._reading_now(comparison, question_id) or self._then_read is None:
            return  # stopped, or another question's rows are wanted now
        then, self._reading, self._then_read = self._then_read, None, None
        then(comparison, question_id)

    def stop_reading_rows(self) -> bool:
        """Stop the worker reading a question's rows, if one is; True when one was."""
        if self._reading is None:
            return False
        self._reading, self._then_read = None, None
        self.workers.cancel_group(self, "question-rows")
        return True

    # -- the texts of a question ------------------------------------------------------------

    def _texts(self) -> list[QuestionText] | None:
        from ragtui.ui.models.question_texts import question_texts

        question_id, side = self.triage_target()
        if question_id is None:
            self.say("no question here", timeout=2)
            return None
        session = self.session
        return question_texts(self.comparison, question_id, side, session.inputs, session.diffs, self.loaded_rows(), session.rows)

    def _texts_at_once(self) -> bool:
        """Whether the texts of the target question can be listed now, without reading
        a long row (else `_choose_text` reads it in a worker first)."""
        question_id, _ = self.triage_target()
        return question_id is None or bool(self.loaded_rows()) or self.rows_at_once(question_id)

    def show_reading(self, question_id: str | None) -> None:
        """Say that `question_id`'s rows are being read for a key (None: no longer). A
        screen that reaches this draws it in place (the failure list, in its detail line):
        that is painted before the worker starts, where a toast is mounted over several
        turns of the event loop, each slowed by the read."""
        if question_id is not None:
            self.say(f"{READING} (Esc stops)", timeout=3)

    def _choose_text(self, verb: str, then: Callable[[QuestionText], None]) -> None:
        from ragtui.ui.screens.menus import Choice, ChoiceMenu

        if not self._texts_at_once():
            question_id, _ = self.triage_target()
            assert question_id is not None

            def read_then_choose(_comparison: Comparison, read: str) -> None:
                # Only for the question still targeted, on the screen still shown: the
                # person moved on otherwise (its rows are kept for a return).
                if self.is_current and self.triage_target()[0] == read:
                    self.show_reading(None)
                    self._choose_text(verb, then)

            self.show_reading(question_id)
            self.call_after_refresh(self.read_rows_then, question_id, read_then_choose)
            return
        texts = self._texts()
        if not texts:
            return
        # Not q: q closes every menu.
        letters = "itapr" + "vc"
        by_key = {"id": "i", "question": "t", "answer": "a", "diff": "d", "passages": "p", "record": "r", "verdict": "v", "command": "c"}
        choices = [Choice(by_key.get(t.key, letters[i % len(letters)]), t.label, t) for i, t in enumerate(texts)]
        question_id, _ = self.triage_target()
        title = Content.assemble(f"{verb} · ", safe(question_id or "", one_line=True, limit=40).stylize("bold"))

        def chosen(text: QuestionText | None) -> None:
            if text is not None:
                self._make_text_then(text, then)

        self.app.push_screen(ChoiceMenu(title, choices), callback=chosen)

    def _make_text_then(self, text: QuestionText, then: Callable[[QuestionText], None]) -> None:
        """Make a slow `text` in a worker (a record or a diff of a 5,000-sentence answer
        takes most of a second), then call `then` with it on the UI thread. A newer pick
        replaces a text still being made; the screen keeps answering meanwhile."""

        if not text.slow:
            then(text)
            return

        def make() -> None:
            _ = text.text  # made here, kept by the QuestionText
            with contextlib.suppress(RuntimeError):  # the app quit while the text was made
                self.app.call_from_thread(then, text)

        self.say(f"making the {text.label}…", timeout=2)
        self.run_worker(make, thread=True, exclusive=True, group="question-text")

    # -- actions --------------------------------------------------------------------------

    def action_mark(self) -> None:
        from ragtui.ui.screens.menus import MarkMenu

        question_id, _ = self.triage_target()
        if question_id is None:
            self.say("no question to mark here", timeout=2)
            return

        def done(result: tuple[str | None, str] | None) -> None:
            if result is None:
                return
            mark, note = result
            try:
                self.notes.set(question_id, mark, note)
            except OSError as exc:
                self.say(f"could not write {self.notes.path}: {exc.strerror or exc}", severity="error", timeout=10)
                return
            what = f"marked {MARK_LABELS[mark]}" if mark else "mark removed"
            self.say(f"{question_id}: {what} — saved in {self.notes.path}", timeout=4)
            self.after_mark(question_id)

        self.app.push_screen(MarkMenu(question_id, self.notes.get(question_id)), callback=done)

    def action_copy(self) -> None:
        def copy(text: QuestionText) -> None:
            self.app.copy_to_clipboard(text.text)
            self.say(
                f"copied the {text.label} ({len(text.text):,} characters) to the clipboard with OSC 52: "
                "the terminal holds it (in tmux: set-clipboard on)",
                timeout=5,
            )

        self._choose_text("Copy", copy)

    def _outside(self, variable: str) -> None:
        from ragtui.ui.external import show_outside

        question_id, side = self.triage_target()

        def show(text: QuestionText) -> None:
            suffix = ".json" if text.key in ("record", "verdict") else ".txt"
            message = show_outside(self.app, text.text, variable=variable, name=f"{question_id}-{side}-{text.key}", suffix=suffix)
            self.say(message, timeout=3)

        self._choose_text("Read in $" + variable if variable == "PAGER" else "Open a copy in $" + variable, show)

    def action_pager(self) -> None:
        self._outside("PAGER")

    def action_editor(self) -> None:
        self._outside("EDITOR")

    def action_jump(self) -> None:
        from ragtui.ui.screens.menus import Prompt

        ids = self.comparison.status.get_column("id").to_list()

        def go(value: str | None) -> None:
            wanted = (value or "").strip()
            if not wanted:
                return
            if self.comparison.a.question(wanted, texts=False) is None and wanted not in ids:
                self.say(f"no question {wanted!r} in this comparison", severity="warning", timeout=4)
                return
            self.jump_to(wanted)

        self.app.push_screen(Prompt(":", "jump to a question id (Tab completes, Enter goes, Esc cancels)", suggestions=ids), callback=go)

    def action_export(self) -> None:
        from ragtui.core.triage.export import EXTENSIONS, FORMATS
        from ragtui.ui.screens.menus import Choice, ChoiceMenu

        marked = [qid for qid in self.notes.ids()]
        ids, what = (marked, "marked") if marked else self.export_ids()
        if not ids:
            self.say("nothing to export: no marked or listed question", timeout=3)
            return
        base = self.notes.path.with_name(self.notes.path.name.removesuffix(".notes.jsonl") + ".triage")
        choices = [
            Choice("m", f"markdown, for a PR comment → {base.name}{EXTENSIONS['markdown']}", "markdown"),
            Choice("j", f"JSONL, one question a line → {base.name}{EXTENSIONS['jsonl']}", "jsonl"),
        ]
        assert set(FORMATS) == {c.value for c in choices}

        def write(fmt: str | None) -> None:
            if fmt is None:
                return
            from ragtui.core.atomic import atomic_write_text
            from ragtui.core.triage.export import render_export

            path = base.with_name(base.name + EXTENSIONS[fmt])
            comparison, notes = self.comparison, self.notes

            def export() -> tuple[str, SeverityLevel, float]:
                try:
                    atomic_write_text(path, render_export(comparison, ids, notes, fmt, what))
                except OSError as exc:
                    return f"could not write {path}: {exc.strerror or exc}", "error", 10
                return f"exported {len(ids)} {what} question(s) to {path}", "information", 6

            if len(ids) <= EXPORTED_AT_ONCE:
                message, severity, timeout = export()
                self.say(message, severity=severity, timeout=timeout)
                return

            def export_in_worker() -> None:
                message, severity, timeout = export()
                with contextlib.suppress(RuntimeError):  # the app quit while the file was written
                    self.app.call_from_thread(toast, self.app, message, severity=severity, timeout=timeout)

            self.say(f"exporting {len(ids):,} {what} questions to {path}…", timeout=3)
            self.run_worker(export_in_worker, thread=True, group="export")

        title = f"Export {len(ids)} {what} question{'s' if len(ids) != 1 else ''}"
        self.app.push_screen(ChoiceMenu(title, choices), callback=write)

    # -- the person's labels: each key appends one event to the labels file at once ------------

    def _write_label(self, write: Callable[[], None]) -> bool:
        try:
            write()
        except LabelsUnwritable as exc:
            self.say(str(exc), title="Labels not saved", severity="error", timeout=10)
            return False
        return True

    def action_label_sentence(self, attested: bool) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, sentence, count = target
        if sentence is None or count == 0:
            self.notify("no judged sentence to label here: set the utility (1–5)", timeout=3)
            return
        labelling = self.labelling
        if self._write_label(lambda: labelling.sentence(side, question_id, sentence, attested, sampled=self.label_sampled())):
            self.label_changed(sentence_labelled=True)

    def action_label_utility(self, score: int) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, _, _ = target
        labelling = self.labelling
        if self._write_label(lambda: labelling.utility(side, question_id, float(score), sampled=self.label_sampled())):
            self.label_changed(sentence_labelled=False)

    def action_label_clear(self) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, sentence, _ = target
        labelling = self.labelling
        said = labelling.of(side, question_id)
        if sentence is not None and sentence in said.sentences:
            done = self._write_label(lambda: labelling.sentence(side, question_id, sentence, None, sampled=self.label_sampled()))
        elif said.utility is not None:
            done = self._write_label(lambda: labelling.utility(side, question_id, None, sampled=self.label_sampled()))
        else:
            self.notify("no person's label here to clear", timeout=2)
            return
        if done:
            self.label_changed(sentence_labelled=False)
