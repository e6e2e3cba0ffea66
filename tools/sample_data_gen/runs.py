"""The runs of the sample: their metadata, and one record per question.

The two main runs share the generator (`llama-3.1-70b-instruct`) and the synthetic model
of `synthesis`; they differ by retrieval (`retrieval`) and by judge. A few operational
accidents are added on purpose, chosen by seeded draws: judge calls that failed, one
generation that failed in A (`answer: null`), and generation timeouts dropped from B's
file (questions missing from the run).

The k sweep (`SWEEP`) is the candidate's pipeline run again with k = 3, 10 and 20
passages sent to the generator: same retriever, same synthetic model, same judge, so the
candidate itself is the sweep's k = 5 point and every difference comes from k — the
recall–faithfulness trade-off of the trade-off view.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .corpus import Passage, Question
from .judging import HUMAN, JudgeProfile, failed, verdict
from .retrieval import BaselineRetriever, CandidateRetriever, Hit
from .synthesis import FALLBACK, SEED, Draft, Synthesiser
from .text import truncate, word_count

K = 5
DEPTH = 20
GENERATOR = "llama-3.1-70b-instruct"
PRICE_PER_TOKEN = 0.88e-6  # USD, input and output alike, as billed for a hosted 70B model
CONTEXT_TEXT_LIMIT = 200  # characters kept for ranks 6-20; the top k keep their full text
HUMAN_SAMPLE = 30
HUMAN_DOUBTFUL = 12  # of the 30, drawn among answers holding an unsupported sentence

JUDGE_ERRORS = [
    "timeout après 60 s (3 tentatives)",
    "réponse du juge non conforme au schéma JSON : clé 'phrases' absente",
    "HTTP 429 Too Many Requests après 3 tentatives",
    "HTTP 529 : modèle surchargé",
]

SYNTHETIC_NOTE = (
    "Données d'exemple synthétiques : le classement `retrieved` vient d'un vrai BM25 sur le corpus "
    "fictif de sample_data/corpus/, mais les réponses, les verdicts du juge et les étiquettes humaines "
    "sont synthétisés par tools/make_sample_data.py. Ardelis SAS n'existe pas."
)


@dataclass(frozen=True)
class RunSpec:
    """Everything that makes one run differ from the other."""

    key: str
    name: str
    created_at: str
    system: str
    note: str
    judge: JudgeProfile
    retriever: Callable[[list[Passage]], Any]
    judge_errors: int
    generation_failures: int
    missing: int
    rerank_ms: tuple[int, int]
    k: int = K  # passages sent to the generator


    @property
    def file_name(self) -> str:
        return f"{self.name}.jsonl"

    def meta(self) -> dict[str, Any]:
        """The `{"run": …}` object, in docs/formats.md's field order."""
        return {
            "name": self.name,
            "created_at": self.created_at,
            "system": self.system,
            "generator_model": GENERATOR,
            "judge_model": self.judge.model,
            "k": self.k,
            "fallback_phrases": [FALLBACK],
            "gold_set": "gold.yaml",
            "note": f"{SYNTHETIC_NOTE} {self.note}",
        }


BASELINE = RunSpec(
    key="A",
    name="baseline",
    created_at="2026-03-09T14:02:11Z",
    system="SYNTHETIC SAMPLE — chunking v1 (2–3 consecutive passages, ≤ 200 words), BM25 (k1 1.2, b 0.75), "
    "top 5 to the generator",
    note="Une génération a échoué (answer: null).",
    judge=JudgeProfile(
        "claude-sonnet-4", p_accept_unsupported=0.20, p_reject_supported=0.06, p_utility_up=0.05, p_utility_down=0.08
    ),
    retriever=BaselineRetriever,
    judge_errors=3,
    generation_failures=1,
    missing=0,
    rerank_ms=(0, 0),
)

