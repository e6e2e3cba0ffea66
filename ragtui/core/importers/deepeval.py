"""DeepEval test runs: `test_run_*.json`, or `.deepeval/.latest_test_run.json`.

`testCases` (older files: `test_cases`), each with `name`, `input`, `actualOutput`,
`expectedOutput`, `retrievalContext`, `context`, `metricsData` ([{name, score, reason,
threshold, success, evaluationModel, error}]), `tags`, `additionalMetadata` (written as
`metadata` by recent versions), `completionTime`, `tokenCost`, token counts.

DeepEval passages have no ids: the retrieved list gets positional ids (`ctx_1…n`), so
retrieval against gold passages is not available — unless the metadata names them
(`retrieved_ids`, and `expected_ids` or `gold_passages` for the gold). Its ideal
`context` is kept as text. The category comes from the metadata (`category`), a tag
`category:NAME`, a tag equal to a known category (the gold set's, or ragtui's four: the
loader passes them), else the first tag; with no tags it is absent (the loader's default, `uncategorized`). Metric
scores (Faithfulness, Answer Relevancy, …) go to `scores` with their reason, threshold,
pass and judge model; the test case's own `success` is the tool's verdict on the question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, Problem, problem, warning
from ragtui.core.importers.common import (
    GOLD_ID_KEYS,
    RETRIEVED_ID_KEYS,
    add_score,
    build_retrieved,
    finish_run,
    id_list,
    identify,
    score_value,
    set_tool_verdict,
    short,
    string_or_none,
    unique_name,
)
from ragtui.core.loading import bounded_json
from ragtui.core.loading.records import RawRun, read_bytes_utf8

_CATEGORY_TAG_PREFIXES = ("category:", "category=")
# DeepEval's `.deepeval/.latest_test_run.json` holds the test run under this key.
LATEST_RUN_KEY = "testRunData"
# Where a test case's trace keeps its spans (DeepEval's TraceApi), and the prefix of the
# tool metrics read from them: `span:NAME:METRIC`.
SPAN_KEYS = ("baseSpans", "agentSpans", "llmSpans", "retrieverSpans", "toolSpans")
SPAN_PREFIX = "span:"


def read_deepeval(
    path: Path, gold_questions: dict[str, str] | None = None, gold_categories: frozenset[str] | None = None
) -> RawRun:
    """Import a DeepEval test run file as a ragtui run.

    Args:
        path: the test run file.
        gold_questions: normalised question text → gold id (see `import_run`).
        gold_categories: the gold set's categories, so a tag naming one is the category.
    """
    try:
        document = bounded_json.loads(read_bytes_utf8(path))
    except json.JSONDecodeError as exc:
        raise InputError(problem(path, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})")) from None
    document = _test_run(document)
    cases = document.get("testCases", document.get("test_cases")) if isinstance(document, dict) else None
    if not isinstance(cases, list):
        raise InputError(
            problem(
                path, None, "testCases",
                "missing: a DeepEval test run has its test cases in 'testCases' (or, in .deepeval/.latest_test_run.json, "
                "in 'testRunData.testCases')",
            )
        )
    problems: list[Problem] = []
    records, lines = [], []
    positional = 0
    for index, case in enumerate(cases, start=1):
        record, is_positional = _record(path, index, case, gold_questions, gold_categories, problems)
        if record is not None:
            records.append(record)
            lines.append(index)
            positional += is_positional
    imported: dict[str, Any] = {}
    conversational = document.get("conversationalTestCases")
    if isinstance(conversational, list) and conversational:
        imported["skipped"] = f"{len(conversational)} conversational test cases (not question/answer records)"
    warnings = []
    pooled = _pooled_span_metrics(cases, document.get("metricsScores"))
    if pooled:
        imported["metrics_scores"] = pooled
        warnings.append(warning(path, None, "trace", _span_note(pooled)))
    if not records and not problems and "skipped" in imported:
        raise InputError(
            problem(path, None, "conversationalTestCases", f"only {imported['skipped']}: ragtui reads single-turn test cases (LLMTestCase)")
        )
    meta = _meta(path, document, records)
    return finish_run(path, "deepeval", meta, records, lines, problems, positional=positional, imported=imported, warnings=warnings)


def _test_run(document: Any) -> Any:
    """The test run itself: `.latest_test_run.json` wraps it as `{"testRunData": {...}, "testRunLink": …}`."""
    if isinstance(document, dict) and isinstance(document.get(LATEST_RUN_KEY), dict):
        return document[LATEST_RUN_KEY]
    return document


def _record(
    path: Path,
    index: int,
    case: Any,
    gold_questions: dict[str, str] | None,
    gold_categories: frozenset[str] | None,
    problems: list[Problem],
) -> tuple[dict[str, Any] | None, bool]:
    if not isinstance(case, dict):
        problems.append(problem(path, index, None, f"expected a test case object, found {short(case)}"))
        return None, False
    question = case.get("input")
    if not isinstance(question, str):
        problems.append(problem(path, index, "input", f"expected the question as a string, found {short(question)}"))
        return None, False
    retrieval = _string_list(path, index, case, ("retrievalContext", "retrieval_context"), problems)
    ideal = _string_list(path, index, case, ("context",), problems)
    if retrieval is False or ideal is False:
        return None, False
    metadata: dict[str, Any] = next((case[key] for key in ("additionalMetadata", "metadata") if isinstance(case.get(key), dict)), {})
    tags: list[Any] = case["tags"] if isinstance(case.get("tags"), list) else []
    notes: list[str] = []
    name = string_or_none(case.get("name"))
    record: dict[str, Any] = {}
    identify(record, metadata.get("id"), question, gold_questions, name or f"deepeval_{index:04d}", notes)
    category = string_or_none(metadata.get("category")) or _category_tag(tags, gold_categories)
    if category is not None:
        record["category"] = category
    expected = string_or_none(case.get("expectedOutput", case.get("expected_output")))
    if expected is not None:
        record["expected_answer"] = expected
    gold = id_list(metadata, GOLD_ID_KEYS)
    if gold is not None:
        record["gold_passages"] = gold
    retrieved, positional = build_retrieved(id_list(metadata, RETRIEVED_ID_KEYS), retrieval if isinstance(retrieval, list) else None, notes)
    if retrieved is not None:
        record["retrieved"] = retrieved
    if "actualOutput" in case or "actual_output" in case:
        record["answer"] = string_or_none(case.get("actualOutput", case.get("actual_output")))
    errors = []
    metrics = [(None, metric) for metric in case.get("metricsData") or case.get("metrics_data") or []]
    for span_name, metric in metrics + _span_metrics(case):
        if isinstance(metric, dict):
            metric_name = str(metric.get("name") or "metric")
            if span_name is not None:
                metric_name = f"{SPAN_PREFIX}{span_name}:{metric_name}"
            _add_metric(record, metric_name, metric)
            if metric.get("error"):
                errors.append(f"{metric_name}: {metric['error']}")
    # A metric that failed leaves the question unjudged (often an empty answer the judge
    # could not read): a tool error, never a pass, whatever `success` says.
    set_tool_verdict(record, case.get("success"), "; ".join(errors) or None)
    _usage(case, record)
    mapped = {"id", "category", *GOLD_ID_KEYS, *RETRIEVED_ID_KEYS}
    kept: dict[str, Any] = {key: value for key, value in metadata.items() if key not in mapped}
    if ideal is not None:
        kept["context"] = ideal
    if tags:
        kept["tags"] = tags
    if kept:
        record["tool_fields"] = kept
    record["source"] = {"name": name, "index": index, **record.pop("source", {})}
    if notes:
        record["import_notes"] = notes
    return record, positional


def _span_metrics(case: dict[str, Any]) -> list[tuple[str, Any]]:
    """(span name, metric) for each metric DeepEval computed on a span of the test case's trace."""
    trace = case.get("trace")
    if not isinstance(trace, dict):
        return []
    found = []
    for key in SPAN_KEYS:
        for span in trace.get(key) or []:
            if isinstance(span, dict) and isinstance(span.get("metricsData"), list):
                span_name = string_or_none(span.get("name")) or key.removesuffix("Spans")
                found += [(span_name, metric) for metric in span["metricsData"]]
    return found


