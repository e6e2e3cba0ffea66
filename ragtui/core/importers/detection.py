"""Which tool wrote a file, from its first bytes: a cheap sniff, run on every file opened.

The loader asks this of every run file, native ones included, so it reads at most the
first 64 KiB (plus a zip's directory) and answers None for ragtui's own files. Only a
pretty-printed JSON document whose first 64 KiB name no tool is parsed whole, and only
when it is small.
"""

from __future__ import annotations

import csv
import json
import re
import zipfile
from pathlib import Path

from ragtui.core.importers import trec

HEAD_BYTES = 64 * 1024
FULL_PARSE_LIMIT = 16 * 1024 * 1024
_SNIFF_LINES = 20

_PROMPTFOO_KEY = re.compile(r'"evalId"\s*:')
_DEEPEVAL_KEY = re.compile(r'"(testCases|test_cases)"\s*:\s*\[')
_INSPECT_KEYS = (re.compile(r'"eval"\s*:\s*\{'), re.compile(r'"(task|task_id|run_id)"\s*:'))
_RAGAS_KEY = re.compile(r'^\[\s*\{\s*"user_input"\s*:')
_NATIVE_START = re.compile(r'^\{\s*"run"\s*:')


def detect(path: Path) -> str | None:
    """The peer format of a run file ("ragas", "promptfoo", …), or None (native or unknown).

    TREC qrels answer "trec" too, so that reading them as a run says to pass them as --gold.
    """
    path = Path(path)
    head = _head(path)
    if head is None:
        return None
    if head.startswith(b"PK\x03\x04"):
        return "inspect" if _is_inspect_archive(path) else None
    if path.suffix.lower() in (".yaml", ".yml", ".parquet"):
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("{"):
        return _json_object_format(path, text)
    if text.startswith("["):
        return "ragas" if _RAGAS_KEY.match(text) else None
    lines = _complete_lines(text, len(head) == HEAD_BYTES)
    if not lines:
        return None
    if _is_ragas_header(lines[0]):
        return "ragas"
    return "trec" if trec.sniff(lines[:_SNIFF_LINES]) else None


def detect_gold(path: Path) -> str | None:
    """"trec" for a TREC qrels file, else None (a native gold set or unknown)."""
    head = _head(Path(path))
    if head is None or head.startswith(b"PK"):
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = _complete_lines(text, len(head) == HEAD_BYTES)
    return "trec" if trec.sniff(lines[:_SNIFF_LINES]) == "qrels" else None


def _head(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES).removeprefix("\ufeff".encode())  # a byte-order mark is not content
    except OSError:
        return None  # the reader reports a missing or unreadable file in its own words


def _complete_lines(text: str, truncated: bool) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[:-1] if truncated and len(lines) > 1 else lines


def _is_inspect_archive(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False
    return any(name in ("header.json", "_journal/start.json") or name.startswith("samples/") for name in names)


def _json_object_format(path: Path, text: str) -> str | None:
    first = text.split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict):
        return _format_from_keys(obj)
    if _NATIVE_START.match(text):
        return None
    if _PROMPTFOO_KEY.search(text):
        return "promptfoo"
    if _DEEPEVAL_KEY.search(text):
        return "deepeval"
    if all(pattern.search(text) for pattern in _INSPECT_KEYS):
        return "inspect"
    try:
        small = path.stat().st_size <= FULL_PARSE_LIMIT
    except OSError:
        return None
    if not small:
        return None
    try:
        obj = json.loads(path.read_bytes())
    except (ValueError, OSError):
        return None
    return _format_from_keys(obj) if isinstance(obj, dict) else None


def _format_from_keys(obj: dict) -> str | None:
    """The format of one JSON object: a whole document, or the first line of a JSONL file."""
    keys = set(obj)
    if "user_input" in keys:
        return "ragas"
    if "evalId" in keys and "results" in keys:
        return "promptfoo"
    if "testCase" in keys and keys & {"promptIdx", "gradingResult", "response"}:
        return "promptfoo"  # `promptfoo eval -o out.jsonl`: one result a line
    if isinstance(obj.get("testCases", obj.get("test_cases")), list):
        return "deepeval"
    if isinstance(obj.get("eval"), dict) and keys & {"samples", "plan", "results", "stats"}:
        return "inspect"
    return None


def _is_ragas_header(line: str) -> bool:
    try:
        columns = set(next(csv.reader([line])))
    except (csv.Error, StopIteration):
        return False
    return "user_input" in columns or {"question", "contexts"} <= columns