# Same generator, a judge of its own family that overrates, and a rerank step that costs time.
CANDIDATE = RunSpec(
    key="B",
    name="candidate",
    created_at="2026-03-12T09:47:38Z",
    system="SYNTHETIC SAMPLE — chunking v2 (one passage per chunk, section title indexed), BM25 top 30 "
    "+ acronym matches, rerank (title overlap, exact acronyms), top 5 to the generator",
    note="Quatre questions manquent : génération interrompue après 30 s, lignes retirées du fichier.",
    judge=JudgeProfile(
        "llama-3.3-70b-instruct", p_accept_unsupported=0.45, p_reject_supported=0.05, p_utility_up=0.15, p_utility_down=0.03
    ),
    retriever=CandidateRetriever,
    judge_errors=4,
    generation_failures=0,
    missing=4,
    rerank_ms=(140, 230),
)

RUNS = (BASELINE, CANDIDATE)


def _sweep(k: int, created_at: str, judge_errors: int) -> RunSpec:
    """The candidate's pipeline with `k` passages sent to the generator."""
    return RunSpec(
        key=f"B{k}",
        name=f"candidate_k{k}",
        created_at=created_at,
        system=CANDIDATE.system.replace("top 5 to the generator", f"top {k} to the generator"),
        note=f"Balayage de k : le pipeline du candidat, {k} passages envoyés au générateur.",
        judge=CANDIDATE.judge,
        retriever=CandidateRetriever,
        judge_errors=judge_errors,
        generation_failures=0,
        missing=0,
        rerank_ms=CANDIDATE.rerank_ms,
        k=k,
    )


SWEEP = (
    _sweep(3, "2026-03-12T11:05:20Z", judge_errors=2),
    _sweep(10, "2026-03-12T13:41:02Z", judge_errors=3),
    _sweep(20, "2026-03-12T16:18:47Z", judge_errors=3),
)


@dataclass
class Result:
    """One question in one run, before it is written out."""

    question: Question
    hits: list[Hit]
    draft: Draft  # what the model would have answered; a failed generation drops it later
    k: int = K

    @property
    def context(self) -> list[str]:
        return [h.id for h in self.hits[: self.k]]


def retrieve_and_answer(spec: RunSpec, passages: list[Passage], questions: list[Question]) -> dict[str, Result]:
    """Run the spec's retriever and the synthetic model over every question."""
    retriever = spec.retriever(passages)
    synthesiser = Synthesiser(passages)
    results = {}
    for q in questions:
        hits = retriever.retrieve(q.question, DEPTH)
        context = [h.id for h in hits[: spec.k]]
        results[q.id] = Result(q, hits, synthesiser.answer(q, context), spec.k)
    return results


def _pick(pool: list[str], n: int, purpose: str) -> list[str]:
    return sorted(random.Random(f"{SEED}:pick:{purpose}").sample(sorted(pool), n))


@dataclass(frozen=True)
class Accidents:
    """Which questions meet which accident, in each run."""

    missing: dict[str, list[str]]
    generation_failures: dict[str, list[str]]
    judge_errors: dict[str, list[str]]
    human: list[str]


def choose_accidents(results: dict[str, dict[str, Result]]) -> Accidents:
    """Seeded picks of every accident, and of the 30 answers a person labelled.

    The human sample is drawn among answers present, answered and judged in both runs, like
    a calibration set a team would build: 12 of them from answers where at least one run
    holds an unsupported sentence (the cases worth checking), the rest at random.
    """
    ids = sorted(results["A"])
    missing, failures, errors = {}, {}, {}
    for spec in RUNS:
        missing[spec.key], failures[spec.key], errors[spec.key] = _run_accidents(spec, results[spec.key])
    taken = {i for d in (missing, failures, errors) for v in d.values() for i in v}
    answered = [i for i in ids if i not in taken and all(not results[s.key][i].draft.abstained for s in RUNS)]
    doubtful = [i for i in answered if any(not c.supported for s in RUNS for c in results[s.key][i].draft.claims)]
    flagged = _pick(doubtful, HUMAN_DOUBTFUL, "human-doubtful")
    rest = _pick([i for i in answered if i not in flagged], HUMAN_SAMPLE - len(flagged), "human-random")
    return Accidents(missing, failures, errors, sorted(flagged + rest))


