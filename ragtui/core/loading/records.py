"""Raw reading and writing of ragtui's native files, as plain Python records.

This is the exact, line-aware path: every record keeps the line (or record index) it
came from, so a problem can be reported as `FILE:LINE: field: message`. The loaders
(`ragtui.core.loading.runs`, `ragtui.core.loading.gold`) validate and normalise these records; the
judge reads and writes runs through here so unknown fields survive a round trip.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from ragtui.core.atomic import atomic_writer
from ragtui.core.errors import InputError, Problem, problem, shown
from ragtui.core.loading import bounded_json

RUN_EXTENSIONS = {".jsonl", ".ndjson", ".json", ".yaml", ".yml", ".parquet"}
PARQUET_META_KEY = "ragtui.run"


@dataclass
class RawRun:
    """A run file as records: `meta` is the `run` object ({} when absent)."""

    path: Path
    meta: dict[str, Any]
    records: list[dict[str, Any]]
    lines: list[int]
    meta_line: int | None = None
    problems: list[Problem] = field(default_factory=list)


BOM = "\ufeff"


def read_bytes_utf8(path: Path) -> str:
    """Read a whole file as UTF-8, or raise an InputError naming the bad byte's line."""
    from ragtui.core.loading.bounded_file import read_bounded

    data = read_bounded(path)
    if not data.strip():
        raise InputError(problem(path, None, None, "the file is empty"))
    try:
        # A byte-order mark (Windows editors write one) is not content: every reader skips it.
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            problem(path, line, None, f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}; save the file as UTF-8")
        ) from None


def _json_line_error(exc: json.JSONDecodeError) -> str:
    return f"malformed JSON: {exc.msg} (column {exc.colno})"


