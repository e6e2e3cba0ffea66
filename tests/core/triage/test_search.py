"""Search over every text of a comparison, accent- and case-insensitive; stepping matches."""

from __future__ import annotations

import pytest

from ragtui.core.triage.search import Matches, SearchIndex


@pytest.fixture
def index(tmp_path):
    from tests.ui.triage_data import triage_comparison

    return SearchIndex(triage_comparison(tmp_path / "t"))


def test_an_unaccented_lower_case_term_finds_accented_upper_case_text(index):
    # The gold question of fact-01 reads "conges"; the term has an accent and capitals.
    assert index.ids("CONGÉS") == ["fact-01"]


def test_search_reaches_ids_answers_passages_and_judge_reasons(index):
    assert index.ids("none-02") == ["none-02"]  # id (and its answer)
    assert index.ids("does not mention a written form") == ["proc-02"]  # a judge reason in B
    assert index.ids("la reponse exacte") != []  # passage text
    assert index.ids("timeout after 60") == ["fact-03"]  # the judge error in B


def test_a_term_with_regex_characters_is_text(index):
    assert index.ids("(") == [] and index.ids("p_04[2") == []


def test_matches_step_forward_and_back_and_wrap():
    matches = Matches("x", ["a", "c", "e"])
    assert matches.first("c") == "c"
    assert matches.step("c", 1) == "e"
    assert matches.step("e", 1) == "a"
    assert matches.step("a", -1) == "e"


def test_a_run_opened_from_the_cache_is_searched_in_its_cached_passages_and_reasons(tmp_path):
    from tests.ui.triage_data import triage_comparison

    comparison = triage_comparison(tmp_path / "t")
    assert comparison.b is not None and comparison.b.run.texts is not None  # lean: texts on disk
    index = SearchIndex(comparison)
    assert index.unreadable is None
    assert index.ids("does not mention a written form") == ["proc-02"]  # a reason, read back from the cache


def test_texts_that_cannot_be_read_again_leave_ids_questions_and_answers_searchable_and_says_why(tmp_path):
    from tests.ui.triage_data import triage_comparison

    comparison = triage_comparison(tmp_path / "t")
    assert comparison.b is not None and comparison.b.run.texts is not None
    with comparison.b.run.path.open("a", encoding="utf-8") as handle:  # B's run file rewritten meanwhile
        handle.write("\n")
    index = SearchIndex(comparison)
    assert index.unreadable is not None and "reopen the runs" in index.unreadable
    assert index.ids("none-02") == ["none-02"] and index.ids("timeout after 60") == ["fact-03"]


def test_a_term_searched_again_is_remembered_and_finds_the_same_ids(index, monkeypatch):
    assert not index.remembered("CONGÉS")
    first = index.ids("CONGÉS")
    assert index.remembered("conges")  # the same normalised key
    monkeypatch.setattr(index, "frame", None)  # a second scan would fail
    assert index.ids("conges") == first == ["fact-01"]


def test_only_the_last_two_terms_are_remembered(index):
    for term in ("none-02", "timeout after 60", "CONGÉS"):
        index.ids(term)
    assert [index.remembered(t) for t in ("none-02", "timeout after 60", "CONGÉS")] == [False, True, True]
    assert index.remembered("   ")  # nothing to find: no scan either