def _run_accidents(spec: RunSpec, results: dict[str, Result]) -> tuple[list[str], list[str], list[str]]:
    """One run's seeded picks: questions missing, generations failed, judge calls failed."""
    ids = sorted(results)
    missing = _pick(ids, spec.missing, f"missing-{spec.key}")
    answerable = [i for i in ids if i not in missing and results[i].question.answerable]
    failures = _pick(answerable, spec.generation_failures, f"failure-{spec.key}")
    present = [i for i in ids if i not in missing and i not in failures]
    return missing, failures, _pick(present, spec.judge_errors, f"judge-error-{spec.key}")


def sweep_accidents(results: dict[str, dict[str, Result]]) -> Accidents:
    """The k sweep's accidents: a few failed judge calls, and no human labels (the
    calibration story belongs to the two main runs)."""
    missing, failures, errors = {}, {}, {}
    for spec in SWEEP:
        missing[spec.key], failures[spec.key], errors[spec.key] = _run_accidents(spec, results[spec.key])
    return Accidents(missing, failures, errors, [])


def _retrieved(result: Result, passages: dict[str, Passage]) -> list[dict[str, Any]]:
    items = []
    for rank, hit in enumerate(result.hits):
        text = passages[hit.id].text
        items.append({"id": hit.id, "text": text if rank < result.k else truncate(text, CONTEXT_TEXT_LIMIT), "score": hit.score})
    return items


def _cited(draft: Draft, context: list[str]) -> list[str]:
    """The passages the answer says it used: its supported sources, else the top passage."""
    if draft.abstained:
        return []
    cited = [pid for pid in context if any(c.supported and c.source == pid for c in draft.claims)]
    return cited or context[:1]


def _costs(spec: RunSpec, result: Result, passages: dict[str, Passage], answer: str | None) -> dict[str, Any]:
    rng = random.Random(f"{SEED}:{spec.key}:{result.question.id}:timing")
    context_words = sum(word_count(passages[pid].text) for pid in result.context)
    tokens_in = 410 + round(1.45 * (context_words + word_count(result.question.question)))
    tokens_out = 6 + round(1.5 * word_count(answer)) if answer else 0
    latency = 380 + 0.21 * tokens_in + 24 * tokens_out
    latency = latency * rng.uniform(0.85, 1.2) + rng.randint(*spec.rerank_ms)
    if answer is None:
        latency = 30000 + rng.randint(0, 400)  # the generation timeout
    cost = (tokens_in + tokens_out) * PRICE_PER_TOKEN
    return {"latency_ms": int(latency), "cost_usd": round(cost, 6), "tokens_in": tokens_in, "tokens_out": tokens_out}


def records(
    spec: RunSpec, results: dict[str, Result], accidents: Accidents, passages: list[Passage]
) -> list[dict[str, Any]]:
    """The question records of one run, in question order, accidents applied."""
    by_id = {p.id: p for p in passages}
    out = []
    for qid, result in sorted(results.items()):
        if qid in accidents.missing[spec.key]:
            continue
        draft = result.draft
        record: dict[str, Any] = {"id": qid, "question": result.question.question, "retrieved": _retrieved(result, by_id)}
        if qid in accidents.generation_failures[spec.key]:
            no_answer = failed(spec.judge.model, "pas de réponse à évaluer : la génération a échoué")
            record |= {"answer": None, "cited": [], "judge": no_answer}
        else:
            record |= {"answer": draft.text, "cited": _cited(draft, result.context)}
            if qid in accidents.judge_errors[spec.key]:
                error = JUDGE_ERRORS[accidents.judge_errors[spec.key].index(qid) % len(JUDGE_ERRORS)]
                record["judge"] = failed(spec.judge.model, error)
            else:
                record["judge"] = verdict(draft, result.context, spec.judge, f"{spec.key}:{qid}")
            if qid in accidents.human:
                record["human"] = verdict(draft, result.context, HUMAN, f"{spec.key}:{qid}")
        record |= _costs(spec, result, by_id, record["answer"])
        out.append(record)
    return out
