"""Prompt templates: French by default, English on request, overridable, versioned."""

from __future__ import annotations

import pytest

from ragtui.core.errors import InputError
from ragtui.core.judge.prompts import Passage, load_prompts

SENTENCES = ["La période d'essai dure quatre mois.", "Elle est renouvelable."]
PASSAGES = [Passage("p_042", "Article 42 — quatre mois, renouvelable une fois.")]


def test_the_default_prompt_is_french_and_numbers_every_sentence():
    prompts = load_prompts()
    system, user = prompts.messages("Quelle durée ?", SENTENCES, PASSAGES, "Quatre mois.", nonce="0a1b2c3d4e5f")
    assert system["role"] == "system" and "Fidélité" in system["content"]
    assert '<phrase-0a1b2c3d4e5f n="1">La période d\'essai dure quatre mois.</phrase-0a1b2c3d4e5f>' in user["content"]
    assert '<phrase-0a1b2c3d4e5f n="2">' in user["content"] and '<passage-0a1b2c3d4e5f id="p_042">' in user["content"]
    assert "exactement 2 élément(s)" in user["content"] and "Quatre mois." in user["content"]


def test_english_prompts_are_available():
    prompts = load_prompts("en")
    _, user = prompts.messages("How long?", SENTENCES, PASSAGES, None, nonce="0a1b2c3d4e5f")
    assert '<sentence-0a1b2c3d4e5f n="1">' in user["content"] and "no expected answer given" in user["content"]
    assert prompts.version.startswith("ragtui-en@")


def test_an_unanswerable_question_tells_the_judge_that_abstaining_is_right():
    _, user = load_prompts().messages("Montant ?", ["Je ne trouve pas cette information."], [], "abstention", unanswerable=True)
    assert "la bonne réponse est une abstention" in user["content"]
    assert "aucun passage cité" in user["content"]


def test_the_version_names_the_templates_and_changes_with_their_text(tmp_path):
    shipped = load_prompts("fr")
    assert shipped.version.startswith("ragtui-fr@") and shipped.version == load_prompts("fr").version
    (tmp_path / "fr.system.txt").write_text("Tu es un juge sévère. Réponds en JSON.", encoding="utf-8")
    custom = load_prompts("fr", tmp_path)
    assert custom.version.startswith("custom-fr@") and custom.version != shipped.version
    assert custom.system.startswith("Tu es un juge sévère") and custom.user == shipped.user  # per-file override


def test_a_template_with_an_unknown_placeholder_is_refused_before_any_call(tmp_path):
    (tmp_path / "fr.user.txt").write_text("Question : $question\nRéponse : $reponse", encoding="utf-8")
    with pytest.raises(InputError, match=r"unknown placeholder \$reponse"):
        load_prompts("fr", tmp_path)


def test_a_prompts_path_that_is_not_a_folder_is_refused(tmp_path):
    with pytest.raises(InputError, match="must be a folder"):
        load_prompts("fr", tmp_path / "absent")
