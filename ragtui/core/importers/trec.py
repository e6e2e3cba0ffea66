"""TREC files, as trec_eval reads them: runs (`qid Q0 docno rank sim tag`) and qrels.

A run is ranked the way trec_eval ranks it: by `sim` descending, ties broken by `docno`
descending (byte order). The rank column is ignored, as trec_eval ignores it. A run
becomes a ragtui run with retrieved ids and scores only: no answer, so every answer
metric is "not available".

Qrels (`qid iteration docno rel`) become a gold set: gold_passages = the docnos with
rel > 0; a topic with no relevant document gets `[]`. Qrels carry no question text:
`question` is null, never made up. Lines starting with `#` are comments, as in trec_eval
10.0; a file is recognised by its lines, whatever its name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem, shown
from ragtui.core.importers.common import finish_run, parse_number
from ragtui.core.loading.records import RawRun, read_bytes_utf8

RUN_COLUMNS = 6
QRELS_COLUMNS = 4
COMMENT = "#"  # a comment line's first character (trec_eval 10.0)
SNIFF_LINES = 20  # the lines a sniff checks


def read_run(path: Path, gold_questions: dict[str, str] | None = None) -> RawRun:
    """Import a TREC run (6 columns) as a retrieval-only ragtui run.

    `gold_questions` is accepted for the common signature; topic ids are the join key.
    """
    del gold_questions
    rows = _rows(path)
    if rows and len(rows[0][1]) == QRELS_COLUMNS:
        raise InputError(problem(path, None, None, "this is a qrels file (relevance judgments): give it as the gold set, with --gold"))
    problems: list[Problem] = []
    topics: dict[str, list[tuple[float, str]]] = {}
    first_line: dict[str, int] = {}
    tags: dict[str, None] = {}
    for line, fields in rows:
        if len(fields) != RUN_COLUMNS:
            problems.append(problem(path, line, None, f"expected 6 columns (qid Q0 docno rank sim tag), found {len(fields)}"))
            continue
        qid, _, docno, _, sim_text, tag = fields
        sim = parse_number(sim_text)
        if sim is None:
            problems.append(problem(path, line, "sim", f"expected a number in column 5, found '{sim_text}'"))
            continue
        topics.setdefault(qid, []).append((sim, docno))
        first_line.setdefault(qid, line)
        tags.setdefault(tag, None)
    records = [{"id": qid, "retrieved": [{"id": docno, "score": sim} for sim, docno in trec_order(ranked)]} for qid, ranked in topics.items()]
    lines = [first_line[qid] for qid in topics]
    meta: dict[str, Any] = {"name": next(iter(tags)) if len(tags) == 1 else path.stem}
    imported = {"tags": list(tags)} if len(tags) > 1 else None
    return finish_run(path, "trec", meta, records, lines, problems, imported=imported)


def trec_order(pairs: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """Rank (sim, docno) pairs as trec_eval does: sim descending, then docno descending."""
    return sorted(pairs, reverse=True)


# The private key under which a qrels gold record carries its relevance grades.
GRADES_KEY = "_relevance_grades"


def read_qrels(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """Gold records from a qrels file, with the line of each topic's first judgment."""
    rows = _rows(path)
    if rows and len(rows[0][1]) == RUN_COLUMNS:
        raise InputError(problem(path, None, None, "this is a TREC run (6 columns), not qrels: give it as a run"))
    problems: list[Problem] = []
    relevant: dict[str, list[str]] = {}
    grades: dict[str, dict[str, int]] = {}
    first_line: dict[str, int] = {}
    judged: dict[tuple[str, str], int] = {}
    for line, fields in rows:
        if len(fields) != QRELS_COLUMNS:
            problems.append(problem(path, line, None, f"expected 4 columns (qid iteration docno rel), found {len(fields)}"))
            continue
        qid, _, docno, rel_text = fields
        rel = _integer(rel_text)
        if rel is None:
            problems.append(problem(path, line, "rel", f"expected a whole number in column 4, found {shown(rel_text)}"))
            continue
        seen = judged.setdefault((qid, docno), line)
        if seen != line:
            problems.append(problem(path, line, "docno", f"'{docno}' is judged twice for topic {qid} (first on line {seen})"))
            continue
        first_line.setdefault(qid, line)
        docs = relevant.setdefault(qid, [])
        if rel > 0:
            docs.append(docno)
            grades.setdefault(qid, {})[docno] = rel
    if not rows:
        problems.append(problem(path, None, None, "no judgments in the file"))
    if problems:
        raise InputError(problems)
    # Relevance grades (rel 2, 3, …) ride along for nDCG's graded gains; the normaliser
    # ignores the private key and the gold set collects it.
    records = [
        {"id": qid, "question": None, "gold_passages": docs, GRADES_KEY: grades.get(qid, {})} for qid, docs in relevant.items()
    ]
    return records, [first_line[qid] for qid in relevant]


def _rows(path: Path) -> list[tuple[int, list[str]]]:
    """The lines of a whitespace-separated file, split, with their numbers: blank and
    comment lines (`#`, which trec_eval 10.0 accepts in runs and qrels) left out."""
    text = read_bytes_utf8(path)
    return [(number, line.split()) for number, line in enumerate(text.splitlines(), start=1) if not _skipped(line)]


def _skipped(line: str) -> bool:
    stripped = line.lstrip()
    return not stripped or stripped.startswith(COMMENT)


def _integer(text: str) -> int | None:
    stripped = text.strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    # 18 digits fit any grade or rank; Python refuses str→int past 4,300 with a ValueError.
    return int(stripped) if body.isascii() and body.isdigit() and len(body) <= 18 else None


def sniff(lines: list[str]) -> str | None:
    """"run" or "qrels" when each of the first lines that is not a comment has the shape of one, else None."""
    split = [line.split() for line in lines if not _skipped(line)][:SNIFF_LINES]
    if not split:
        return None
    if all(len(f) == RUN_COLUMNS and parse_number(f[4]) is not None and _integer(f[3]) is not None for f in split):
        return "run"
    if all(len(f) == QRELS_COLUMNS and _integer(f[3]) is not None for f in split):
        return "qrels"
    return None
