"""promptfoo results: the file `promptfoo eval -o out.json` writes (results version 3).

Top level: `evalId`, `results: {version, timestamp, prompts, results: [...], stats}`,
`config`. Each result is one test case run through one prompt on one provider:
`testCase.vars` (and `vars`), `metadata`, `prompt`, `provider`, `response.output`,
`gradingResult.componentResults[]` (one per assertion: pass, score, reason,
assertion.type / assertion.metric), `namedScores`, `success`, `score`, `cost`,
`latencyMs`, `error`. `-o out.jsonl` (one result a line) is read too.

A ragtui run is one system, so a file that ran several prompts or providers holds
several runs: the importer asks which one (`variant`, 1-based, in promptfoo's own order:
`promptIdx`, the columns of its table). Results version 2 (promptfoo before 0.60) is refused
by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.importers.common import (
    GOLD_ID_KEYS,
    RETRIEVED_ID_KEYS,
    build_retrieved,
    finish_run,
    id_list,
    identify,
    set_tool_verdict,
    short,
    string_or_none,
)
from ragtui.core.importers.promptfoo_scores import add_scores
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import RawRun, json_lines, read_bytes_utf8

# Variable names teams give the RAG fields in their promptfoo tests, first match wins.
QUESTION_VARS = ("question", "query", "input", "user_input")
CONTEXT_VARS = ("context", "contexts", "retrieved_contexts")
CONTEXT_ID_VARS = ("retrieved_ids", "retrieved_context_ids", "context_ids")
GOLD_VARS = ("gold_passages", "expected_ids", "reference_context_ids")
EXPECTED_VARS = ("expected", "reference", "ground_truth", "expected_answer", "expected_output")
_ERROR_FAILURE = 2  # promptfoo's ResultFailureReason.ERROR: the provider call failed
RESULTS_VERSION = 3  # the results layout read here (`results.version`, promptfoo ≥ 0.60)


def read_promptfoo(path: Path, gold_questions: dict[str, str] | None = None, variant: int | None = None) -> RawRun:
    """Import a promptfoo output file; `variant` picks one prompt × provider (1-based)."""
    document, results = _load(path)
    variants = _variants(results)
    chosen = _choose_variant(path, variants, variant)
    problems: list[Problem] = []
    records, lines = [], []
    positional = 0
    for index, result in enumerate(results, start=1):
        if not isinstance(result, dict):
            problems.append(problem(path, index, None, f"expected a result object, found {short(result)}"))
            continue
        if _variant_key(result) != chosen:
            continue
        record, is_positional = _record(path, index, result, gold_questions, problems)
        if record is not None:
            records.append(record)
            lines.append(index)
            positional += is_positional
    meta = _meta(path, document, results, chosen)
    imported: dict[str, Any] = {"variant": variants.index(chosen) + 1, "variants": len(variants)} if len(variants) > 1 and chosen is not None else {}
    summary = _prompt_named_scores(document, results, chosen)
    if summary:
        imported["named_scores"] = summary
    return finish_run(path, "promptfoo", meta, records, lines, problems, positional=positional, imported=imported)


def _prompt_named_scores(document: dict[str, Any], results: list[Any], chosen: tuple[str, str] | None) -> dict[str, Any]:
    """promptfoo's own summary of the chosen prompt, as `results.prompts[promptIdx].metrics`
    holds it: `namedScores` (summed over its tests, weighted), `namedScoresCount` (assertions)
    and, from newer promptfoo, `namedScoreWeights` (its mean is total / weights)."""
    index = next((r.get("promptIdx") for r in results if isinstance(r, dict) and _variant_key(r) == chosen), None)
    prompts = _dict(document.get("results")).get("prompts")
    if not isinstance(index, int) or not isinstance(prompts, list) or not 0 <= index < len(prompts):
        return {}
    metrics = _dict(_dict(prompts[index]).get("metrics"))
    counts, weights = _dict(metrics.get("namedScoresCount")), _dict(metrics.get("namedScoreWeights"))
    return {
        name: {"total": total, "count": counts.get(name), **({"weights": weights[name]} if name in weights else {})}
        for name, total in _dict(metrics.get("namedScores")).items()
    }


def _load(path: Path) -> tuple[dict[str, Any], list[Any]]:
    """The whole document (empty for JSONL) and its list of results."""
    text = read_bytes_utf8(path).removeprefix("\ufeff")
    try:
        document = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InputError(problem(path, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})")) from None
        return {}, _jsonl_results(path, text)
    if not isinstance(document, dict):
        raise InputError(problem(path, None, None, "expected a promptfoo output object with 'results'"))
    container = document.get("results")
    if isinstance(container, dict):
        _check_version(path, container.get("version"))
        results = container.get("results")
        field = "results.results"
    else:
        results, field = container, "results"
    if not isinstance(results, list):
        raise InputError(problem(path, None, field, "missing: a promptfoo output file has its results in results.results (write it with `promptfoo eval -o out.json`)"))
    return document, results


def _check_version(path: Path, version: Any) -> None:
    """Results version 3 (promptfoo ≥ 0.60) is read; an older one is refused by name."""
    if isinstance(version, int) and not isinstance(version, bool) and version < RESULTS_VERSION:
        raise InputError(
            problem(
                path, None, "results.version",
                f"promptfoo results version {version} is not supported (written by promptfoo before 0.60): "
                f"re-export it with promptfoo ≥ 0.60 (`promptfoo export EVAL_ID -o out.json`) to get version {RESULTS_VERSION}",
            )
        )


def _jsonl_results(path: Path, text: str) -> list[Any]:
    parsed, problems = json_lines(path, text)
    if problems:
        raise InputError(problems)
    return [obj for _, obj in parsed]


def _variant_key(result: dict[str, Any]) -> tuple[str, str]:
    provider = result.get("provider")
    provider_name = (provider.get("label") or provider.get("id")) if isinstance(provider, dict) else provider
    prompt = result.get("prompt")
    prompt_name = (prompt.get("label") or prompt.get("raw")) if isinstance(prompt, dict) else None
    return str(provider_name or "?"), str(prompt_name if prompt_name is not None else result.get("promptIdx", "?"))


def _variants(results: list[Any]) -> list[tuple[str, str]]:
    """The systems of the file in promptfoo's own order: by `promptIdx` (its columns), else as they come."""
    first: dict[tuple[str, str], int] = {}
    for position, result in enumerate(results):
        if isinstance(result, dict):
            index = result.get("promptIdx")
            order = index if isinstance(index, int) and not isinstance(index, bool) else len(results) + position
            first[_variant_key(result)] = min(first.get(_variant_key(result), order), order)
    return sorted(first, key=first.__getitem__)


