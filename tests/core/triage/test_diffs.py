"""Word diff of two answers and rank diff of two retrieved lists, checked by hand."""

from __future__ import annotations

import pytest

from ragtui.core.triage.diffs import (
    ENTERED,
    LEFT,
    MIXED_LEVEL,
    OUTSIDE,
    SENTENCE_LEVEL,
    UP,
    WORD_LEVEL,
    DiffStopped,
    answer_diff,
    diff_counts,
    plain_diff,
    rank_diff,
)


def test_a_changed_number_is_one_removed_and_one_added_word():
    pieces = answer_diff("Le congé dure 25 jours. Il se pose en juin.", "Le congé dure 30 jours. Il se pose en juin.").pieces
    assert plain_diff(pieces) == "Le congé dure [-25-]{+30+} jours. Il se pose en juin."
    assert diff_counts(pieces) == (1, 1)


def test_an_added_sentence_is_marked_added_and_the_rest_stays_plain():
    pieces = answer_diff("Le congé dure 25 jours.", "Le congé dure 25 jours. Demandez au RH.").pieces
    assert plain_diff(pieces) == "Le congé dure 25 jours.{+ Demandez au RH.+}"
    assert diff_counts(pieces) == (0, 3)


def test_neighbouring_changed_words_form_one_change_not_one_per_word():
    pieces = answer_diff("Il faut demander trois jours avant au manager.", "Il faut demander deux semaines avant au RH.").pieces
    assert plain_diff(pieces) == "Il faut demander [-trois jours-]{+deux semaines+} avant au [-manager-]{+RH+}."


def test_identical_answers_have_no_change():
    pieces = answer_diff("Même réponse. Deux phrases.", "Même réponse. Deux phrases.").pieces
    assert diff_counts(pieces) == (0, 0)
    assert plain_diff(pieces) == "Même réponse. Deux phrases."


def test_a_missing_answer_diffs_as_everything_added():
    assert plain_diff(answer_diff(None, "Une réponse.").pieces) == "{+Une réponse.+}"


def test_five_thousand_sentences_with_one_change_show_only_that_change():
    a = " ".join(f"Phrase numéro {i} du règlement." for i in range(5000))
    b = a.replace("Phrase numéro 2500 du", "Phrase numéro 2500 bis du")
    pieces = answer_diff(a, b).pieces
    assert diff_counts(pieces) == (0, 1)
    assert "numéro 2500 {+bis +}du" in plain_diff(pieces)


def _row(ids, gold=("g",)):
    return {"retrieved_ids": list(ids), "gold_passages": list(gold)}


def test_rank_diff_names_what_entered_and_left_the_top_k_and_the_gold_rank_change():
    a = _row(["x", "y", "g", "z", "w"])
    b = _row(["g", "x", "v", "y", "u", "z"])
    changes = {c.passage: c for c in rank_diff(a, b, 3)}
    assert (changes["g"].rank_a, changes["g"].rank_b, changes["g"].gold) == (3, 1, True)
    assert changes["g"].movement == UP
    assert changes["v"].movement == ENTERED and changes["v"].rank_a is None
    assert changes["y"].movement == LEFT and (changes["y"].rank_a, changes["y"].rank_b) == (2, 4)
    assert "z" not in changes and "u" not in changes  # in neither top 3, not gold
    assert [c.passage for c in rank_diff(a, b, 3)] == ["g", "x", "v", "y"]  # B's order, then what left


def test_a_gold_passage_beyond_k_in_both_runs_is_still_listed():
    changes = rank_diff(_row(["a", "b", "c", "g"]), _row(["a", "b", "c", "d", "g"]), 2)
    gold = [c for c in changes if c.gold]
    assert len(gold) == 1 and (gold[0].rank_a, gold[0].rank_b, gold[0].movement) == (4, 5, OUTSIDE)


def test_a_duplicated_passage_keeps_its_first_rank():
    changes = {c.passage: c for c in rank_diff(_row(["a", "a", "g"]), _row(["g", "a"]), 3)}
    assert changes["a"].rank_a == 1 and changes["a"].rank_b == 2


def _side(pieces, dropped):
    return "".join(p.text for p in pieces if p.op != dropped)


