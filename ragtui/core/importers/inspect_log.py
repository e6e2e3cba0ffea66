"""inspect_ai logs, read without inspect_ai: `.eval` archives and `.json` EvalLogs.

A `.eval` log is a zip archive: `header.json` (the EvalLog without samples: `eval`,
`plan`, `results`, `stats`, `status`), `samples/{id}_epoch_{n}.json` (one EvalSample
each), `summaries.json`, `reductions.json`, `_journal/…`. A log still being written has
`_journal/start.json` instead of `header.json`. A sample may also be stored in chunks
(inspect_ai's layout for large samples): `samples/{id}_epoch_{n}/sample.json` and its
folder, found, as inspect finds them, from the archive's list of entries. A `.json` log
is the whole EvalLog with its `samples` list. Log format 1 (inspect_ai ≤ 0.3.17) gave a
sample one `score` and named its scorer in `results.scorer`; it is read as inspect's own
reader migrates it. Each sample becomes a record in `inspect_sample.py`.

With several epochs the log holds several runs of the same system: the importer asks
which epoch to take (`variant`).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.importers.common import finish_run, score_value, short, string_or_none
from ragtui.core.importers.inspect_sample import sample_record, with_attachments
from ragtui.core.importers.zipentry import read_entry
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import RawRun, read_bytes_utf8

_SAMPLE_ENTRY = re.compile(r"samples/.+_epoch_\d+\.json")
# inspect_ai's chunked sample: a folder per sample, its "shell" and numbered chunks.
_SHELL = "sample.json"
_CHUNKED_SHELL = re.compile(r"samples/.+_epoch_\d+/sample\.json")
_CHUNK = re.compile(r"(\d+)\.json")
_HEADERS = ("header.json", "_journal/start.json")


def read_inspect(path: Path, gold_questions: dict[str, str] | None = None, variant: int | None = None) -> RawRun:
    """Import an inspect_ai log (`.eval` or `.json`); `variant` picks the epoch."""
    if zipfile.is_zipfile(path):
        header, samples = _from_archive(path)
    else:
        header, samples = _from_json(path)
    epoch = _choose_epoch(path, samples, variant)
    problems: list[Problem] = []
    records, lines = [], []
    positional = 0
    legacy_scorer = _legacy_scorer(header)
    for index, (where, sample) in enumerate(samples, start=1):
        if sample.get("epoch", 1) != epoch:
            continue
        if "score" in sample and "scores" not in sample:
            # Log format 1 (inspect_ai ≤ 0.3.17): one `score` a sample, its scorer named in
            # `results.scorer`; inspect's own reader moves it under that name, as here.
            sample = {**sample, "scores": {legacy_scorer: sample["score"]}}
        record, is_positional = sample_record(path, index, where, with_attachments(sample), gold_questions, problems)
        if record is not None:
            records.append(record)
            lines.append(index)
            positional += is_positional
    imported: dict[str, Any] = {"status": header["status"]} if isinstance(header.get("status"), str) else {}
    own = _log_metrics(header)
    if own:
        imported["metrics"] = own
    epochs = {sample.get("epoch", 1) for _, sample in samples}
    if len(epochs) > 1:
        imported.update(epoch=epoch, epochs=len(epochs))
    return finish_run(path, "inspect", _meta(path, header), records, lines, problems, positional=positional, imported=imported)


def _from_archive(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(problem(path, None, None, f"not a readable zip archive: {exc}")) from None
    with archive:
        names = archive.namelist()
        header_name = next((name for name in _HEADERS if name in names), None)
        if header_name is None:
            raise InputError(problem(path, None, "header.json", "missing: not an inspect_ai log (no header.json nor _journal/start.json)"))
        header = _json_entry(archive, header_name, path)
        samples = [(name, _archive_sample(archive, name, names, path)) for name in names if _SAMPLE_ENTRY.fullmatch(name) or _CHUNKED_SHELL.fullmatch(name)]
        if not samples:
            raise InputError(problem(path, None, "samples", _no_samples(header, "no samples/*.json in the log")))
    return header, samples


def _archive_sample(archive: zipfile.ZipFile, name: str, names: list[str], path: Path) -> dict[str, Any]:
    """One sample: a single entry (`samples/{id}_epoch_{n}.json`), or a chunked one.

    A chunked sample (inspect_ai's large-sample layout) lives under `samples/{id}_epoch_{n}/`:
    `sample.json` (the sample without its messages, events, attachments and metadata),
    `metadata.json` when it has metadata, and `attachments/{start}.json`, arrays of the
    strings its fields refer to as `attachment://{index}`. The archive's own list of
    entries is the layout: nothing else says which chunks exist.
    """
    sample = _json_entry(archive, name, path)
    if not name.endswith("/" + _SHELL):
        return sample
    prefix = name.removesuffix(_SHELL)
    if prefix + "metadata.json" in names:
        sample["metadata"] = _json_entry(archive, prefix + "metadata.json", path)
    chunks = sorted(
        (int(match.group(1)), entry)
        for entry in names
        if entry.startswith(prefix + "attachments/") and (match := _CHUNK.fullmatch(entry.removeprefix(prefix + "attachments/")))
    )
    attachments: dict[str, str] = {}
    for start, entry in chunks:
        contents = _json_value(archive, entry, path)
        if not isinstance(contents, list):
            raise InputError(problem(path, None, entry, f"expected a JSON array of attachments, found {short(contents)}"))
        attachments.update((str(start + offset), text) for offset, text in enumerate(contents) if isinstance(text, str))
    sample["attachments"] = attachments
    return sample


def _no_samples(header: dict[str, Any], found: str) -> str:
    """Why a log holds no sample: its status when the eval did not finish, else how it was written."""
    status = header.get("status")
    if status in ("cancelled", "error", "started"):
        error = header.get("error")
        why = string_or_none(error.get("message") if isinstance(error, dict) else error)
        said = f" ({short(why, 120)})" if why else ""
        return f"{found}: the eval's status is '{status}'{said} and no sample was written — run it again, or open a log that finished"
    return f"{found}: was it written with --no-log-samples? Run the eval again without it"


def _json_entry(archive: zipfile.ZipFile, name: str, path: Path) -> dict[str, Any]:
    value = _json_value(archive, name, path)
    if not isinstance(value, dict):
        raise InputError(problem(path, None, name, f"expected a JSON object, found {short(value)}"))
    return value


def _json_value(archive: zipfile.ZipFile, name: str, path: Path) -> Any:
    data = read_entry(archive, archive.getinfo(name), path)
    try:
        return bounded_json.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError:
        raise InputError(problem(path, None, name, "not UTF-8 text")) from None
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, None, name, f"malformed JSON at line {exc.lineno}: {exc.msg} (column {exc.colno})")) from None


def _from_json(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    try:
        log = bounded_json.loads(read_bytes_utf8(path))
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})")) from None
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError(problem(path, None, "eval", "missing: not an inspect_ai log"))
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(problem(path, None, "samples", _no_samples(log, "no samples in the log")))
    bad = [problem(path, i, "samples", f"expected a sample object, found {short(s)}") for i, s in enumerate(samples, 1) if not isinstance(s, dict)]
    if bad:
        raise InputError(bad)
    return log, [(f"samples[{i}]", sample) for i, sample in enumerate(samples)]


def _legacy_scorer(header: dict[str, Any]) -> str:
    """The scorer's name in a format-1 log (`results.scorer.name`), else the first of `results.scores`."""
    results: dict[str, Any] = header["results"] if isinstance(header.get("results"), dict) else {}
    scorer = results.get("scorer")
    if not isinstance(scorer, dict) and isinstance(results.get("scores"), list) and results["scores"]:
        scorer = results["scores"][0]
    name = scorer.get("name") if isinstance(scorer, dict) else None
    return name if isinstance(name, str) and name else "score"


def _log_metrics(header: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """inspect's own aggregates, scorer → metric → value, as `results` holds them (format 1:
    `results.metrics` of `results.scorer`). A NaN is None; a metric of a group (one value
    of a dict-valued metric) is named `group/name`."""
    results: dict[str, Any] = header["results"] if isinstance(header.get("results"), dict) else {}
    scores = results.get("scores")
    if not isinstance(scores, list):
        scores = [{"name": _legacy_scorer(header), "metrics": results.get("metrics")}]
    found: dict[str, dict[str, float | None]] = {}
    for score in scores:
        metrics = score.get("metrics") if isinstance(score, dict) else None
        if not isinstance(metrics, dict):
            continue
        values = {}
        for key, metric in metrics.items():
            if isinstance(metric, dict):
                label = str(metric.get("name") or key)
                group = metric.get("group")
                values[f"{group}/{label}" if isinstance(group, str) and group else label] = score_value(metric.get("value"))[0]
        if values:
            found[str(score.get("name") or "score")] = values
    return found


def _choose_epoch(path: Path, samples: list[tuple[str, dict[str, Any]]], variant: int | None) -> Any:
    epochs = sorted({sample.get("epoch", 1) for _, sample in samples}, key=lambda e: (not isinstance(e, int), str(e).zfill(12)))
    if variant is None and len(epochs) == 1:
        return epochs[0]
    if variant is None:
        raise InputError(
            problem(
                path, None, "epoch",
                f"{len(epochs)} epochs in the log ({', '.join(map(str, epochs))}): a ragtui run is one answer per question; "
                f"choose one with --variant EPOCH (report, compare, open, convert)",
            )
        )
    if variant not in epochs:
        raise InputError(problem(path, None, "epoch", f"epoch {variant} is not in the log ({', '.join(map(str, epochs))})"))
    return variant


def _meta(path: Path, header: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = header["eval"] if isinstance(header.get("eval"), dict) else {}
    roles: dict[str, Any] = spec["model_roles"] if isinstance(spec.get("model_roles"), dict) else {}
    grader = roles.get("grader")
    if isinstance(grader, dict):
        grader = grader.get("model")
    return {
        "name": string_or_none(spec.get("task_display_name") or spec.get("task")) or path.stem,
        "created_at": string_or_none(spec.get("created")),
        "generator_model": string_or_none(spec.get("model")),
        "judge_model": string_or_none(grader),
    }