def _choose_variant(path: Path, variants: list[tuple[str, str]], variant: int | None) -> tuple[str, str] | None:
    if not variants:
        return None
    if variant is None and len(variants) == 1:
        return variants[0]
    listing = "; ".join(f"{n} = {provider} with prompt {short(prompt, 40)}" for n, (provider, prompt) in enumerate(variants, 1))
    if variant is None:
        raise InputError(
            problem(
                path, None, None,
                f"{len(variants)} systems in one file (prompt × provider): {listing}. A ragtui run is one system: "
                f"choose one with --variant N (report, compare, open, convert)",
            )
        )
    if not 1 <= variant <= len(variants):
        raise InputError(problem(path, None, None, f"variant {variant} does not exist: {listing}"))
    return variants[variant - 1]


def _record(
    path: Path, index: int, result: dict[str, Any], gold_questions: dict[str, str] | None, problems: list[Problem]
) -> tuple[dict[str, Any] | None, bool]:
    test_case: dict[str, Any] = result["testCase"] if isinstance(result.get("testCase"), dict) else {}
    variables = {**_dict(test_case.get("vars")), **_dict(result.get("vars"))}
    metadata = {**_dict(test_case.get("metadata")), **_dict(result.get("metadata"))}
    before = len(problems)
    lists = {name: _list_var(variables, name) for name in (*CONTEXT_VARS, *CONTEXT_ID_VARS, *GOLD_VARS)}
    lists = {name: value for name, value in lists.items() if value is not None}
    for name, value in lists.items():
        if isinstance(value, str):
            problems.append(problem(path, index, f"vars.{name}", value))
    if len(problems) > before:
        return None, False
    notes: list[str] = []
    question = string_or_none(_first(variables, QUESTION_VARS))
    test_idx = result.get("testIdx")
    fallback = f"promptfoo_{(test_idx if isinstance(test_idx, int) else index - 1) + 1:04d}"
    native_id = variables.get("id", metadata.get("id"))
    record: dict[str, Any] = {}
    identify(record, native_id, question, gold_questions, fallback, notes)
    category = string_or_none(variables.get("category", metadata.get("category")))
    if category is not None:
        record["category"] = category
    gold = _first(lists, GOLD_VARS)  # [] is a value: a question with no gold passage
    if gold is None:
        gold = id_list(metadata, GOLD_ID_KEYS)
    if gold is not None:
        record["gold_passages"] = gold
    expected = string_or_none(_first(variables, EXPECTED_VARS))
    if expected is not None:
        record["expected_answer"] = expected
    contexts = _first(lists, CONTEXT_VARS)
    ids = _first(lists, CONTEXT_ID_VARS)
    if ids is None:
        ids = id_list(metadata, RETRIEVED_ID_KEYS)
    retrieved, positional = build_retrieved(ids, contexts, notes)
    if retrieved is not None:
        record["retrieved"] = retrieved
    _answer(result, record)
    add_scores(result, record)
    if record.get("generation_error"):
        # No answer to grade: whatever score promptfoo wrote (0) is an error, not a value.
        for details in (record.setdefault("score_details", {}).setdefault(name, {}) for name in record.get("scores", {})):
            details["error"] = record["generation_error"]
    set_tool_verdict(record, result.get("success"), record.get("generation_error"))
    _usage(result, record)
    mapped = {"id", "category", *QUESTION_VARS, *CONTEXT_VARS, *CONTEXT_ID_VARS, *GOLD_VARS, *EXPECTED_VARS}
    kept = {key: value for key, value in variables.items() if key not in mapped}
    if kept:
        record["tool_fields"] = {"vars": kept}
    record["source"] = {**{key: result[key] for key in ("testIdx", "promptIdx", "id") if key in result}, **record.pop("source", {})}
    if notes:
        record["import_notes"] = notes
    return record, positional


