"""Every format ragtui opens besides its own, one row each: a new format is one row here
and its reader's module.

A row names the format, the other names users may type for `--from`, where its reader
lives, which reading options it takes, and how a file is recognised as one. Each
recogniser is handed what the sniff (`detection.py`) already holds, so recognising stays
a cheap look at the first bytes; rows are tried in table order, which is also the order
formats are listed in to people. Readers are imported only
when a file of their format is read: opening a native run imports none of them.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ragtui.core.importers import trec


@dataclass(frozen=True)
class Importer:
    """One peer tool's format: its names, its reader, and how a file is recognised as one."""

    name: str
    # "module:function", the module in ragtui.core.importers unless dotted; called (path, gold_questions, **options)
    reader: str
    aliases: tuple[str, ...] = ()  # other names for --from
    options: tuple[str, ...] = ()  # which of "variant", "gold_categories" the reader takes
    gold_reader: str | None = None  # "module:function" reading a gold set in this format
    # Recognisers, one per route of the sniff; None: never recognised that way.
    archive: Callable[[list[str]], bool] | None = None  # a zip archive's member names
    keys: Callable[[dict[str, Any]], bool] | None = None  # a JSON document, or a JSONL file's first line
    head: Callable[[str], bool] | None = None  # the first 64 KiB of a JSON document too long to parse
    array: Callable[[str], bool] | None = None  # the first 64 KiB of a JSON array
    header: Callable[[str], bool] | None = None  # a text file's first line (a CSV header)
    lines: Callable[[list[str]], bool] | None = None  # a text file's complete lines in the first 64 KiB
    gold_lines: Callable[[list[str]], bool] | None = None  # the same, for a gold set

    def read(self, *args: Any, **options: Any) -> Any:
        """Call the reader with the options it takes (the others do not apply to this format)."""
        return _function(self.reader)(*args, **{name: options[name] for name in self.options if name in options})

    def read_gold(self, *args: Any) -> Any:
        assert self.gold_reader is not None
        return _function(self.gold_reader)(*args)


def _function(where: str) -> Callable[..., Any]:
    module, name = where.split(":")
    return getattr(import_module(module if "." in module else f"ragtui.core.importers.{module}"), name)


def _ragas_header(line: str) -> bool:
    try:
        columns = set(next(csv.reader([line])))
    except (csv.Error, StopIteration):
        return False
    return _ragas_columns(columns)


def _ragas_columns(columns: set[str]) -> bool:
    """RAGAS 0.4's question column, or RAGAS 0.1's question and contexts (a ragtui record has
    `retrieved`, never `contexts`: a row with those names is RAGAS's, whatever else it has)."""
    return "user_input" in columns or ({"question", "contexts"} <= columns and "retrieved" not in columns)


def _ragas_array(text: str) -> bool:
    """A JSON array whose first row has RAGAS's columns (`to_json(orient="records")`)."""
    if _RAGAS_ARRAY.match(text):
        return True
    start = text.find("{")
    if start < 0 or text[1:start].strip():
        return False
    try:
        first, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):  # the first row is longer than the head, nested too deep, or not JSON
        return False
    return isinstance(first, dict) and _ragas_columns(set(first))


def _promptfoo_keys(obj: dict[str, Any]) -> bool:
    """A whole `promptfoo eval -o out.json`, or one result a line (`-o out.jsonl`)."""
    keys = set(obj)
    results = obj.get("results")
    # An older file (results version 2) may lack evalId: its `results` object still says its version and stats.
    versioned = isinstance(results, dict) and "version" in results and "stats" in results
    return ("evalId" in keys and "results" in keys) or versioned or ("testCase" in keys and bool(keys & {"promptIdx", "gradingResult", "response"}))


def _deepeval_keys(obj: dict[str, Any]) -> bool:
    """A test run, or `.latest_test_run.json`'s `{"testRunData": {test run}}`."""
    run = obj.get("testRunData", obj)
    return isinstance(run, dict) and isinstance(run.get("testCases", run.get("test_cases")), list)


def _inspect_archive(names: list[str]) -> bool:
    return any(name in ("header.json", "_journal/start.json") or name.startswith("samples/") for name in names)


_RAGAS_ARRAY = re.compile(r'^\[\s*\{\s*"user_input"\s*:')
_PROMPTFOO_HEAD = re.compile(r'"evalId"\s*:|"results"\s*:\s*\{\s*"version"\s*:')
_DEEPEVAL_HEAD = re.compile(r'"(testCases|test_cases)"\s*:\s*\[')
_INSPECT_HEAD = (re.compile(r'"eval"\s*:\s*\{'), re.compile(r'"(task|task_id|run_id)"\s*:'))

IMPORTERS: tuple[Importer, ...] = (
    Importer(
        "ragas", "ragas:read_ragas",
        keys=lambda obj: _ragas_columns(set(obj)),
        array=_ragas_array,
        header=_ragas_header,
    ),
    Importer(
        "promptfoo", "promptfoo:read_promptfoo", options=("variant",),
        keys=_promptfoo_keys,
        head=lambda text: bool(_PROMPTFOO_HEAD.search(text)),
    ),
    Importer(
        "inspect", "inspect_log:read_inspect", aliases=("inspect_ai",), options=("variant",),
        archive=_inspect_archive,
        keys=lambda obj: isinstance(obj.get("eval"), dict) and bool(set(obj) & {"samples", "plan", "results", "stats"}),
        head=lambda text: all(pattern.search(text) for pattern in _INSPECT_HEAD),
    ),
    Importer(
        "deepeval", "deepeval:read_deepeval", options=("gold_categories",),
        keys=_deepeval_keys,
        head=lambda text: bool(_DEEPEVAL_HEAD.search(text)),
    ),
    Importer(
        # A run file and a qrels file are both recognised: reading qrels as a run says to pass them as --gold.
        "trec", "trec:read_run", aliases=("trec_eval", "qrels"), gold_reader="trec:read_qrels",
        lines=lambda lines: trec.sniff(lines) is not None,
        gold_lines=lambda lines: trec.sniff(lines) == "qrels",
    ),
)
FORMATS: tuple[str, ...] = tuple(importer.name for importer in IMPORTERS)


def importer_named(name: str) -> Importer | None:
    """The importer a --from name designates (any case, aliases included), or None."""
    wanted = name.lower()
    return next((importer for importer in IMPORTERS if wanted in (importer.name, *importer.aliases)), None)


def recognised(route: str, evidence: Any) -> str | None:
    """The first format whose recogniser for `route` accepts `evidence`, or None."""
    for importer in IMPORTERS:
        recogniser = getattr(importer, route)
        if recogniser is not None and recogniser(evidence):
            return importer.name
    return None
