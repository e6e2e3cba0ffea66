"""Read the corpus a gold set points into: every passage's id, text, document and section.

Three layouts are read:
- a folder (or one file) of YAML documents, one per document, as the bundled sample's
  `corpus/`: `document`, `passages` with `id`, `section`, `text`;
- JSONL, one passage a line: `id`, `text`, and optionally `document` and `section`;
- Parquet with the same columns.

A folder is read whole: its `*.yaml`/`*.yml`, `*.jsonl` and `*.parquet` files, in name
order. A passage id given twice keeps its first text and is reported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem, warning
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import load_yaml_records

CORPUS_SUFFIXES = (".yaml", ".yml", ".jsonl", ".parquet")


@dataclass(frozen=True)
class CorpusPassage:
    """One passage of the corpus, where it was read from."""

    id: str
    text: str
    document: str | None = None
    section: str | None = None
    file: str = ""
    line: int | None = None


@dataclass(frozen=True)
class Corpus:
    """The passages by id, and what could not be read (warnings; errors stop `load_corpus`)."""

    path: Path
    passages: dict[str, CorpusPassage]
    problems: list[Problem] = field(default_factory=list)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self.passages

    def text(self, passage_id: str) -> str | None:
        found = self.passages.get(passage_id)
        return found.text if found is not None else None


def document_of(corpus: Corpus, passage_id: str) -> str | None:
    """The document a passage belongs to; None when the passage or its document is unknown."""
    found = corpus.passages.get(passage_id)
    return found.document if found is not None else None


def _passage(path: Path, line: int | None, record: Any, document: str | None, problems: list[Problem]) -> CorpusPassage | None:
    if not isinstance(record, dict):
        problems.append(problem(path, line, None, "expected a passage with id and text"))
        return None
    passage_id, text = record.get("id"), record.get("text")
    if not isinstance(passage_id, str) or not passage_id:
        problems.append(problem(path, line, "id", f"expected a passage id, found {passage_id!r}"[:120]))
        return None
    if not isinstance(text, str):
        problems.append(problem(path, line, "text", f"passage '{passage_id}': expected a text"))
        return None
    own_document = record.get("document", document)
    section = record.get("section")
    return CorpusPassage(
        passage_id,
        text,
        own_document if isinstance(own_document, str) else document,
        section if isinstance(section, str) else None,
        str(path),
        line,
    )


def _yaml_passages(path: Path, problems: list[Problem]) -> list[CorpusPassage]:
    rest, items, lines = load_yaml_records(path, ("passages",))
    document = rest.get("document")
    if document is not None and not isinstance(document, str):
        problems.append(problem(path, None, "document", "expected the document's name"))
        document = None
    found = [_passage(path, line, item, document or path.stem, problems) for item, line in zip(items, lines, strict=True)]
    return [p for p in found if p is not None]


def _jsonl_passages(path: Path, problems: list[Problem]) -> list[CorpusPassage]:
    out = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = bounded_json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(problem(path, line_no, None, f"not JSON ({exc.msg})"))
                continue
            found = _passage(path, line_no, record, None, problems)
            if found is not None:
                out.append(found)
    return out


def _parquet_passages(path: Path, problems: list[Problem]) -> list[CorpusPassage]:
    import polars as pl

    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - polars raises several kinds for a bad file
        raise InputError(problem(path, None, None, f"not a readable Parquet file ({type(exc).__name__})")) from None
    missing = [name for name in ("id", "text") if name not in frame.columns]
    if missing:
        raise InputError(problem(path, None, missing[0], "required column missing (a corpus needs id and text)"))
    columns = [name for name in ("id", "text", "document", "section") if name in frame.columns]
    found = [_passage(path, index, row, None, problems) for index, row in enumerate(frame.select(columns).iter_rows(named=True), start=1)]
    return [p for p in found if p is not None]


_READERS = {".yaml": _yaml_passages, ".yml": _yaml_passages, ".jsonl": _jsonl_passages, ".parquet": _parquet_passages}


def corpus_files(path: Path) -> list[Path]:
    """The files a corpus path names: itself, or a folder's corpus files in name order."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES)
    return [path]


def load_corpus(path: str | Path) -> Corpus:
    """Every passage of a corpus folder or file; raises InputError when one is unusable."""
    path = Path(path)
    if not path.exists():
        raise InputError(problem(path, None, None, "no such file or folder"))
    problems: list[Problem] = []
    passages: dict[str, CorpusPassage] = {}
    files = corpus_files(path)
    if not files:
        raise InputError(problem(path, None, None, f"no corpus file in this folder (expected {', '.join(CORPUS_SUFFIXES)})"))
    for file in files:
        reader = _READERS.get(file.suffix.lower())
        if reader is None:
            raise InputError(problem(file, None, None, f"unknown extension for a corpus: expected {', '.join(CORPUS_SUFFIXES)}"))
        for passage in reader(file, problems):
            first = passages.setdefault(passage.id, passage)
            if first is not passage:
                where = f"{first.file}:{first.line}" if first.line is not None else first.file
                problems.append(warning(file, passage.line, "id", f"passage '{passage.id}' given again (first at {where}); the first is kept"))
    errors = [p for p in problems if p.is_error]
    if errors:
        raise InputError(errors)
    return Corpus(path, passages, problems)
