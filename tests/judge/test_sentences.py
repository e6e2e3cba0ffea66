"""The sentence splitter: hand-checked French cases, and properties on any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtui.core.judge.sentences import split_sentences

CASES = [
    ("La période d'essai dure quatre mois. Elle est renouvelable une fois.", ["La période d'essai dure quatre mois.", "Elle est renouvelable une fois."]),
    ("M. Dupont valide la demande. Mme Durand la signe.", ["M. Dupont valide la demande.", "Mme Durand la signe."]),
    ("Me Martin et Dr. Petit sont présents. La séance commence.", ["Me Martin et Dr. Petit sont présents.", "La séance commence."]),
    ("Voir l'art. 3 du règlement. Il fixe les délais.", ["Voir l'art. 3 du règlement.", "Il fixe les délais."]),
    ("Il faut un justificatif, p. ex. une facture. Ensuite on saisit la demande.", ["Il faut un justificatif, p. ex. une facture.", "Ensuite on saisit la demande."]),
    ("Cf. Annexe 2 pour le détail.", ["Cf. Annexe 2 pour le détail."]),
    ("Le taux passe à 3.5 % en 2026. Le plafond reste fixe.", ["Le taux passe à 3.5 % en 2026.", "Le plafond reste fixe."]),
    ("La prime est de 1 200,50 €. Elle est versée en juin.", ["La prime est de 1 200,50 €.", "Elle est versée en juin."]),
    ("La prime est de 1\u202f200,50\u00a0€. Elle est versée en juin.", ["La prime est de 1\u202f200,50\u00a0€.", "Elle est versée en juin."]),
    ("Prévoir le badge, l'ordinateur, etc. Ensuite, passer à l'accueil.", ["Prévoir le badge, l'ordinateur, etc.", "Ensuite, passer à l'accueil."]),
    ("Prévoir le badge, etc. et passer à l'accueil.", ["Prévoir le badge, etc. et passer à l'accueil."]),
    ("Est-ce possible ? Oui ! Sous conditions.", ["Est-ce possible ?", "Oui !", "Sous conditions."]),
    ("Il hésite… Puis il signe.", ["Il hésite…", "Puis il signe."]),
    ("Il a dit : « Je pars. » Ensuite il est parti.", ["Il a dit : « Je pars. »", "Ensuite il est parti."]),
    ("Consultez www.intranet.fr. Le formulaire y est.", ["Consultez www.intranet.fr.", "Le formulaire y est."]),
    ("L'an 52 av. J.-C. est cité.", ["L'an 52 av. J.-C. est cité."]),
    ("Le cadre, c.-à-d. le salarié au forfait, est concerné.", ["Le cadre, c.-à-d. le salarié au forfait, est concerné."]),
    ("Je ne trouve pas cette information", ["Je ne trouve pas cette information"]),
    ("", []),
    ("   \n  ", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_french_sentences_split_where_a_reader_would(text, expected):
    assert split_sentences(text) == expected


def test_list_items_are_sentences_of_their_own_without_their_markers():
    text = "Pour poser un RTT :\n- Saisir la demande dans l'outil RH.\n- Attendre la validation.\n1. Le manager valide. Il a 24 heures.\n2) Le service paie\n   est prévenu."
    assert split_sentences(text) == [
        "Pour poser un RTT :",
        "Saisir la demande dans l'outil RH.",
        "Attendre la validation.",
        "Le manager valide.",
        "Il a 24 heures.",
        "Le service paie est prévenu.",
    ]


def test_a_wrapped_paragraph_is_joined_and_a_blank_line_ends_it():
    text = "La période d'essai\ndure quatre mois\n\nElle est renouvelable."
    assert split_sentences(text) == ["La période d'essai dure quatre mois", "Elle est renouvelable."]


def test_none_is_no_sentence():
    assert split_sentences(None) == []


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcAB éÉ.!?…,;:«»\"' 0123456789\n€")), max_size=120))
def test_splitting_keeps_every_character_and_is_deterministic(text):
    # No list markers in this alphabet ("-", "*"), so nothing may be dropped.
    sentences = split_sentences(text)
    assert sentences == split_sentences(text)
    assert all(s and s == s.strip() for s in sentences)
    if not re.search(r"(?m)^\s*(\d{1,3}[.)]|[a-zA-Z]\))\s", text):
        assert _squash("".join(sentences)) == _squash(text)