def test_the_diff_rebuilds_both_answers_whatever_the_edits():
    # Seeded edits of every kind, near and far apart: dropping the added pieces must give
    # A back, dropping the removed ones B, and nothing equal may be reported as changed.
    import random

    rng = random.Random(20261130)
    for _ in range(200):
        a = [f"Phrase {i} du texte." for i in range(rng.randint(0, 400))]
        b = list(a)
        for _ in range(rng.randint(0, 12)):
            at = rng.randint(0, len(b))
            kind = rng.choice(("insert", "delete", "replace", "block"))
            if kind == "insert":
                b.insert(at, f"Ajout {rng.random():.6f}.")
            elif kind == "delete" and b:
                del b[min(at, len(b) - 1)]
            elif kind == "replace" and b:
                b[min(at, len(b) - 1)] = f"Remplacée {rng.random():.6f}."
            elif kind == "block":
                b[at:at] = [f"Bloc {k} {rng.random():.6f}." for k in range(rng.randint(1, 300))]
        ta, tb = " ".join(a), " ".join(b)
        pieces = answer_diff(ta, tb).pieces
        assert _side(pieces, "added") == ta and _side(pieces, "removed") == tb
        if ta == tb:
            assert diff_counts(pieces) == (0, 0)


def test_a_sentence_inserted_far_from_another_change_leaves_the_middle_untouched():
    a = [f"Phrase {i}." for i in range(1000)]
    b = a[:100] + ["Nouvelle phrase."] + a[100:900] + a[901:]
    pieces = answer_diff(" ".join(a), " ".join(b)).pieces
    assert diff_counts(pieces) == (2, 2)  # "Nouvelle phrase." added, "Phrase 900." removed
    assert "{+Nouvelle phrase. +}" in plain_diff(pieces) and "[-Phrase 900. -]" in plain_diff(pieces)


# ---- the word match's bound: an answer rewritten throughout is diffed by sentence ----------


def _rewritten(count: int, kept_every: int) -> tuple[str, str]:
    """A's `count` sentences, and B's with every one reworded but each `kept_every`-th."""
    a = [f"Phrase {i} de la reponse, sur l'article {i % 97}." for i in range(count)]
    b = [s if i % kept_every == 0 else s.replace("de la reponse", "de la nouvelle reponse") for i, s in enumerate(a)]
    return " ".join(a), " ".join(b)


def test_an_answer_rewritten_throughout_is_diffed_sentence_by_sentence_each_beside_its_new_wording():
    a, b = _rewritten(5_000, 11)  # 455 changed blocks of 10 sentences: ~105 M units, past the budget
    diff = answer_diff(a, b)
    assert diff.level == SENTENCE_LEVEL
    text = plain_diff(diff.pieces)
    assert text.startswith("Phrase 0 de la reponse, sur l'article 0. "
                           "[-Phrase 1 de la reponse, sur l'article 1. -]{+Phrase 1 de la nouvelle reponse, sur l'article 1. +}")
    assert _side(diff.pieces, "added") == a and _side(diff.pieces, "removed") == b


def test_a_long_answer_with_a_few_edits_stays_word_by_word():
    a, b = _rewritten(5_000, 1)  # nothing reworded…
    b = b.replace("Phrase 2500 de la reponse", "Phrase 2500 de la longue reponse")
    diff = answer_diff(a, b)
    assert diff.level == WORD_LEVEL
    assert "Phrase 2500 de la{+ longue+} reponse" in plain_diff(diff.pieces)


def test_a_changed_block_too_long_for_words_among_short_ones_makes_a_mixed_diff():
    a = [f"Phrase {i} du texte numero {i}." for i in range(200)]
    b = list(a)
    b[10] = "Phrase 10 du texte numero dix."
    b[50:150] = [s.replace("du texte", "de l'autre texte") for s in a[50:150]]  # 100 sentences in a row: > MAX_WORDS_MATCHED
    diff = answer_diff(" ".join(a), " ".join(b))
    assert diff.level == MIXED_LEVEL
    text = plain_diff(diff.pieces)
    assert "numero [-10-]{+dix+}." in text
    assert "[-Phrase 50 du texte numero 50. -]{+Phrase 50 de l'autre texte numero 50. +}" in text


def test_a_diff_asked_to_stop_raises_diff_stopped():
    a, b = _rewritten(100, 3)
    with pytest.raises(DiffStopped):
        answer_diff(a, b, stop=lambda: True)

