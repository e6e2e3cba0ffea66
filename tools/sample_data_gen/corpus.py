"""Reading the hand-written sources: the corpus (sample_data/corpus/) and the questions.

Both are YAML read with `yaml.safe_load`, in sorted file order, so the passage order —
and with it BM25's tie-breaking — never depends on the file system.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Passage:
    """One passage of a corpus document: the unit of the gold set's ids."""

    id: str
    document: str
    section: str
    text: str


@dataclass(frozen=True)
class Sentence:
    """A sentence the synthetic model may write, and the passage it was written from."""

    source: str
    text: str


@dataclass(frozen=True)
class Question:
    """A gold question with the material its synthetic answers are made of."""

    id: str
    category: str
    question: str
    gold: tuple[str, ...]
    expected: str
    reponse: tuple[Sentence, ...]
    ajout: str
    ancienne: tuple[Sentence, ...]
    piege: tuple[str, ...]
    tags: tuple[str, ...] = ()  # the rare cases it covers: acronyme, tableau, section_recente

    @property
    def answerable(self) -> bool:
        """docs/metrics.md: gold passages and a category other than `sans_reponse`."""
        return bool(self.gold) and self.category != "sans_reponse"


def _load(path: Path):
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def load_corpus(directory: Path) -> list[Passage]:
    """Every passage of every `*.yaml` document in `directory`, documents in name order."""
    passages = []
    for path in sorted(directory.glob("*.yaml")):
        document = _load(path)
        for item in document["passages"]:
            passages.append(Passage(item["id"], document["document"], item["section"], item["text"].strip()))
    ids = [p.id for p in passages]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate passage ids in {directory}")
    return passages


def _sentences(pairs) -> tuple[Sentence, ...]:
    return tuple(Sentence(source, text) for source, text in pairs or ())


def load_questions(directory: Path) -> list[Question]:
    """The questions of every `questions_*.yaml` in `directory`, sorted by id."""
    questions = []
    for path in sorted(directory.glob("questions_*.yaml")):
        for item in _load(path):
            questions.append(
                Question(
                    id=item["id"],
                    category=item["categorie"],
                    question=item["question"],
                    gold=tuple(item["passages_verite"]),
                    expected=item["reponse_attendue"],
                    reponse=_sentences(item.get("reponse")),
                    ajout=item.get("ajout", ""),
                    ancienne=_sentences(item.get("ancienne")),
                    piege=tuple(item.get("piege") or ()),
                    tags=tuple(item.get("tags") or ()),
                )
            )
    return sorted(questions, key=lambda q: q.id)


def check_references(questions: list[Question], passages: list[Passage]) -> None:
    """Fail early when a question names a passage the corpus does not have."""
    known = {p.id for p in passages}
    for q in questions:
        named = set(q.gold) | {s.source for s in q.reponse + q.ancienne}
        unknown = sorted(named - known)
        if unknown:
            raise ValueError(f"{q.id} names unknown passages: {', '.join(unknown)}")
