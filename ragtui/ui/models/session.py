"""Everything one run of the app owns, typed and without Textual: the `Session`.

The inputs, the comparison on screen and its dashboard data, the marks (`Notes`), the
people's labels (`Labelling`), the search index, the other candidates' comparisons and
their trade-off. `RagtuiApp(session)` wraps each slow call here in a worker and posts
its result as a typed message; every screen reads the one session it is given. A test
passes a session over fixture runs (or over a `Comparison` it made, `Session.over`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ragtui.core.triage.notes import Notes, default_notes_path
from ragtui.ui.models.answer_diffs import AnswerDiffs
from ragtui.ui.models.question_rows import QuestionRows

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.comparing.tradeoff import Tradeoff
    from ragtui.core.gold.triage import GoldFixer
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.triage.search import SearchIndexes
    from ragtui.ui.models.dashboard import DashboardData
    from ragtui.ui.models.labelling import Labelling


def _search_indexes() -> SearchIndexes:
    # Imported when a session is made, not with this module: the app imports it before
    # the loading thread has imported polars (the index is polars columns).
    from ragtui.core.triage.search import SearchIndexes

    return SearchIndexes()


@dataclass
class Session:
    """The state of one app run; see the module docstring."""

    inputs: Inputs | None  # None: a session over a comparison made elsewhere (`over`)
    notes_path: Path | None = None  # --notes FILE; None: beside run B (or A alone)
    data: DashboardData | None = None  # the dashboard on screen (its comparison: `comparison`)
    comparison: Comparison | None = None
    notes: Notes | None = None  # read with the first comparison (`read_notes`), or at first use
    labelling: Labelling | None = None  # made at the first label key, for the comparison on screen
    gold: GoldFixer | None = None  # the gold set's fixes from triage (--gold), opened with the first triage screen
    search: SearchIndexes = field(default_factory=_search_indexes)
    diffs: AnswerDiffs = field(default_factory=AnswerDiffs)  # each question's answer diff, made once (`d`, copy)
    rows: QuestionRows = field(default_factory=QuestionRows)  # each question's rows with their texts, read once
    # More than two runs: the trade-off of every run, and each pair compared so far,
    # (position of A, position of B) among `inputs.runs` → their comparison.
    tradeoff: Tradeoff | None = None
    tradeoff_problems: list[str] = field(default_factory=list)
    pairs: dict[tuple[int, int], Comparison] = field(default_factory=dict)
    current_pair: tuple[int, int] = (0, 1)

    @classmethod
    def over(cls, comparison: Comparison, *, notes_path: Path | None = None) -> Session:
        """A session on a comparison already loaded (a screen opened on its own, a test)."""
        return cls(None, notes_path=notes_path, comparison=comparison)

    @property
    def several_runs(self) -> bool:
        """More than two runs were given: the trade-off view exists."""
        return self.inputs is not None and bool(self.inputs.others)

    # ---- loading (each called by one worker of the app) -------------------------------

    def load_values(self) -> DashboardData:
        """Read, measure and compare the runs; the intervals are left pending (`fill_intervals`).

        Raises:
            InputError: the inputs cannot be used (every problem, located).
        """
        from ragtui.core import session
        from ragtui.ui.models.dashboard import build_dashboard_data

        assert self.inputs is not None, "a session over a comparison has nothing to load"
        return build_dashboard_data(session.load_comparison(self.inputs, intervals=False))

    @staticmethod
    def fill_intervals(data: DashboardData) -> DashboardData:
        """`data` with the intervals, verdicts and target readings its load left pending."""
        from ragtui.core.comparing import intervals
        from ragtui.ui.models.dashboard import with_intervals

        assert data.comparison is not None, "intervals are computed for a loaded comparison"
        return with_intervals(data, intervals.with_intervals(data.comparison))

    def compare_others(self, first: Comparison) -> tuple[Tradeoff, list[Comparison]]:
        """A compared with every other candidate (the engine of `ragtui report A B1 B2 …`),
        and the trade-off of every run; `first` is A → B, already compared."""
        from ragtui.core import session
        from ragtui.core.comparing.tradeoff import build_tradeoff

        assert self.inputs is not None
        others = session.load_comparisons(replace(self.inputs, others=()), list(self.inputs.others))
        comparisons = [first, *others]
        return build_tradeoff(comparisons), comparisons

    def compare_pair(self, left: int, right: int) -> DashboardData:
        """The dashboard of run `left` (as A) against run `right` (as B), reusing a pair compared before."""
        from ragtui.core import session
        from ragtui.ui.models.dashboard import build_dashboard_data

        comparison = self.pairs.get((left, right))
        if comparison is None:
            assert self.inputs is not None
            runs = self.inputs.runs
            variants = (self.inputs.variants[left] if left < 2 else None, self.inputs.variants[right] if right < 2 else None)
            comparison = session.load_comparison(replace(self.inputs, a=runs[left], b=runs[right], others=(), variants=variants))
        return build_dashboard_data(comparison)

    # ---- what is on screen ----------------------------------------------------------------

    def show(self, data: DashboardData, pair: tuple[int, int] | None = None) -> None:
        """`data` is the dashboard on screen now (a load, its intervals, a pair picked)."""
        assert data.comparison is not None
        self.data = data
        self.comparison = data.comparison
        if pair is not None:
            self.pairs[pair] = data.comparison
            self.current_pair = pair

    def keep_tradeoff(self, tradeoff: Tradeoff, comparisons: list[Comparison]) -> None:
        self.tradeoff = tradeoff
        for position, comparison in enumerate(comparisons, start=1):
            self.pairs[(0, position)] = comparison

    # ---- marks and labels ---------------------------------------------------------------

    def read_notes(self, comparison: Comparison) -> Notes:
        """Read the marks sidecar of `comparison` (`--notes FILE`, else beside run B, or A
        alone); its unreadable lines are in `Notes.problems`, for the app to name."""
        run = comparison.b.run if comparison.b is not None else comparison.a.run
        self.notes = Notes.load(self.notes_path or default_notes_path(run.path))
        return self.notes

    def notes_of(self, comparison: Comparison) -> Notes:
        """The marks, read at first use when no load read them."""
        return self.notes if self.notes is not None else self.read_notes(comparison)

    def labelling_of(self, comparison: Comparison) -> Labelling:
        """The one `Labelling` of the comparison on screen, made at first use."""
        from ragtui.ui.models.labelling import Labelling

        if self.labelling is None or self.labelling.comparison is not comparison:
            self.labelling = Labelling(comparison)
        return self.labelling

    def open_gold(self) -> list[tuple[str, Literal["warning", "error"], str]]:
        """Open the gold set as on disk, its edits log and the corpus (`--corpus`) for fixes
        from triage, once (nothing without --gold); (title, severity, message) of each file
        that could not be read — the view goes on without it."""
        inputs, comparison = self.inputs, self.comparison
        if self.gold is not None or inputs is None or inputs.gold is None or comparison is None:
            return []
        from ragtui.core.errors import InputError
        from ragtui.core.gold.triage import GoldFixer
        from ragtui.core.loading.corpus import load_corpus
        from ragtui.core.loading.gold import load_gold

        edits_path = inputs.gold_edits_path()
        assert edits_path is not None  # there is a gold set
        try:
            gold = load_gold(inputs.gold)
        except InputError as exc:
            return [("Gold set", "error", str(exc.problems[0]))]
        said: list[tuple[str, Literal["warning", "error"], str]] = []
        corpus = None
        if inputs.corpus is not None:
            try:
                corpus = load_corpus(inputs.corpus)
            except InputError as exc:
                said.append(("Corpus", "warning", f"corpus not read: {exc.problems[0]}"))
        self.gold = GoldFixer.open(gold, edits_path, corpus, comparison.config.unanswerable_categories)
        return said

    @property
    def labels_version(self) -> int:
        """Bumped at each label made: what depends on the labels redraws when it moved."""
        return self.labelling.version if self.labelling is not None else 0
