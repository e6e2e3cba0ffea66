"""What changed for one question between A and B, as short factual statements.

"gold p_042 fell out of the top 5", "sentence 2 became unsupported": the question view
and the report show these. Each statement carries a `kind` so a UI can style it; the
text contains ids from the files, so callers must display it as untrusted text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    kind: str  # see KINDS
    text: str
    worse: bool | None = None  # True: B is worse, False: B is better, None: neutral


KINDS = (
    "missing", "gold_fell_out", "gold_came_in", "gold_rank_moved", "abstention_changed", "sentence_unsupported",
    "sentence_supported", "answer_changed", "utility_changed", "judge_error",
)


def _dedup(ids: list[str] | None) -> list[str]:
    seen: dict[str, None] = {}
    for item in ids or []:
        seen.setdefault(item, None)
    return list(seen)


def first_gold(row: dict[str, Any]) -> tuple[int | None, str | None]:
    """(1-based rank, id) of the first gold passage of an evaluated row.

    The rank is the one the retrieval stage measured (`first_gold_rank`, duplicates
    counted once); only the id at that rank is looked up here, so the two never disagree.
    """
    rank = row.get("first_gold_rank")
    if rank is None:
        return None, None
    return rank, _dedup(row.get("retrieved_ids"))[rank - 1]


def gold_rank_text(row: dict[str, Any], k: int) -> str:
    """'gold at rank 7 — outside the top 5', 'gold at rank 2', 'no gold passage retrieved'."""
    if not row.get("gold_passages"):
        return "no gold passage for this question"
    rank, passage = first_gold(row)
    if rank is None:
        return "no gold passage retrieved"
    where = f"gold {passage} at rank {rank}"
    return where if rank <= k else f"{where} — outside the top {k}"


def _retrieval_changes(a: dict[str, Any], b: dict[str, Any], k: int) -> list[Change]:
    rank_a, gold_a = first_gold(a)
    rank_b, gold_b = first_gold(b)
    in_a = rank_a is not None and rank_a <= k
    in_b = rank_b is not None and rank_b <= k
    where_b = f"rank {rank_b}" if rank_b is not None else "not retrieved"
    where_a = f"rank {rank_a}" if rank_a is not None else "not retrieved"
    if in_a and not in_b:
        return [Change("gold_fell_out", f"gold {gold_a} fell out of the top {k} (rank {rank_a} → {where_b})", True)]
    if in_b and not in_a:
        return [Change("gold_came_in", f"gold {gold_b} came into the top {k} ({where_a} → rank {rank_b})", False)]
    if in_a and in_b and rank_a is not None and rank_b is not None and rank_a != rank_b:
        return [Change("gold_rank_moved", f"first gold moved from rank {rank_a} to rank {rank_b}", rank_b > rank_a)]
    return []


def _sentences(row: dict[str, Any]) -> list[dict[str, Any]]:
    return row.get("judge_sentences") or []


def _answer_changes(a: dict[str, Any], b: dict[str, Any]) -> list[Change]:
    changes = []
    if bool(a.get("abstained")) != bool(b.get("abstained")):
        text = "B abstained where A answered" if b.get("abstained") else "B answered where A abstained"
        worse = bool(b.get("abstained")) != bool(b.get("unanswerable"))
        changes.append(Change("abstention_changed", text, worse))
    sa, sb = _sentences(a), _sentences(b)
    same_text = [x.get("text") for x in sa] == [x.get("text") for x in sb]
    if sa and sb and same_text:
        for index, (x, y) in enumerate(zip(sa, sb), start=1):
            if x.get("attested") and not y.get("attested"):
                changes.append(Change("sentence_unsupported", f"sentence {index} became unsupported", True))
            elif not x.get("attested") and y.get("attested"):
                changes.append(Change("sentence_supported", f"sentence {index} became supported", False))
    elif (a.get("answer") or "") != (b.get("answer") or "") and b.get("present", True):
        unsupported = [i for i, s in enumerate(sb, start=1) if not s.get("attested")]
        detail = f" — B has {len(unsupported)} unsupported sentence(s): {', '.join(map(str, unsupported))}" if unsupported else ""
        changes.append(Change("answer_changed", f"the answer changed ({len(sa)} → {len(sb)} judged sentences){detail}", bool(unsupported) or None))
    ua, ub = a.get("utility_q"), b.get("utility_q")
    if ua is not None and ub is not None and ua != ub:
        changes.append(Change("utility_changed", f"utility {ua:g} → {ub:g}", ub < ua))
    if b.get("judge_failed") and not a.get("judge_failed"):
        changes.append(Change("judge_error", f"the judge failed on B: {b.get('judge_error') or 'no verdict'}", True))
    return changes


# The columns of `Evaluation.questions` that describe_changes reads: a caller describing
# thousands of questions selects these rather than every column.
CHANGE_COLUMNS = (
    "id", "present", "first_gold_rank", "retrieved_ids", "gold_passages", "abstained", "unanswerable", "answer",
    "judge_sentences", "judge_failed", "utility_q",
)


def describe_changes(a: dict[str, Any] | None, b: dict[str, Any] | None, k: int) -> list[Change]:
    """Changes from A's row to B's row (rows of `Evaluation.questions`)."""
    if a is None or b is None:
        return []
    if not b.get("present", True):
        return [Change("missing", "the question is missing from B", True)]
    if not a.get("present", True):
        return [Change("missing", "the question is missing from A", False)]
    return _retrieval_changes(a, b, k) + _answer_changes(a, b)
