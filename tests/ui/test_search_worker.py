"""The search on a large comparison: its match runs in a worker and the keys answer
meanwhile. In the question view a newer search replaces an older one and Esc stops it; in
the failure list the term typed meanwhile is the one applied."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from ragtui.core.triage import search
from ragtui.ui.screens import triage
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.conftest import poll_until
from tests.ui.triage_data import host_app

NARROW = (80, 24)


def _open(comparison, ids, index=0):
    return host_app(lambda: QuestionScreen(comparison, ids, index))


def _header(app) -> str:
    return str(app.screen.query_one("#question-header", Static).render())


@pytest.fixture
def held_match(monkeypatch):
    """Every comparison counts as large, and the match of a term waits until the test sets
    its event (`held_match[term]`): what a match over a million questions looks like to the UI."""
    monkeypatch.setattr(triage, "SEARCH_IN_WORKER_FROM", 0)
    releases: dict[str, threading.Event] = {}
    matching = search.SearchIndex.matching

    def held(self, term):
        releases.setdefault(term, threading.Event()).wait(10)
        return matching(self, term)

    monkeypatch.setattr(search.SearchIndex, "matching", held)
    return lambda term: releases.setdefault(term, threading.Event())


async def test_a_large_comparisons_search_matches_in_a_worker_and_the_keys_answer_meanwhile(triage, held_match):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"PÉRIODE", "enter")  # matches "periode" (proc-02) only
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.question_id == "proc-01"  # not yet: the match runs
        assert "Search   “PÉRIODE” · searching… (the keys still answer, Esc stops)" in _header(pilot.app)
        await pilot.press("d")  # another key answers while the match is held
        assert screen.has_class("-diff")
        await pilot.press("d")
        assert not screen.has_class("-diff")
        held_match("PÉRIODE").set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.question_id == "proc-02"
        assert "Search   “PÉRIODE” · match 1 of 1" in _header(pilot.app)
        assert "searching" not in _header(pilot.app)


async def test_a_newer_search_replaces_an_older_one_still_matching(triage, held_match):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"teletravail", "enter")  # would stay on proc-01
        await pilot.pause()
        await pilot.press("slash", "ctrl+u", *"PÉRIODE", "enter")  # proc-02 only
        await pilot.pause()
        assert "“PÉRIODE” · searching…" in _header(pilot.app)
        held_match("PÉRIODE").set()
        await pilot.pause(0.2)
        held_match("teletravail").set()  # the older one ends last: its result is dropped
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.question_id == "proc-02"
        assert screen.matches is not None and screen.matches.term == "PÉRIODE" and screen.matches.ids == ["proc-02"]


async def test_esc_stops_a_search_still_matching_and_the_view_stays(triage, held_match):
    async with _open(triage, ["proc-01", "proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"PÉRIODE", "enter")
        await pilot.pause()
        await pilot.press("escape")  # stops the search, not the screen
        screen = pilot.app.screen
        assert isinstance(screen, QuestionScreen)
        assert "Search" not in _header(pilot.app)
        held_match("PÉRIODE").set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.question_id == "proc-01" and screen.matches is None
        assert screen.question_ids == ["proc-01", "proc-02"]
        await pilot.press("n")  # the list it was opened with, stepped as before
        assert screen.question_id == "proc-02"


async def test_a_small_comparisons_search_is_found_at_once(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"PÉRIODE", "enter")
        assert pilot.app.screen.question_id == "proc-02"  # no worker waited for
        assert "searching" not in _header(pilot.app)


async def test_the_failure_lists_search_matches_in_a_worker_and_applies_the_term_typed_meanwhile(triage, held_match):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        everything = screen.rows.ids()
        await pilot.press("slash", *"TELE")
        filters = screen.query_one("#failures-filters")
        assert "searching…" in str(filters.render())
        assert screen.rows.ids() == everything  # not filtered yet
        await pilot.press(*"TRAVAIL", "enter", "down")  # typed while "TELE" is matched; the keys answer
        assert screen.table.cursor == 1
        held_match("TELE").set()
        await poll_until(pilot, lambda: screen._matching == "TELETRAVAIL")  # the field's term now, matched next
        assert "searching…" in str(filters.render())
        assert screen.rows.ids() == everything  # "TELE" is no longer the field's term: not applied
        held_match("TELETRAVAIL").set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.rows.ids() == ["proc-01"]
        assert "searching" not in str(filters.render()) and "“TELETRAVAIL”" in str(filters.render())
        await pilot.press("s")  # another filter key: the search's matches are remembered, no worker
        assert "searching" not in str(filters.render())
