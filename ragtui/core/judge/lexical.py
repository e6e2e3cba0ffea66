"""An offline, deterministic, approximate judge: word overlap instead of an LLM.

It lets the whole pipeline run anywhere — no network, no key, no cost — and gives the
tests a judge whose every verdict a person can check by hand. It is not a substitute
for a real judge: it cannot see a paraphrase or a negation, and its output says so
(`judge.model` is "lexical-overlap (approximate)" and every reason starts with
"approximate").

- Faithfulness: a sentence is attested when at least `threshold` of its content words
  (accents, case and stop words removed, plurals folded) appear in the cited passages;
  its evidence is the passages holding at least one of those words, best first.
- Utility: with an expected answer, 1 + 4 × the share of its content words found in
  the answer (rounded); when the corpus has no answer, 5 for an abstention and 1 for
  anything else; without an expected answer, the same from the question's words.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ragtui.core.judge.inputs import JudgeInputs

MODEL_LABEL = "lexical-overlap (approximate)"
PROMPT_VERSION = "lexical-1"

_STOP_WORDS = frozenset(
    """
    le la les l un une des du de d au aux a à et ou ni mais donc or car que qu qui quoi dont où
    ce cet cette ces c se s son sa ses leur leurs mon ma mes ton ta tes notre nos votre vos
    il elle ils elles on je j tu nous vous me m te t lui y en ne n pas plus est sont être
    été etre ete a ont avoir par pour sur sous dans avec sans entre vers chez comme si
    tout tous toute toutes très tres peut doit fait faire
    the an of to in on at by for with from and or but not no is are was were be been it its
    this that these those as has have had do does can could will would should may must
    """.split()
)


def normalise(text: str) -> str:
    """Lower-case, without accents."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def content_words(text: str) -> set[str]:
    """The words that carry meaning: stop words dropped, plurals folded ("jours" = "jour")."""
    words = set()
    for word in re.findall(r"[a-z0-9]+", normalise(text)):
        if word in _STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        if len(word) > 3 and word.endswith(("s", "x")) and not word.isdigit():
            word = word[:-1]
        words.add(word)
    return words


def is_abstention(answer: str, fallback_phrases: tuple[str, ...] | list[str]) -> bool:
    """Whether an answer contains a fallback phrase (case-, accent- and punctuation-insensitive)."""
    flat = " ".join(re.findall(r"[a-z0-9]+", normalise(answer)))
    return any(" ".join(re.findall(r"[a-z0-9]+", normalise(p))) in flat for p in fallback_phrases if p.strip())


def judge_sentences(inputs: JudgeInputs, threshold: float) -> list[dict[str, Any]]:
    """One approximate verdict per sentence, against the cited passages."""
    passage_words = [(p.id, content_words(p.text)) for p in inputs.passages]
    pooled = set().union(*(words for _, words in passage_words)) if passage_words else set()
    verdicts = []
    for sentence in inputs.sentences:
        words = content_words(sentence)
        if not words:
            verdicts.append({"text": sentence, "attested": True, "evidence": [], "reason": "approximate: no content word to check"})
            continue
        share = len(words & pooled) / len(words)
        attested = share >= threshold
        ranked = sorted(((len(words & pw), pid) for pid, pw in passage_words if words & pw), key=lambda pair: (-pair[0], pair[1]))
        verdicts.append(
            {
                "text": sentence,
                "attested": attested,
                "evidence": [pid for _, pid in ranked] if attested else [],
                "reason": f"approximate: {len(words & pooled)}/{len(words)} content words found in the cited passages "
                f"({share:.0%}, threshold {threshold:.0%})",
            }
        )
    return verdicts


def judge_utility(inputs: JudgeInputs, fallback_phrases: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """An approximate 1–5 utility score with its reason."""
    abstained = inputs.abstained if inputs.abstained is not None else is_abstention(inputs.answer, fallback_phrases)
    if inputs.unanswerable:
        if abstained:
            return {"score": 5, "reason": "approximate: the corpus holds no answer and the answer abstains"}
        return {"score": 1, "reason": "approximate: the corpus holds no answer but the answer does not abstain"}
    if abstained:
        return {"score": 1, "reason": "approximate: the answer abstains although an answer is expected"}
    if inputs.expected and inputs.expected.strip():
        reference, label = content_words(inputs.expected), "expected-answer"
    else:
        reference, label = content_words(inputs.question), "question"
    if not reference:
        return {"score": 3, "reason": f"approximate: the {label} text has no content word to compare with"}
    share = len(reference & content_words(inputs.answer)) / len(reference)
    score = 1 + int(4 * share + 0.5)  # half rounds up, as a person would
    return {"score": score, "reason": f"approximate: {share:.0%} of the {label} words are in the answer"}
