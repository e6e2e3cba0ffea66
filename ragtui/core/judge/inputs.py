"""What the judge sees for one question: the answer's sentences, the cited passages, the
question and the expected answer — gathered from the run record and the gold set.

Rules (docs/formats.md): the gold set wins over the record for the question and the expected
answer; the cited passages are the record's `cited` ids resolved to texts through its
`retrieved` list, or the top-k retrieved when `cited` is absent (an explicit `[]` means
the answer cites nothing). Anything that makes a fair verdict impossible — no answer,
no question, a cited passage without text — is a `problem`: the question gets a judge
error saying so, and no call is paid for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragtui.core.judge.prompts import Passage, is_unanswerable_expected
from ragtui.core.judge.sentences import split_sentences
from ragtui.core.loading.config import DEFAULT_UNANSWERABLE_CATEGORIES

# French aliases of the course material (docs/formats.md), read but never written.
_ALIASES = {
    "expected_answer": ("expected_answer", "reponse_attendue"),
    "gold_passages": ("gold_passages", "passages_verite"),
    "category": ("category", "categorie"),
    "question": ("question",),
}


@dataclass(frozen=True)
class JudgeInputs:
    """One question, ready to be judged (or a `problem` explaining why it cannot be)."""

    record_id: str
    question: str
    answer: str
    sentences: list[str]
    passages: list[Passage]
    expected: str | None
    unanswerable: bool
    abstained: bool | None = None
    problem: str | None = None
    passage_ids: list[str] = field(default_factory=list)


def field_value(record: Mapping[str, Any] | None, name: str) -> Any:
    """A record's field under its English name or a French alias; None when absent."""
    if not record:
        return None
    for key in _ALIASES.get(name, (name,)):
        if key in record and record[key] is not None:
            return record[key]
    return None


def build_inputs(
    record: Mapping[str, Any],
    k: int,
    gold: Mapping[str, Any] | None = None,
    unanswerable_categories: tuple[str, ...] = DEFAULT_UNANSWERABLE_CATEGORIES,
) -> JudgeInputs:
    """Gather the judge's inputs for `record`, with `gold` (its gold-set record) on top."""
    record_id = str(record.get("id", "?"))
    question = field_value(gold, "question") or field_value(record, "question")
    expected = field_value(gold, "expected_answer") or field_value(record, "expected_answer")
    category = field_value(gold, "category") or field_value(record, "category")
    gold_passages = field_value(gold, "gold_passages") if gold else field_value(record, "gold_passages")
    unanswerable = category in unanswerable_categories or gold_passages == [] or is_unanswerable_expected(expected)
    answer = record.get("answer")
    abstained = record.get("abstained") if isinstance(record.get("abstained"), bool) else None

    passages, passage_problem = cited_passages(record, k)
    problem = None
    if answer is None:
        problem = "no answer to judge: the generator produced none (answer is null)"
    elif not isinstance(answer, str):
        problem = f"the answer must be a string, found {type(answer).__name__}"
    elif not isinstance(question, str) or not question.strip():
        problem = "no question text for this id, in the run or the gold set (pass --gold GOLD.yaml)"
    elif passage_problem:
        problem = passage_problem
    text = answer if isinstance(answer, str) else ""
    return JudgeInputs(
        record_id=record_id,
        question=question if isinstance(question, str) else "",
        answer=text,
        sentences=split_sentences(text),
        passages=passages,
        expected=str(expected) if expected is not None else None,
        unanswerable=unanswerable,
        abstained=abstained,
        problem=problem,
        passage_ids=[p.id for p in passages],
    )


def cited_passages(record: Mapping[str, Any], k: int) -> tuple[list[Passage], str | None]:
    """The passages the answer rests on, and a problem when one has no text to judge against."""
    texts: dict[str, str | None] = {}
    order: list[str] = []
    retrieved = record.get("retrieved") or []
    if not isinstance(retrieved, list):
        return [], "`retrieved` must be a list of passages"
    for item in retrieved:
        if isinstance(item, Mapping):
            ident, text = item.get("id"), item.get("text")
        else:
            ident, text = item, None
        if ident is None:
            continue
        ident = str(ident)
        if ident not in texts:  # a duplicated id counts once, at its first rank
            texts[ident] = text if isinstance(text, str) else None
            order.append(ident)
        elif texts[ident] is None and isinstance(text, str):
            texts[ident] = text

    cited = record.get("cited")
    if cited is None:
        ids = order[:k]
    elif isinstance(cited, list):
        ids = list(dict.fromkeys(str(c) for c in cited))
    else:
        return [], "`cited` must be a list of passage ids"
    missing = [ident for ident in ids if not texts.get(ident)]
    if missing:
        where = "is not in `retrieved`" if missing[0] not in texts else "has no text in `retrieved`"
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        return [], f"cited passage '{missing[0]}'{more} {where}: faithfulness cannot be judged without the passage text"
    return [Passage(ident, texts[ident] or "") for ident in ids], None
