"""Matching text normalisation: the Python function and the polars expression agree."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtui.core.measuring.textnorm import contains_any_phrase, normalize_for_match, normalized_expr

# Accents, ligatures, superscripts, connector punctuation, marks that are not combining
# (U+0903), zero-width joiners, non-breaking and ideographic spaces: where regex engines
# and Unicode tables tend to differ.
TRICKY = "Éé oeœ ﬁ ² ½ ‿ _ ‐ – — ’ « » \u0903 \u200d \u00a0 \u3000 İ ß Ǆ ٣ 𝟙 !?.,;:"


def _polars(texts: list[str]) -> list[str]:
    return pl.DataFrame({"t": texts}).select(normalized_expr(pl.col("t"))).get_column("t").to_list()


def test_the_abstention_phrase_normalises_alike_in_python_and_polars():
    texts = ["Je ne trouve pas cette information.", "JE NE TROUVE PAS cette information !", "Désolé : je ne trouve pas…"]
    assert _polars(texts) == [normalize_for_match(t) for t in texts]


def test_each_tricky_character_normalises_alike_in_python_and_polars():
    texts = [f"a{ch}b" for ch in TRICKY]
    assert _polars(texts) == [normalize_for_match(t) for t in texts]


# Characters this Python's Unicode tables leave unassigned (Cn) are left out: polars may
# ship a newer Unicode version that already knows them (a CJK extension, say).
@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=12), min_size=1, max_size=20))
def test_python_and_polars_normalise_any_text_alike(texts):
    assert _polars(texts) == [normalize_for_match(t) for t in texts]


def test_one_answer_and_a_column_of_answers_are_found_abstaining_alike():
    from ragtui.core.measuring.textnorm import contains_any_phrase, has_any_phrase

    phrases = ("Je ne trouve pas cette information",)
    texts = [
        "Je ne trouve pas cette information.",
        "je ne TROUVE pas cette information dans les documents",
        "Je ne trouve pas cette informationnelle",  # not the phrase: words are whole
        "Quatre mois.",
        "",
    ]
    column = pl.DataFrame({"t": texts}).select(contains_any_phrase(pl.col("t"), phrases).alias("found")).get_column("found").to_list()
    assert column == [has_any_phrase(t, phrases) for t in texts] == [True, True, False, False, False]


def _every_answer_normalised(texts: list[str | None], phrases: tuple[str, ...]) -> list[bool | None]:
    """What `contains_any_phrase` must find: every text normalised and searched."""
    keys = [f" {normalize_for_match(p)} " for p in phrases if normalize_for_match(p)]
    padded = pl.lit(" ") + normalized_expr(pl.col("t")) + pl.lit(" ")
    return pl.DataFrame({"t": texts}, schema={"t": pl.String}).select(padded.str.contains_any(keys)).to_series().to_list()


# Letters of the phrase, and what normalises into them from elsewhere: accents, a combining
# mark, ligatures, fullwidth and compatibility forms, a dotless i, Latin letters past Latin-1.
OTHERWISE = {"i": ["Í", "ｉ", "ℹ", "ⅰ", "i\u0301", "İ", "ᵢ", "ı"], "n": ["Ñ", "ⁿ", "ǹ"], "f": ["ｆ"], "e": ["é", "Ê"], "o": ["ö", "º"]}
SPELLINGS = list("jentrouvpascifm ÉÍÓÑ.") + ["\u0301", "ﬁ", "ｉ", "ℹ", "ⅰ", "ı", "İ", "ǹ", "Ǆ", "ᵢ", "ⁿ"] + list(TRICKY)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.text(alphabet=st.sampled_from(SPELLINGS), max_size=40)), min_size=1, max_size=12),
    st.sampled_from([("Je ne trouve pas cette information",), ("ﬁn", "Infos !"), ("É",), ("Ǆ ı",)]),
    st.data(),
)
def test_normalising_only_the_answers_that_may_hold_a_phrase_finds_the_same_ones(texts, phrases, data):
    # Half the time one text is a phrase spelled otherwise, so that matches are met too.
    if data.draw(st.booleans()):
        spelled = "".join(data.draw(st.sampled_from([ch, ch.upper(), *OTHERWISE.get(ch, [])])) for ch in phrases[0])
        texts[0] = f"Réponse : {spelled}."
    column = pl.DataFrame({"t": texts}, schema={"t": pl.String}).select(contains_any_phrase(pl.col("t"), phrases)).to_series().to_list()
    assert column == _every_answer_normalised(texts, phrases)


def test_a_phrase_spelled_with_compatibility_characters_is_found():
    texts = ["JE NE TROUVE PAS CETTE ｉnformation", "je ne trouve pas cette i\u0301nformation", "je ne trouve pas cette ﬁnformation", None]
    phrases = ("Je ne trouve pas cette information",)
    column = pl.DataFrame({"t": texts}).select(contains_any_phrase(pl.col("t"), phrases)).to_series().to_list()
    assert column == _every_answer_normalised(texts, phrases) == [True, True, False, None]
