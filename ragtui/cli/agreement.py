"""`ragtui agreement J1 J2`: the same answers judged twice — how far the two judges agree.

Both files are read as runs (any format ragtui reads), measured against the gold set when
one is given (its categories), and compared by `ragtui.core.comparing.judge_agreement`.
Text for a person, `--format json` for a tool (docs/cli.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ragtui.cli.common import add_cache_option
from ragtui.core.sanitize import neutralize


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("first", metavar="J1", help="the answers judged by the first judge")
    parser.add_argument("second", metavar="J2", help="the same answers judged by the second judge")
    parser.add_argument("--gold", metavar="GOLD.yaml", help="the gold set (its categories); else the runs' own")
    parser.add_argument("--config", metavar="ragtui.yaml", help="settings (confidence, category names)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically; - for stdout) instead of stdout")
    add_cache_option(parser)


def _num(value: float | None) -> float | None:
    from ragtui.core.vocabulary import json_number

    return json_number(value)


def agreement_document(result: Any, names: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The JSON document: {"judges", "faithfulness", "utility", "difference"}."""

    def metric(m: Any, unit: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            unit: m.units, "agreement": _num(m.agreement), "kappa": _num(m.kappa), "alpha": _num(m.alpha),
            "by_category": {c: {unit: a.units, "agreement": _num(a.agreement), "kappa": _num(a.kappa)} for c, a in m.by_category.items()},
        }
        return out

    faithfulness = metric(result.faithfulness, "sentences")
    faithfulness["misaligned_answers"] = result.faithfulness.misaligned_answers
    utility = metric(result.utility, "answers")
    utility["weighted_kappa"] = _num(result.utility.weighted_kappa)
    utility["within_one"] = _num(result.utility.within_one)
    difference: dict[str, Any] = {
        name: {"J1": _num(d.first), "J2": _num(d.second), "delta": _num(d.delta),
               "ci": [_num(d.ci[0]), _num(d.ci[1])] if d.ci else None, "answers": d.answers}
        for name, d in result.difference.items()
    }
    difference["confidence"] = result.confidence
    return {"judges": names, "faithfulness": faithfulness, "utility": utility, "difference": difference}


def _k(value: float | None) -> str:
    from ragtui.core.vocabulary import MINUS

    return "n/a" if value is None else f"{value:.2f}".replace("-", MINUS)


def render_agreement(document: dict[str, Any], category_name: Any) -> str:
    """The text view of the document (every name neutralised)."""
    from ragtui.core.calibration_words import cal_interval
    from ragtui.core.measuring.metric_specs import metric_by_name
    from ragtui.core.vocabulary import delta_text, percent_text, value_text

    judges = document["judges"]
    lines = ["ragtui agreement"]
    for key in ("J1", "J2"):
        judge = judges[key]
        lines.append(f"{key}: {neutralize(judge['name'], keep_newlines=False)} · judge {neutralize(judge['judge_model'] or 'unknown', keep_newlines=False)}")
    f, u = document["faithfulness"], document["utility"]
    lines.append("")
    lines.append(f"Faithfulness, {f['sentences']} sentences: agreement {percent_text(f['agreement'])} · κ {_k(f['kappa'])} · α {_k(f['alpha'])}")
    if f["misaligned_answers"]:
        lines.append(f"  {f['misaligned_answers']} answers split into different sentences by the two judges: left out")
    for category, cell in f["by_category"].items():
        name = neutralize(category_name(category), keep_newlines=False)
        lines.append(f"  {name}: {cell['sentences']} sentences · agreement {percent_text(cell['agreement'])} · κ {_k(cell['kappa'])}")
    lines.append(
        f"Utility, {u['answers']} answers: exact {percent_text(u['agreement'])} · within ±1 {percent_text(u['within_one'])} · "
        f"κ {_k(u['kappa'])} · weighted κ {_k(u['weighted_kappa'])} · α {_k(u['alpha'])}"
    )
    for category, cell in u["by_category"].items():
        name = neutralize(category_name(category), keep_newlines=False)
        lines.append(f"  {name}: {cell['answers']} answers · exact {percent_text(cell['agreement'])} · κ {_k(cell['kappa'])}")
    lines.append("")
    confidence = document["difference"]["confidence"]
    lines.append(f"Difference J2 − J1 (paired, {percent_text(confidence, digits=0)} interval over answers):")
    for metric in ("faithfulness", "utility"):
        d = document["difference"][metric]
        if d["delta"] is None:
            lines.append(f"  {metric}: nothing both judged")
            continue
        spec = metric_by_name(metric)
        lines.append(
            f"  {metric}: {value_text(d['J1'], spec)} → {value_text(d['J2'], spec)}, "
            f"{delta_text(d['delta'], spec)}{cal_interval(metric, d['ci'], signed=True)} on {d['answers']} answers"
        )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ragtui.cli.output import check_output_path, write_output
    from ragtui.cli.report_json import report_json
    from ragtui.core.comparing.judge_agreement import compare_judges
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    check_output_path(args.output)
    inputs = Inputs(
        a=Path(args.first), b=Path(args.second), gold=Path(args.gold) if args.gold else None,
        config=Path(args.config) if args.config else None, detail=False, cache=args.cache,
    )
    comparison = load_comparison(inputs, intervals=False)
    assert comparison.b is not None
    result = compare_judges(comparison.a.questions, comparison.b.questions, confidence=comparison.config.confidence)
    names = {
        key: {"name": evaluation.run.name, "path": str(evaluation.run.path), "judge_model": evaluation.run.judge_model()}
        for key, evaluation in (("J1", comparison.a), ("J2", comparison.b))
    }
    document = agreement_document(result, names)
    text = report_json(document) + "\n" if args.format == "json" else render_agreement(document, comparison.config.category_name)
    write_output(args.output, text)
    return 0
