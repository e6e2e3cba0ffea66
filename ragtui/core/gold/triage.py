"""Fixing the gold set from triage: what the question view's gold keys do, without a UI.

`GoldFixer` holds the gold set as loaded, its edits log (`GoldEdits`, appended and synced
at each edit) and, when given, the corpus. Each method records one action (one or more
edits sharing a reason) and returns the edits made; `current` is the gold set with every
edit in force, which the comparison is recomputed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtui.core.gold.edits import GoldEdit, GoldEdits, apply_edits, gold_value
from ragtui.core.loading.corpus import Corpus
from ragtui.core.loading.gold import GoldSet


@dataclass
class GoldFixer:
    """The gold set of a comparison, its edits log and its corpus (None: no --corpus)."""

    gold: GoldSet
    edits: GoldEdits
    corpus: Corpus | None = None
    unanswerable_categories: tuple[str, ...] = ("sans_reponse",)
    _current: GoldSet | None = field(default=None, repr=False)

    @classmethod
    def open(cls, gold: GoldSet, edits_path: Path, corpus: Corpus | None, unanswerable_categories: tuple[str, ...]) -> GoldFixer:
        return cls(gold, GoldEdits.load(edits_path), corpus, unanswerable_categories)

    @property
    def current(self) -> GoldSet:
        """The gold set with every edit in force."""
        if self._current is None:
            self._current = apply_edits(self.gold, self.edits.edits).gold
        return self._current

    @property
    def pending(self) -> int:
        """Edits that change the gold set as it is on disk."""
        return len(apply_edits(self.gold, self.edits.edits).pending)

    def value(self, question: str, name: str) -> Any:
        return gold_value(self.current, question, name)

    def categories(self) -> list[str]:
        """Every category of the gold set, in order of first appearance."""
        return list(dict.fromkeys(c for c in self.current.frame.get_column("category").to_list() if c is not None))

    def tags(self) -> list[str]:
        """Every tag of the gold set, in order of first appearance."""
        return list(dict.fromkeys(t for tags in self.current.frame.get_column("tags").to_list() for t in tags or []))

    def _record(self, changes: list[tuple[str, str, Any, Any]], why: str) -> list[GoldEdit]:
        changes = [c for c in changes if c[2] != c[3]]
        if not changes:
            return []
        made = self.edits.record(changes, why)
        self._current = None
        return made

    def toggle_gold_passage(self, question: str, passage: str, why: str = "") -> list[GoldEdit]:
        """Add `passage` to the question's gold passages, or remove it when it is one."""
        before = list(self.value(question, "gold_passages") or [])
        after = [p for p in before if p != passage] if passage in before else [*before, passage]
        return self._record([(question, "gold_passages", before, after)], why)

    def set_category(self, question: str, category: str, why: str = "") -> list[GoldEdit]:
        return self._record([(question, "category", self.value(question, "category"), category)], why)

    def set_expected_answer(self, question: str, answer: str | None, why: str = "") -> list[GoldEdit]:
        return self._record([(question, "expected_answer", self.value(question, "expected_answer"), answer)], why)

    def toggle_tag(self, question: str, tag: str, why: str = "") -> list[GoldEdit]:
        """Add `tag` to the question, or remove it when it has it."""
        before = list(self.value(question, "tags") or [])
        after = [t for t in before if t != tag] if tag in before else [*before, tag]
        return self._record([(question, "tags", before, after)], why)

    def mark_unanswerable(self, question: str, why: str = "") -> list[GoldEdit]:
        """No gold passage, and the first unanswerable category (one action, one undo)."""
        changes: list[tuple[str, str, Any, Any]] = [(question, "gold_passages", list(self.value(question, "gold_passages") or []), [])]
        category = self.value(question, "category")
        if self.unanswerable_categories and category not in self.unanswerable_categories:
            changes.append((question, "category", category, self.unanswerable_categories[0]))
        return self._record(changes, why)

    def undo(self) -> list[GoldEdit]:
        """Take back the last action; its edits (none when there was nothing to undo)."""
        undone = self.edits.undo()
        self._current = None
        return undone

    def corpus_text(self, passage: str) -> str | None:
        return self.corpus.text(passage) if self.corpus is not None else None