def _pooled_span_metrics(cases: list[Any], written: Any) -> dict[str, dict[str, Any]]:
    """DeepEval's own `metricsScores` for the metrics some span carries: each metric's scores of
    the test cases and of their spans pooled into one mean (its `construct_metrics_scores`).

    The file's own `metricsScores` entry is taken when it has one; else it is worked out as
    DeepEval works it out."""
    pooled: dict[str, dict[str, Any]] = {}
    span_metric_names = set()
    for case in cases:
        if not isinstance(case, dict):
            continue
        spans = _span_metrics(case)
        span_metric_names |= {str(metric.get("name")) for _, metric in spans if isinstance(metric, dict)}
        for _, metric in [(None, m) for m in case.get("metricsData") or []] + spans:
            if not isinstance(metric, dict):
                continue
            entry = pooled.setdefault(str(metric.get("name")), {"scores": [], "passes": 0, "fails": 0, "errors": 0})
            score, success = score_value(metric.get("score"))[0], metric.get("success")
            if score is None or not isinstance(success, bool):
                entry["errors"] += 1
                continue
            entry["scores"].append(score)
            entry["passes" if success else "fails"] += 1
    for own in written if isinstance(written, list) else []:
        scores = own.get("scores") if isinstance(own, dict) else None
        if isinstance(scores, list) and own.get("metric") in pooled and all(score_value(item)[0] is not None for item in scores):
            counts = {key: own[key] for key in ("passes", "fails", "errors") if isinstance(own.get(key), int)}
            pooled[own["metric"]] = {"scores": [score_value(item)[0] for item in scores], "passes": 0, "fails": 0, "errors": 0, **counts}
    return {
        name: {"mean": sum(entry["scores"]) / len(entry["scores"]) if entry["scores"] else None, **entry, "scores": len(entry["scores"])}
        for name, entry in pooled.items()
        if name in span_metric_names
    }


