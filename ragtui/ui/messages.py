"""Every message the app's widgets and workers send, in one place.

Workers and widgets say what happened; the app decides what to show. A widget that
wants the failure list posts `OpenFailures` rather than importing the screen, so the
dashboard's widgets know nothing about the screens they lead to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from ragtui.ui.models.dashboard import DashboardData


class ComparisonLoaded(Message):
    """The loading worker finished: here is everything the dashboard shows."""

    def __init__(self, data: DashboardData) -> None:
        super().__init__()
        self.data = data


class DashboardPainted(Message):
    """The dashboard has been drawn once: work held back for the first paint can start."""


class IntervalsComputed(Message):
    """The intervals worker finished: the same comparison with its intervals and verdicts."""

    def __init__(self, data: DashboardData) -> None:
        super().__init__()
        self.data = data


class ComparisonFailed(Message):
    """The inputs could not be used (`problems`, one line each), or loading crashed."""

    def __init__(self, problems: list[str], *, internal: bool = False) -> None:
        super().__init__()
        self.problems = problems
        # True for a bug in ragtui rather than a problem in the user's files.
        self.internal = internal


class OpenFailures(Message):
    """Show the failure list, filtered (None means no filter on that field)."""

    def __init__(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None:
        super().__init__()
        self.category = category
        self.failure_kind = failure_kind
        self.status = status


class TradeoffLoaded(Message):
    """The other candidates were compared with A: the trade-off of every run, and those comparisons."""

    def __init__(self, tradeoff, comparisons: list) -> None:
        super().__init__()
        self.tradeoff = tradeoff
        self.comparisons = comparisons  # A → each candidate, in the order given (B first)


class TradeoffFailed(Message):
    """Some candidate could not be used: its problems, one line each (the pair A → B still works)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__()
        self.problems = problems


class PairLoaded(Message):
    """Two runs picked in the trade-off view were compared: the dashboard of that pair."""

    def __init__(self, data: DashboardData, pair: tuple[int, int]) -> None:
        super().__init__()
        self.data = data
        self.pair = pair  # positions of the pair's A and B among every run


class GoldEdited(Message):
    """A fix to the gold set was written to its edits log: the comparison is to be recomputed."""


class GoldRecomputed(Message):
    """The comparison loaded again with the gold set's edits: every screen of it is redrawn."""

    def __init__(self, data: DashboardData) -> None:
        super().__init__()
        self.data = data
