"""Which tool wrote a file, from its first bytes: a cheap sniff, run on every file opened.

The loader asks this of every run file, native ones included, so it reads at most the
first 64 KiB (plus a zip's directory) and answers None for ragtui's own files. Only a
pretty-printed JSON document whose first 64 KiB name no tool is parsed whole, and only
when it is small. This module finds the route (an archive, a JSON object or array, a text
file) and hands what it read to the formats' recognisers (`registry.IMPORTERS`).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from ragtui.core.importers.registry import recognised
from ragtui.core.loading import bounded_json

HEAD_BYTES = 64 * 1024
FULL_PARSE_LIMIT = 16 * 1024 * 1024

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
        return _archive_format(path)
    if path.suffix.lower() in (".yaml", ".yml", ".parquet"):
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("{"):
        return _json_object_format(path, text)
    if text.startswith("["):
        return recognised("array", text)
    lines = _complete_lines(text, len(head) == HEAD_BYTES)
    if not lines:
        return None
    return recognised("header", lines[0]) or recognised("lines", lines)


def detect_gold(path: Path) -> str | None:
    """The format of a gold set in a peer tool's format ("trec" for qrels), else None (native or unknown)."""
    head = _head(Path(path))
    if head is None or head.startswith(b"PK"):
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = _complete_lines(text, len(head) == HEAD_BYTES)
    return recognised("gold_lines", lines)


def _head(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES).removeprefix("\ufeff".encode())  # a byte-order mark is not content
    except OSError:
        return None  # the reader reports a missing or unreadable file in its own words


def _complete_lines(text: str, truncated: bool) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[:-1] if truncated and len(lines) > 1 else lines


def _archive_format(path: Path) -> str | None:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return None
    return recognised("archive", names)


def _json_object_format(path: Path, text: str) -> str | None:
    first = text.split("\n", 1)[0]
    try:
        obj = bounded_json.loads(first)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict):
        return recognised("keys", obj)
    if _NATIVE_START.match(text):
        return None
    found = recognised("head", text)
    if found is not None:
        return found
    try:
        small = path.stat().st_size <= FULL_PARSE_LIMIT
    except OSError:
        return None
    if not small:
        return None
    try:
        obj = bounded_json.loads(path.read_bytes())
    except (ValueError, OSError):
        return None
    return recognised("keys", obj) if isinstance(obj, dict) else None