def _span_note(pooled: dict[str, dict[str, Any]]) -> str:
    figures = "; ".join(
        f"{name} {entry['mean']:.4f} over {entry['scores']} scores ({entry['passes']} pass)" if entry["mean"] is not None else f"{name}: no score"
        for name, entry in pooled.items()
    )
    return (
        f"span metrics are read as separate tool metrics ({SPAN_PREFIX}SPAN:METRIC), the test case's own metrics as METRIC; "
        f"DeepEval's own summary pools both per metric: {figures}"
    )


def _add_metric(record: dict[str, Any], name: str, metric: dict[str, Any]) -> None:
    name = unique_name(record.get("scores", {}), name)
    details = {
        "reason": metric.get("reason"),
        "threshold": metric.get("threshold"),
        "pass": metric.get("success"),
        "model": metric.get("evaluationModel"),
        "error": metric.get("error"),
    }
    add_score(record, name, metric.get("score"), details)
    if metric.get("error") and record["scores"][name] is None:
        record["scores_notes"][name] = f"the metric failed: {metric['error']}"


def _usage(case: dict[str, Any], record: dict[str, Any]) -> None:
    seconds = case.get("completionTime")
    values = {
        "latency_ms": seconds * 1000 if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None,
        "cost_usd": case.get("tokenCost"),
        "tokens_in": case.get("inputTokenCount"),
        "tokens_out": case.get("outputTokenCount"),
    }
    for field, value in values.items():
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            record[field] = value


def _string_list(
    path: Path, index: int, case: dict[str, Any], keys: tuple[str, ...], problems: list[Problem]
) -> list[str] | None | bool:
    """A list of strings under the first present key; None when absent, False when malformed."""
    key = next((key for key in keys if case.get(key) is not None), None)
    if key is None:
        return None
    value = case[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(problem(path, index, key, f"expected a list of strings, found {short(value)}"))
        return False
    return value


def _category_tag(tags: list[Any], gold_categories: frozenset[str] | None) -> str | None:
    """`category:NAME`, else a tag naming a known category, else the first tag."""
    texts = [tag.strip() for tag in tags if isinstance(tag, str) and tag.strip()]
    for tag in texts:
        if tag.lower().startswith(_CATEGORY_TAG_PREFIXES):
            return tag[len("category:"):].strip() or None
    return next((tag for tag in texts if tag in (gold_categories or ())), texts[0] if texts else None)


def _meta(path: Path, document: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    judges = {
        details["model"]
        for record in records
        for details in record.get("score_details", {}).values()
        if isinstance(details.get("model"), str)
    }
    settings = document.get("hyperparameters") or document.get("configurations") or {}
    model = settings.get("model") if isinstance(settings, dict) else None
    name = string_or_none(document.get("identifier")) or string_or_none(document.get("testFile"))
    return {
        "name": name or path.stem,
        "generator_model": string_or_none(model),
        "judge_model": judges.pop() if len(judges) == 1 else None,
    }
