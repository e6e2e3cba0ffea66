"""Synthetic answers, written from the passages the generator actually received.

The same synthetic "model" answers in both runs: its draws are seeded by question, not by
run, so two runs that retrieve the same passages get the same answer, and every
difference between A and B comes from what was retrieved. Each sentence remembers the
passage it was written from and whether that passage was in the context — the ground
truth that the judge (`judging`) then reads, imperfectly.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .corpus import Passage, Question, Sentence
from .text import tokens

SEED = "ragtui-sample-2026"
FALLBACK = "Je ne trouve pas cette information"

# The model's temperament. Rates are per answer and shared by both runs; they were tuned so
# that the sample tells the story of sample_data/README.md.
P_FALSE_ABSTAIN_WHEN_FOUND = 0.03  # abstains although the passage is right there
# Adds one unsupported detail to a complete answer, more often when the context is in
# pieces: each break between non-adjacent passages is a gap the model bridges in its words.
P_EMBELLISH = 0.02
P_EMBELLISH_PER_BREAK = 0.06
# A procedure read from passages cut off from both neighbours looks unfinished: the model adds
# a step of its own. v1 chunks carry the neighbours along; a v2 chunk is one passage alone.
P_ISOLATED_PROCEDURE = 0.75
# The prompt was tuned for five passages (the k of both main runs, where these add nothing).
# Fewer, and the model pads a complete but thin answer with a detail of its own; more, and
# the extra passages dilute any answer: it blends in a detail that no passage gives. The k
# sweep of the candidate's pipeline shows both.
K_TUNED = 5
P_PAD_PER_MISSING_PASSAGE = 0.20
P_DILUTION_PER_EXTRA_PASSAGE = 0.05
P_LOST_IN_THE_MIDDLE = 0.6  # the answer sits only past the fifth passage: overlooked
P_FILL_GAP = 0.65  # a procedure cut by retrieval: invents the missing step rather than stop
P_MISS_ABSTAIN = 0.45  # nothing relevant retrieved: says so (a false abstention)…
P_MISS_NEIGHBOUR = 0.30  # …or answers from the nearest wrong passage, else from memory
P_NOTICE_CONTRADICTION = 0.70  # old and new rule both in context: mentions the change
P_ANSWER_UNANSWERABLE = 0.12  # no answer in the corpus: makes one up anyway…
P_TEMPTED = 0.35  # …more often when the top passage shares most of the question's words

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀÂÉÈÊÎÔÛÇ])")


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer; `supported` means its source was in the context."""

    text: str
    source: str | None
    supported: bool
    kind: str  # "rule", "old_rule", "neighbour", "added", "memory", "made_up", "abstention"


# What each outcome is worth to the person who asked (utility, 1-5), and why: the truth
# that the judge's utility score then approximates.
OUTCOMES: dict[str, tuple[int, str]] = {
    "complete": (5, "complète et exacte"),
    "indirect": (4, "exacte, mais peu directe"),
    "embellished": (4, "réponse juste, mais ajoute un détail que les documents ne donnent pas"),
    "cut": (3, "incomplète : la réponse s'arrête là où s'arrête le passage retrouvé"),
    "gap_filled": (2, "une partie de la réponse manque au contexte et le modèle l'a inventée"),
    "neighbour": (2, "répond à côté, à partir d'un passage voisin"),
    "memory": (3, "plausible, mais rien dans les passages fournis ne l'étaye"),
    "memory_old_rule": (2, "récite de mémoire une règle qui a changé, sans passage à l'appui"),
    "contradiction_noticed": (5, "donne la règle en vigueur et signale l'ancienne"),
    "contradiction_missed": (2, "applique l'ancienne règle alors que la nouvelle était dans le contexte"),
    "current_rule": (5, "donne la règle en vigueur"),
    "current_rule_alone": (4, "donne la règle en vigueur, sans dire qu'elle a changé"),
    "old_rule": (2, "règle remplacée : seul l'ancien texte a été retrouvé"),
    "answered_unanswerable": (1, "répond avec assurance alors que les documents ne le disent pas"),
    "abstention": (5, "abstention correcte : les documents ne traitent pas la question"),
    "abstention_terse": (4, "abstention correcte, mais sans orienter la personne"),
    "false_abstention": (1, "s'abstient : le bon passage n'a pas été retrouvé"),
    "false_abstention_found": (1, "s'abstient alors que le passage fourni contient la réponse"),
    "false_abstention_contradiction": (1, "s'abstient : ni l'ancien ni le nouveau texte n'ont été retrouvés"),
}