def json_lines(path: Path, text: str) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """Every non-blank line of a JSONL text parsed, with its 1-based line number.

    The one JSONL reader of ragtui's own files and the peer tools' (promptfoo's `-o
    out.jsonl`): a byte-order mark is accepted, and every malformed line is reported, not
    just the first.
    """
    parsed: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed.append((number, bounded_json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(problem(path, number, None, _json_line_error(exc)))
    return parsed, problems


def read_jsonl(path: Path, text: str | None = None) -> RawRun:
    """Parse a JSONL run: an optional first `{"run": {...}}` line, then one record a line."""
    text = read_bytes_utf8(path) if text is None else text
    meta: dict[str, Any] = {}
    meta_line = None
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    parsed, problems = json_lines(path, text)
    # The metadata line must come first among the lines, malformed ones included.
    first_number = min([number for number, _ in parsed] + [p.line for p in problems if p.line is not None], default=None)
    for number, obj in parsed:
        first = number == first_number
        if not isinstance(obj, dict):
            problems.append(problem(path, number, None, f"expected a JSON object, found {shown(obj)}"))
        elif first and set(obj) == {"run"}:
            if isinstance(obj["run"], dict):
                meta, meta_line = obj["run"], number
            else:
                problems.append(problem(path, number, "run", "expected an object of run metadata"))
        elif "run" in obj and set(obj) == {"run"}:
            problems.append(problem(path, number, "run", "run metadata must be the first line"))
        else:
            records.append(obj)
            lines.append(number)
    problems.sort(key=lambda p: p.line or 0)
    return RawRun(path, meta, records, lines, meta_line, problems)


def _yaml_record_lines(text: str, path: Path) -> tuple[Any, list[int] | None]:
    """Load YAML safely, with the line of each top-level record where it has one."""
    from ragtui.core.loading.yaml_safe import load_yaml_file

    node, data = load_yaml_file(path, text)
    record_nodes = None
    if isinstance(node, yaml.SequenceNode):
        record_nodes = node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value in ("results", "questions") and isinstance(value, yaml.SequenceNode):
                record_nodes = value.value
    lines = [n.start_mark.line + 1 for n in record_nodes] if record_nodes is not None else None
    return data, lines


def load_yaml_records(path: Path, list_keys: tuple[str, ...]) -> tuple[dict[str, Any], list[Any], list[int]]:
    """A YAML file holding a list of records, or a mapping with one of `list_keys`.

    Returns (the mapping's other keys, the records, the line of each record).
    """
    text = read_bytes_utf8(path)
    data, lines = _yaml_record_lines(text, path)
    return _split_container(path, data, list_keys, lines)


def _split_container(
    path: Path, data: Any, list_keys: tuple[str, ...], lines: list[int] | None
) -> tuple[dict[str, Any], list[Any], list[int]]:
    if isinstance(data, list):
        items, rest = data, {}
    elif isinstance(data, dict):
        key = next((k for k in list_keys if k in data), None)
        if key is None:
            raise InputError(problem(path, None, list_keys[0], f"expected a list of records under '{list_keys[0]}'"))
        items, rest = data[key], {k: v for k, v in data.items() if k != key}
        if not isinstance(items, list):
            raise InputError(problem(path, None, key, f"expected a list, found {type(items).__name__}"))
    else:
        raise InputError(problem(path, None, None, f"expected a list of records or a mapping, found {type(data).__name__}"))
    if lines is None or len(lines) != len(items):
        lines = list(range(1, len(items) + 1))
    return rest, items, lines


def _records_only(path: Path, items: list[Any], lines: list[int]) -> tuple[list[dict], list[int], list[Problem]]:
    records, kept, problems = [], [], []
    for item, line in zip(items, lines):
        if isinstance(item, dict):
            records.append(item)
            kept.append(line)
        else:
            problems.append(problem(path, line, None, f"expected a record (mapping), found {type(item).__name__}"))
    return records, kept, problems


def _meta_from(path: Path, rest: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    meta = rest.get("run", {})
    if meta is None:
        return {}, []
    if not isinstance(meta, dict):
        return {}, [problem(path, None, "run", "expected an object of run metadata")]
    return meta, []


def read_json_or_yaml_run(path: Path) -> RawRun:
    """A `.json` / `.yaml` run: `{"run": {...}, "results": [...]}` (a bare list is accepted)."""
    if path.suffix.lower() == ".json":
        text = read_bytes_utf8(path)
        try:
            data = bounded_json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(problem(path, exc.lineno, None, _json_line_error(exc))) from None
        rest, items, lines = _split_container(path, data, ("results",), None)
    else:
        rest, items, lines = load_yaml_records(path, ("results",))
    meta, problems = _meta_from(path, rest)
    records, lines, more = _records_only(path, items, lines)
    return RawRun(path, meta, records, lines, None, problems + more)


def read_parquet_run_frame(path: Path) -> tuple[dict[str, Any], Any, list[Problem]]:
    """(run metadata, the Parquet frame as stored, problems): metadata from key
    `ragtui.run`, else a sidecar `NAME.run.yaml`."""
    import polars as pl

    try:
        frame = pl.read_parquet(path)
        kv = pl.read_parquet_metadata(path)
    except FileNotFoundError:
        raise InputError(problem(path, None, None, "file not found")) from None
    except Exception as exc:  # polars raises several types for a corrupt file
        raise InputError(problem(path, None, None, f"unreadable Parquet: {exc}")) from None
    meta: dict[str, Any] = {}
    problems: list[Problem] = []
    if PARQUET_META_KEY in kv:
        try:
            meta = bounded_json.loads(kv[PARQUET_META_KEY])
        except json.JSONDecodeError as exc:
            problems.append(problem(path, None, "run", f"metadata key {PARQUET_META_KEY} is not JSON: {exc.msg}"))
    sidecar = path.with_name(path.stem + ".run.yaml")
    if not meta and sidecar.exists():
        loaded, _ = _yaml_record_lines(read_bytes_utf8(sidecar), sidecar)
        loaded = loaded.get("run", loaded) if isinstance(loaded, dict) else None
        if isinstance(loaded, dict):
            meta = loaded
        else:
            problems.append(problem(sidecar, None, "run", "expected a mapping of run metadata"))
    return meta, frame, problems


def read_parquet_run(path: Path) -> RawRun:
    """A `.parquet` run as records: one row a question."""
    meta, frame, problems = read_parquet_run_frame(path)
    records = frame.to_dicts()
    return RawRun(path, meta, records, list(range(1, len(records) + 1)), None, problems)


def read_raw_run(path: str | Path) -> RawRun:
    """Read a native run file (by extension) into records. Raises InputError."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(path)
    if suffix in (".json", ".yaml", ".yml"):
        return read_json_or_yaml_run(path)
    if suffix == ".parquet":
        return read_parquet_run(path)
    known = ", ".join(sorted(RUN_EXTENSIONS))
    raise InputError(problem(path, None, None, f"unknown extension '{path.suffix or '(none)'}': expected one of {known}"))


def dump_record(record: dict[str, Any]) -> str:
    """One JSONL line: UTF-8 kept as is, so French text stays readable."""
    return json.dumps(record, ensure_ascii=False)


def write_run_jsonl(path: str | Path, meta: dict[str, Any], records: Iterable[dict[str, Any]]) -> None:
    """Write a run as JSONL atomically, with the `{"run": ...}` first line when `meta` is set."""
    with atomic_writer(path, "w") as handle:
        write_run_lines(handle, meta, records)


def write_run_lines(handle: IO[str], meta: dict[str, Any], records: Iterable[dict[str, Any]]) -> None:
    """Write a run as JSONL to an open text stream (a file, or standard output for `-o -`)."""
    if meta:
        handle.write(dump_record({"run": meta}) + "\n")
    for record in records:
        handle.write(dump_record(record) + "\n")


def json_object_line(path: Path, line_no: int, text: str, problems: list[Problem]) -> dict[str, Any] | None:
    """One line of a JSONL sidecar as a JSON object, or None with the problem recorded."""
    try:
        data = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(problem(path, line_no, None, f"not JSON ({exc.msg})"))
        return None
    if not isinstance(data, dict):
        problems.append(problem(path, line_no, None, "expected a JSON object"))
        return None
    return data
