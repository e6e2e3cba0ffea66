"""What `ragtui validate` checks: guess what a file is, then list all its problems."""

from __future__ import annotations

from pathlib import Path

from ragtui.core.errors import InputError, Problem
from ragtui.core.loading.bounded_file import renamed, spooled
from ragtui.core.loading.config import config_problems_and_value
from ragtui.core.loading.gold import check_gold
from ragtui.core.loading.runs import check_run


def guess_kind(path: Path) -> str:
    """"config", "gold" or "run", from the name and a peek at the content."""
    from ragtui.core import importers

    name = path.name.lower()
    if name in ("ragtui.yaml", "ragtui.yml") or name.endswith(".ragtui.yaml"):
        return "config"
    if importers.detect_gold(path) is not None:
        return "gold"
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:4000]
        except OSError:
            return "run"
        if "targets:" in head and "question" not in head:
            return "config"
        if "results:" in head or "retrieved" in head or "answer:" in head:
            return "run"
        return "gold"
    return "run"


def validate_file(path: Path, kind: str = "auto", fmt: str | None = None) -> tuple[str, list[Problem]]:
    """(the kind it was checked as, every problem found).

    A FIFO is read once and checked as the file it gave; a device or a socket is named as such.
    """
    try:
        with spooled(path) as copy:
            checked, problems = _validate(copy, kind, fmt)
            return checked, renamed(problems, copy, path)
    except InputError as exc:
        return ("file" if kind == "auto" else kind), exc.problems


def _validate(path: Path, kind: str, fmt: str | None) -> tuple[str, list[Problem]]:
    kind = guess_kind(path) if kind == "auto" else kind
    try:
        if kind == "config":
            _, problems = config_problems_and_value(path)
        elif kind == "gold":
            _, problems = check_gold(path)
        else:
            _, problems = check_run(path, fmt)
    except InputError as exc:
        problems = exc.problems
    return kind, in_line_order(problems)


def in_line_order(problems: list[Problem]) -> list[Problem]:
    """Each file's problems in the order of its lines, the whole-file ones first; files in the
    order they were first named (checks run by kind, so a duplicate id on line 2 was found
    after a bad field on line 7)."""
    files = {name: rank for rank, name in enumerate(dict.fromkeys(p.file for p in problems))}
    return sorted(problems, key=lambda p: (files[p.file], p.line is not None, p.line or 0))
