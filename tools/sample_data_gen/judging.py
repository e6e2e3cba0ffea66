"""Judge verdicts and human labels, read off the synthetic answers' ground truth.

The truth is known here: a sentence is attested when the passage it was written from was
in the context. Every labeller sees it through a profile of mistakes: it may accept an
unsupported sentence (it overrates) or reject a supported one. The human annotator is
nearly right — a little strict on paraphrases; the candidate run's judge shares the
generator's family and overrates more — the bias ragtui's same-family warning is about,
and what the human labels expose.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .synthesis import SEED, Claim, Draft


@dataclass(frozen=True)
class JudgeProfile:
    """How a judge errs: rates per sentence, and per answer for the utility score."""

    model: str
    p_accept_unsupported: float
    p_reject_supported: float
    p_utility_up: float
    p_utility_down: float


HUMAN = JudgeProfile("human", p_accept_unsupported=0.0, p_reject_supported=0.04, p_utility_up=0.0, p_utility_down=0.0)

ABSTENTION_REASON = "abstention : aucune affirmation à vérifier"


def _truth_reason(claim: Claim) -> str:
    if claim.supported:
        if claim.kind == "old_rule":
            return f"énoncé dans {claim.source} (texte de l'ancienne règle)"
        if claim.kind == "neighbour":
            return f"cité de {claim.source}, qui ne traite pas la question"
        return f"énoncé dans {claim.source}"
    if claim.kind == "memory":
        return "absent du contexte : le passage qui le dirait n'a pas été fourni"
    if claim.kind == "made_up":
        return "aucun passage fourni ne contient cette information"
    return "aucun passage fourni ne mentionne ce point"


def _sentence(claim: Claim, context: list[str], rng: random.Random, profile: JudgeProfile) -> dict[str, Any]:
    if claim.kind == "abstention":
        return {"text": claim.text, "attested": False, "evidence": [], "reason": ABSTENTION_REASON}
    if claim.supported and rng.random() < profile.p_reject_supported:
        return {"text": claim.text, "attested": False, "evidence": [],
                "reason": f"formulation non retrouvée telle quelle dans {claim.source}"}
    if not claim.supported and rng.random() < profile.p_accept_unsupported and context:
        return {"text": claim.text, "attested": True, "evidence": [context[0]],
                "reason": f"cohérent avec {context[0]}"}
    evidence = [claim.source] if claim.supported else []
    return {"text": claim.text, "attested": claim.supported, "evidence": evidence, "reason": _truth_reason(claim)}


def verdict(draft: Draft, context: list[str], profile: JudgeProfile, key: str) -> dict[str, Any]:
    """A `judge` (or `human`) object for one answer; `key` seeds this judge's mistakes."""
    rng = random.Random(f"{SEED}:{key}:{profile.model}")
    sentences = [_sentence(c, context, rng, profile) for c in draft.claims]
    score, reason = draft.utility, draft.utility_reason
    u = rng.random()
    if u < profile.p_utility_up and score < 5:
        score += 1
    elif u < profile.p_utility_up + profile.p_utility_down and score > 1:
        score -= 1
    return {
        "model": profile.model,
        "faithfulness": {"sentences": sentences},
        "utility": {"score": score, "reason": reason},
        "error": None,
    }


def failed(model: str, error: str) -> dict[str, Any]:
    """A judge call that failed: counted as a judge error, never as a verdict."""
    return {"model": model, "faithfulness": None, "utility": None, "error": error}