@dataclass(frozen=True)
class Draft:
    """A synthetic answer and its outcome (a key of OUTCOMES)."""

    claims: tuple[Claim, ...]
    outcome: str

    @property
    def abstained(self) -> bool:
        return all(c.kind == "abstention" for c in self.claims)

    @property
    def utility(self) -> int:
        return OUTCOMES[self.outcome][0]

    @property
    def utility_reason(self) -> str:
        return OUTCOMES[self.outcome][1]

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.claims)


def draw(question_id: str, purpose: str) -> float:
    """A uniform draw fixed by question and purpose (never by run)."""
    return random.Random(f"{SEED}:{question_id}:{purpose}").random()


def padding_rate(k: int) -> float:
    """The added chance that a complete answer gains an unsupported detail, with k < 5 passages."""
    return P_PAD_PER_MISSING_PASSAGE * max(0, K_TUNED - k)


def abstention(question_id: str, outcome: str) -> Draft:
    """The fallback answer; one variant in three points the user to HR."""
    texts = [f"{FALLBACK} dans les documents disponibles."]
    if draw(question_id, "abstention-style") < 1 / 3:
        texts = [f"{FALLBACK} dans les passages fournis.", "Je vous conseille de contacter votre gestionnaire RH."]
    return Draft(tuple(Claim(t, None, False, "abstention") for t in texts), outcome)


def first_sentence(passage: Passage) -> str:
    """The opening sentence of a passage, as a model quoting it would write it."""
    return _SENTENCE_END.split(passage.text, 1)[0]


