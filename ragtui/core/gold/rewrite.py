"""Write a gold set with its edits, in the file's own format, key language and order.

The original records are read again as they are (every key, unknown ones included) and
only the edited fields are replaced, under the key the record already uses (`categorie`
or `category`, …; a field the record lacks gets the key language of the rest of the
file). YAML is written back with PyYAML, which keeps the order of records and keys but
not comments, blank lines or quoting: `lost_in_rewrite` says what would be lost, so the
caller can say it before writing. JSONL keeps one record a line, and JSON its layout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ragtui.core.errors import InputError, problem
from ragtui.core.gold.edits import GoldEdit
from ragtui.core.loading.records import load_yaml_records, read_bytes_utf8
from ragtui.core.loading.schema import RECORD_ALIASES
from ragtui.core.loading.yaml_safe import safe_load

# canonical field → the course's key for it (`gold_passages` → `passages_verite`)
_COURSE_KEYS = {canonical: alias for alias, canonical in RECORD_ALIASES.items()}


def _file_speaks_course(records: list[Any]) -> bool:
    aliases = set(RECORD_ALIASES)
    return any(isinstance(record, dict) and aliases & set(record) for record in records)


def _key_for(record: dict[str, Any], name: str, course: bool) -> str:
    alias = _COURSE_KEYS.get(name)
    if name in record or alias is None:
        return name
    if alias in record:
        return alias
    return alias if course else name


def _edited_records(records: list[Any], edits: list[GoldEdit]) -> list[Any]:
    course = _file_speaks_course(records)
    by_id = {record.get("id"): record for record in records if isinstance(record, dict)}
    for edit in edits:
        record = by_id.get(edit.question)
        if record is not None:
            record[_key_for(record, edit.field, course)] = edit.after
    return records


def lost_in_rewrite(path: Path) -> list[str]:
    """What writing `path` again would not keep: its comments (YAML only)."""
    if path.suffix.lower() not in (".yaml", ".yml"):
        return []
    comments = _comment_lines(read_bytes_utf8(path))
    return [f"{comments} comment line(s)"] if comments else []


def _comment_lines(text: str) -> int:
    """Lines holding a comment, found with PyYAML's own scanner: between two tokens there is
    only space, line breaks and comments, so a `#` there starts one (a `#` in a value does not)."""
    lines: set[int] = set()
    scanner = yaml.SafeLoader(text)
    try:
        previous_end = 0
        while True:
            token = scanner.get_token()
            end = token.start_mark.index if token is not None else len(text)
            first_line = text.count("\n", 0, previous_end)
            for offset, chunk in enumerate(text[previous_end:end].split("\n")):
                if "#" in chunk:
                    lines.add(first_line + offset)
            if token is None:
                break
            previous_end = max(previous_end, token.end_mark.index)
    finally:
        scanner.dispose()
    return len(lines)


def edited_gold_text(path: Path, edits: list[GoldEdit]) -> str:
    """The text of the gold set at `path` with `edits` applied (in order).

    Raises:
        InputError: the format cannot be written back (TREC qrels, a peer tool's file).
    """
    from ragtui.core import importers

    suffix = path.suffix.lower()
    if importers.detect_gold(path) is not None:
        suffix = "(a peer tool's format)"
    if suffix in (".yaml", ".yml"):
        load_yaml_records(path, ("questions",))  # a list of records, or a mapping with `questions:`
        document = safe_load(read_bytes_utf8(path))
        _edited_records(document if isinstance(document, list) else document["questions"], edits)
        return str(yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=100, default_flow_style=None))
    if suffix == ".jsonl":
        lines = read_bytes_utf8(path).splitlines()
        parsed = [json.loads(line) if line.strip() else None for line in lines]
        edited = _edited_records([p for p in parsed if p is not None], edits)
        it = iter(edited)
        return "".join((json.dumps(next(it), ensure_ascii=False) if p is not None else "") + "\n" for p in parsed)
    if suffix == ".json":
        data = json.loads(read_bytes_utf8(path))
        records = data if isinstance(data, list) else data.get("questions", [])
        _edited_records(records, edits)
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    raise InputError(problem(path, None, None, "ragtui writes edits back to YAML, JSON and JSONL gold sets only"))
