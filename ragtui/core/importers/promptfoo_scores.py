"""A promptfoo result's scores as ragtui reads them: one per metric, with promptfoo's own values.

promptfoo grades a result with assertions (`gradingResult.componentResults[]`: pass, score,
reason, `assertion.type` / `assertion.metric`; an `assert-set` nests its own), and sums
them up per metric in the result's `namedScores`. The result's `score` and `success` are
its total and its verdict.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragtui.core.importers.common import add_score, score_value, unique_name

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def add_scores(result: dict[str, Any], record: dict[str, Any]) -> None:
    """One score per metric, as promptfoo shows it, then the total (`overall`).

    Assertions are named by their metric (its `{{var}}` placeholders filled in, as promptfoo
    names it), else their type; those of a nested `assert-set` are read one by one.
    Assertions sharing a name are one score: promptfoo's own per-test `namedScores` value
    when it has one (the mean of that test's assertions of the metric), else their mean;
    it passes when every one of them passes.
    """
    grading = _dict(result.get("gradingResult"))
    named = {**_dict(grading.get("namedScores")), **_dict(result.get("namedScores"))}
    variables = {**_dict(_dict(result.get("testCase")).get("vars")), **_dict(result.get("vars"))}
    groups: dict[str, list[dict[str, Any]]] = {}
    for component in _components(grading.get("componentResults")):
        assertion = _dict(component.get("assertion"))
        metric = _rendered(assertion.get("metric"), variables)
        groups.setdefault(str(metric or assertion.get("type") or "assertion"), []).append(component)
    for name, components in groups.items():
        assertions = [_dict(component.get("assertion")) for component in components]
        passes = [component.get("pass") for component in components]
        thresholds = {json.dumps(assertion.get("threshold")) for assertion in assertions}
        reasons = [str(component["reason"]) for component in components if component.get("reason")]
        types = list(dict.fromkeys(str(assertion.get("type")) for assertion in assertions if assertion.get("type")))
        details = {
            "pass": all(passes) if all(isinstance(value, bool) for value in passes) else None,
            "reason": "\n".join(reasons) or None,
            "type": ", ".join(types) or None,
            "threshold": assertions[0].get("threshold") if len(thresholds) == 1 else None,
            "assertions": len(components) if len(components) > 1 else None,
        }
        if name in named:
            value: Any = named[name]
        else:
            raw = [component.get("score") for component in components]
            numbers = [score_value(item)[0] for item in raw]
            # One score that is not a number makes the group's: kept as written, for its note.
            unreadable = [item for item, number in zip(raw, numbers, strict=True) if number is None]
            value = unreadable[0] if unreadable else sum(n for n in numbers if n is not None) / len(numbers)
        add_score(record, name, value, details)
    for name, value in named.items():
        if name not in record.get("scores", {}):
            add_score(record, name, value)
    if "score" in result or "success" in result:
        details = {"pass": result.get("success"), "reason": grading.get("reason")}
        add_score(record, unique_name(record.get("scores", {}), "overall"), result.get("score"), details)


def _rendered(metric: Any, variables: dict[str, Any]) -> Any:
    """A metric name with its `{{var}}` placeholders filled from the test's vars, as promptfoo
    names the metric in `namedScores`; a placeholder without its var stays as written."""
    if not isinstance(metric, str) or "{{" not in metric:
        return metric
    return _PLACEHOLDER.sub(lambda match: str(variables.get(match.group(1), match.group(0))), metric)


def _components(results: Any) -> list[dict[str, Any]]:
    """The assertions' results, those of a nested `assert-set` in its place (its own total
    is kept only when the set names a metric of its own)."""
    found = []
    for component in results if isinstance(results, list) else []:
        if not isinstance(component, dict):
            continue
        children = component.get("componentResults")
        if isinstance(children, list) and children:
            if _dict(component.get("assertion")).get("metric"):
                found.append(component)
            found += _components(children)
        else:
            found.append(component)
    return found
