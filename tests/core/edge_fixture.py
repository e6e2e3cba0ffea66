"""A hand-computed fixture covering the edge cases of docs/metrics.md (k = 3).

Every expected number in test_metrics_edge_cases.py was worked out by hand from
this data; the comments give the working.
"""

from __future__ import annotations

GOLD = [
    {"id": "e1", "question": "Q1 ?", "passages_verite": ["p1"], "categorie": "factuelle_courte"},
    {"id": "e2", "question": "Q2 ?", "passages_verite": ["p4", "p5"], "categorie": "procedurale"},
    {"id": "e3", "question": "Q3 ?", "passages_verite": [], "categorie": "sans_reponse"},
    {"id": "e4", "question": "Q4 ?", "passages_verite": ["p6"], "categorie": "factuelle_courte"},
    {"id": "e5", "question": "Q5 ?", "passages_verite": ["p1"], "categorie": "factuelle_courte"},
]


def _judge(verdicts: list[bool], utility: int) -> dict:
    return {
        "model": "claude-sonnet-4",
        "faithfulness": {"sentences": [{"text": f"S{i}.", "attested": v, "evidence": [], "reason": "r"} for i, v in enumerate(verdicts, 1)]},
        "utility": {"score": utility, "reason": "u"},
        "error": None,
    }


RUN = [
    # e1: duplicate p1 counts once → deduped [p2, p1, p3]: first gold at rank 2.
    {"id": "e1", "retrieved": ["p2", "p1", "p1", "p3"], "answer": "S1. S2.", "judge": _judge([True, False], 3)},
    # e2: fewer than k retrieved: only p5 (one of two gold).
    {"id": "e2", "retrieved": [{"id": "p5", "text": "t5", "score": 0.9}], "answer": "S1. S2. S3.", "judge": _judge([True, True, True], 5)},
    # e3: unanswerable, abstains with case/punctuation differences from the fallback phrase.
    {"id": "e3", "retrieved": ["p9"], "answer": "JE ne trouve pas cette information !", "judge": _judge([False], 4)},
    # e4: gold at rank 4 (outside k = 3); the judge failed.
    {"id": "e4", "retrieved": ["p7", "p8", "p9", "p6"], "answer": "S1.", "judge": {"model": "claude-sonnet-4", "error": "timeout after 3 retries"}},
    # e5 is missing from the run.
]