class Synthesiser:
    """Writes the synthetic answer of one question from its top-k retrieved passages."""

    def __init__(self, passages: list[Passage]) -> None:
        self.order = passages
        self.passages = {p.id: p for p in passages}
        self.position = {p.id: i for i, p in enumerate(passages)}

    def breaks(self, context: list[str]) -> int:
        """How many times the context jumps to a passage that does not follow the previous one."""
        ordered = sorted(self.position[pid] for pid in context)
        return sum(1 for a, b in zip(ordered, ordered[1:]) if b != a + 1 or self.order[a].document != self.order[b].document)

    def answer(self, q: Question, context: list[str]) -> Draft:
        """The answer to `q` given the ids of the passages the generator received."""
        if not q.answerable:
            return self._unanswerable(q, context)
        if q.category == "contradiction_connue":
            draft = self._contradiction(q, context)
        else:
            draft = self._answerable(q, context)
        return self._diluted(q, context, draft)

    def _diluted(self, q: Question, context: list[str], draft: Draft) -> Draft:
        """Past five passages, each extra one is a chance to blend in an unsupported detail."""
        extra = len(context) - K_TUNED
        if extra <= 0 or draft.abstained or any(c.kind == "added" for c in draft.claims):
            return draft
        if draw(q.id, "dilution") < P_DILUTION_PER_EXTRA_PASSAGE * extra:
            return Draft((*draft.claims, self._added(q)), draft.outcome)
        return draft

    def _rule(self, sentences: tuple[Sentence, ...], context: list[str], kind: str = "rule") -> tuple[Claim, ...]:
        return tuple(Claim(s.text, s.source, s.source in context, kind) for s in sentences)

    def _added(self, q: Question) -> Claim:
        return Claim(q.ajout, None, False, "added")

    def _answerable(self, q: Question, context: list[str]) -> Draft:
        found = tuple(s for s in q.reponse if s.source in context)
        lost = found and not any(s.source in context[:K_TUNED] for s in found)
        if lost and draw(q.id, "lost-in-the-middle") < P_LOST_IN_THE_MIDDLE:
            return self._missed(q, context)
        if len(found) == len(q.reponse):
            if draw(q.id, "false-abstention") < P_FALSE_ABSTAIN_WHEN_FOUND:
                return abstention(q.id, "false_abstention_found")
            claims = self._rule(q.reponse, context)
            if draw(q.id, "embellish") < self._embellish_rate(q, context):
                return Draft((*claims, self._added(q)), "embellished")
            return Draft(claims, "indirect" if draw(q.id, "style") < 0.25 else "complete")
        if found:
            claims = self._rule(found, context)
            if draw(q.id, "fill-gap") < P_FILL_GAP:
                return Draft((*claims, self._added(q)), "gap_filled")
            return Draft(claims, "cut")
        return self._missed(q, context)

    def _embellish_rate(self, q: Question, context: list[str]) -> float:
        # Gaps are counted in the first five passages: past them, dilution (`_diluted`) takes over.
        rate = P_EMBELLISH + P_EMBELLISH_PER_BREAK * self.breaks(context[:K_TUNED]) + padding_rate(len(context))
        if q.category == "procedurale" and all(self._isolated(s.source, context) for s in q.reponse):
            rate += P_ISOLATED_PROCEDURE
        return rate

    def _isolated(self, passage_id: str, context: list[str]) -> bool:
        """Neither the passage before nor the one after (in its document) is in the context."""
        i = self.position[passage_id]
        neighbours = [self.order[j] for j in (i - 1, i + 1) if 0 <= j < len(self.order)]
        return not any(n.document == self.order[i].document and n.id in context for n in neighbours)

    def _missed(self, q: Question, context: list[str]) -> Draft:
        """No gold passage in the context: abstain, answer beside the point, or from memory."""
        u = draw(q.id, "missed")
        if u < P_MISS_ABSTAIN:
            return abstention(q.id, "false_abstention")
        neighbour = self._neighbour(context)
        if u < P_MISS_ABSTAIN + P_MISS_NEIGHBOUR and neighbour is not None:
            return Draft((Claim(first_sentence(neighbour), neighbour.id, True, "neighbour"),), "neighbour")
        remembered = Claim(q.reponse[0].text, q.reponse[0].source, False, "memory")
        return Draft((remembered, self._added(q)), "memory")

    def _neighbour(self, context: list[str]) -> Passage | None:
        """The best-ranked prose passage of the context (tables make no sentence)."""
        return next((self.passages[pid] for pid in context if "|" not in self.passages[pid].text), None)

    def _contradiction(self, q: Question, context: list[str]) -> Draft:
        new_in = any(g in context for g in q.gold)
        old_in = any(s.source in context for s in q.ancienne)
        if new_in and old_in:
            if draw(q.id, "notice") < P_NOTICE_CONTRADICTION:
                return Draft(self._rule(q.reponse, context), "contradiction_noticed")
            return Draft(self._rule(q.ancienne, context, "old_rule"), "contradiction_missed")
        if new_in:
            found = tuple(s for s in q.reponse if s.source in context)
            return Draft(self._rule(found, context), "current_rule" if found == q.reponse else "current_rule_alone")
        if old_in:
            return Draft(self._rule(q.ancienne, context, "old_rule"), "old_rule")
        if draw(q.id, "missed") < 0.5:
            return abstention(q.id, "false_abstention_contradiction")
        return Draft(tuple(Claim(s.text, s.source, False, "memory") for s in q.ancienne), "memory_old_rule")

    def _unanswerable(self, q: Question, context: list[str]) -> Draft:
        """Abstain, unless tempted: a top passage sharing most of the question's words."""
        top = self.passages[context[0]] if context else None
        query = set(tokens(q.question))
        overlap = len(query & set(tokens(top.section + " " + top.text))) / len(query) if top and query else 0.0
        if draw(q.id, "answer-anyway") < P_ANSWER_UNANSWERABLE + (P_TEMPTED if overlap >= 0.6 else 0.0):
            return Draft(tuple(Claim(t, None, False, "made_up") for t in q.piege), "answered_unanswerable")
        return abstention(q.id, "abstention_terse" if draw(q.id, "style") < 0.3 else "abstention")