def _answer(result: dict[str, Any], record: dict[str, Any]) -> None:
    response = _dict(result.get("response"))
    output = response.get("output")
    failed = result.get("failureReason") == _ERROR_FAILURE or response.get("error")
    if output is None and not failed and "response" not in result:
        return
    if output is None or isinstance(output, str):
        record["answer"] = output
    else:
        record["answer"] = json.dumps(output, ensure_ascii=False)
    if failed:
        record["generation_error"] = string_or_none(response.get("error") or result.get("error")) or "the provider call failed"


def _usage(result: dict[str, Any], record: dict[str, Any]) -> None:
    response = _dict(result.get("response"))
    latency = result.get("latencyMs", response.get("latencyMs"))
    cost = result.get("cost", response.get("cost"))
    tokens = _dict(response.get("tokenUsage")) or _dict(result.get("tokenUsage"))
    for field, value in (
        ("latency_ms", latency), ("cost_usd", cost), ("tokens_in", tokens.get("prompt")), ("tokens_out", tokens.get("completion")),
    ):
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            record[field] = value


def _meta(path: Path, document: dict[str, Any], results: list[Any], chosen: tuple[str, str] | None) -> dict[str, Any]:
    config = _dict(document.get("config"))
    container = _dict(document.get("results"))
    description = config.get("description")
    provider_ids = {
        str(result["provider"].get("id"))
        for result in results
        if isinstance(result, dict) and isinstance(result.get("provider"), dict) and _variant_key(result) == chosen
    }
    grader = _dict(_dict(config.get("defaultTest")).get("options")).get("provider")
    if isinstance(grader, dict):
        grader = grader.get("id")
    return {
        "name": description if isinstance(description, str) and description else document.get("evalId") or path.stem,
        "created_at": string_or_none(container.get("timestamp") or document.get("createdAt")),
        "generator_model": provider_ids.pop() if len(provider_ids) == 1 else None,
        "judge_model": grader if isinstance(grader, str) else None,
        "system": f"promptfoo eval {document['evalId']}" if isinstance(document.get("evalId"), str) else None,
    }


def _list_var(variables: dict[str, Any], name: str) -> list[str] | str | None:
    """A list-valued var: a list, a JSON array in a string (CSV test files), or one string.

    Returns the reason as a str when the value cannot be a list of strings.
    """
    value = variables.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        if not value.lstrip().startswith("["):
            return [value]
        try:
            value = bounded_json.loads(value)
        except json.JSONDecodeError as exc:
            return f"not a JSON array: {exc.msg}"
    if not isinstance(value, list):
        return f"expected a list of strings, found {short(value)}"
    if not all(isinstance(item, str | int) and not isinstance(item, bool) for item in value):
        return f"expected a list of strings, found {short(value)}"
    return [str(item) for item in value]


def _first(mapping: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((mapping[name] for name in names if mapping.get(name) is not None), None)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
