"""`ragtui gold check` (what the gold set is made of, and what is wrong with it) and
`ragtui gold apply` (write the edits made in triage into the gold set)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from ragtui.cli.messages import say
from ragtui.core.vocabulary import percent_text, points_text


class _CorpusThenRuns(argparse.Action):
    """`--corpus DIR RUN…`: the first path is the corpus, the ones after it are runs, as the
    shell gives them (`--corpus corpus *.jsonl`); argparse alone would refuse them."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        namespace.corpus = values[0]
        namespace.runs = [*(getattr(namespace, "runs", None) or []), *values[1:]]


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    actions = parser.add_subparsers(dest="gold_action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check", help="composition per category, power, tags and every finding (exit 1 on errors)",
        description="Check a gold set against the course's rules, its corpus and the runs made on it.",
    )
    check.add_argument("gold", metavar="GOLD", help="the gold set")
    check.add_argument("runs", metavar="RUN", nargs="*", help="runs made on it: a gold passage none retrieves is reported")
    check.add_argument(
        "--corpus", metavar="DIR|FILE", nargs="+", action=_CorpusThenRuns,
        help="the corpus: a folder of YAML documents, or JSONL / Parquet passages (runs may follow it)",
    )
    check.add_argument("--config", metavar="FILE", help="ragtui.yaml (unanswerable categories, confidence; default: ./ragtui.yaml)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    apply = actions.add_parser(
        "apply", help="write the gold set with its edits (GOLD.edits.jsonl), atomically",
        description="Write the gold set with the edits made in triage, in the file's own keys and order.",
    )
    apply.add_argument("gold", metavar="GOLD", help="the gold set")
    apply.add_argument("--edits", metavar="FILE", help="the edits log (default: GOLD.edits.jsonl beside the gold set)")
    where = apply.add_mutually_exclusive_group(required=True)
    where.add_argument("-o", "--output", metavar="FILE", help="write the edited gold set here")
    where.add_argument("--in-place", action="store_true", help="replace the gold set, keeping a copy as GOLD.bak")


def run(args: argparse.Namespace) -> int:
    return _check(args) if args.gold_action == "check" else _apply(args)


def _check(args: argparse.Namespace) -> int:
    from ragtui.core.gold.check import check_gold_set
    from ragtui.core.loading.config import load_config
    from ragtui.core.loading.corpus import load_corpus
    from ragtui.core.loading.gold import load_gold
    from ragtui.core.loading.runs import load_run

    gold = load_gold(args.gold)
    config = load_config(args.config)
    corpus = load_corpus(args.corpus) if args.corpus else None
    questions = gold.question_index()
    frames = [load_run(path, gold_questions=questions, detail=False).frame for path in args.runs]
    for found in corpus.problems if corpus is not None else []:
        say(f"ragtui: {found}")
    result = check_gold_set(gold, config, corpus=corpus, run_frames=frames)
    if args.format == "json":
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_check(result.to_json(), gold_name=str(gold.path), runs=result.runs, corpus=result.corpus_passages))
    return 1 if result.errors else 0


def _drop(value: float | None) -> str:
    return "none" if value is None else points_text(value, digits=0)


def render_check(report: dict[str, Any], *, gold_name: str, runs: int, corpus: int | None) -> str:
    """The text of `ragtui gold check`: the table, the tags, then every finding."""
    from ragtui.cli.render import _safe, _table, _wrapped

    share = report["unanswerable_share"]
    lines = [f"Gold set {_safe(gold_name)}: {report['questions']} questions (course: 50–200), {percent_text(share, digits=0)} unanswerable (course: 20–30 %)"]
    power = report["power"]
    lines += _wrapped(
        "", f"Smallest detectable drop of a 0/1 metric (recall, abstention) at {percent_text(power['level'], digits=0)} power and "
        f"{percent_text(power['confidence'], digits=0)} confidence, if {percent_text(power['assumed_discordance'], digits=0)} of questions change outcome between two runs:",
    )
    rows = [
        [_safe(name), str(c["n"]), percent_text(c['share'], digits=0), str(c["answerable"]), str(c["unanswerable"]), _drop(c["detectable_drop"])]
        for name, c in report["categories"].items()
    ]
    total_unanswerable = sum(c["unanswerable"] for c in report["categories"].values())
    rows.append(["all", str(report["questions"]), "100%", str(report["questions"] - total_unanswerable), str(total_unanswerable), _drop(report["detectable_drop"])])
    lines += ["", *_table(rows, ["category", "n", "share", "answerable", "unanswerable", "detectable drop"])]
    tags = report["tags"]
    lines += ["", "Tags: " + (", ".join(f"{_safe(tag)} {data['n']}" for tag, data in tags.items()) if tags else "none (add `tags:` to a question)")]
    checked = ["the course's rules"]
    checked.append(f"the corpus ({corpus} passages)" if corpus is not None else "no corpus (--corpus)")
    checked.append(f"{runs} run(s) for stale ids" if runs else "no runs for stale ids")
    findings = report["findings"]
    errors = sum(1 for f in findings if f["severity"] == "error")
    lines += ["", *_wrapped("", f"Checked against {', '.join(checked)}: {errors} error(s), {len(findings) - errors} warning(s).")]
    for finding in findings:
        where = finding["file"] if finding["line"] is None else f"{finding['file']}:{finding['line']}"
        prefix = "" if finding["severity"] == "error" else "warning: "
        lines += _wrapped("  ", _safe(f"{where}: {finding['kind']}: {prefix}{finding['message']}"))
    return "\n".join(lines) + "\n"


def _apply(args: argparse.Namespace) -> int:
    from ragtui.cli.output import check_output_path, write_output
    from ragtui.core.atomic import atomic_write_text
    from ragtui.core.errors import InputError, problem
    from ragtui.core.gold.edits import GoldEdits, apply_edits
    from ragtui.core.gold.rewrite import edited_gold_text, lost_in_rewrite
    from ragtui.core.loading.gold import load_gold
    from ragtui.core.loading.inputs import default_gold_edits_path

    gold = load_gold(args.gold)
    edits_path = Path(args.edits) if args.edits else default_gold_edits_path(gold.path)
    if not edits_path.is_file():
        raise InputError(problem(edits_path, None, None, "no edits log here (give --edits FILE)"))
    log = GoldEdits.load(edits_path)
    for found in log.problems:
        say(f"ragtui: {found}")
    edited = apply_edits(gold, log.edits, log_path=edits_path)
    for found in edited.problems:
        say(f"ragtui: {found}")
    target = gold.path if args.in_place else Path(args.output)
    if not args.in_place:
        check_output_path(args.output)
    text = edited_gold_text(gold.path, edited.pending)
    for lost in lost_in_rewrite(gold.path):
        say(f"ragtui: {gold.path}: not kept in the rewritten file: {lost} (YAML is written back without them)")
    if args.in_place:
        backup = gold.path.with_name(gold.path.name + ".bak")
        try:
            shutil.copy2(gold.path, backup)
            atomic_write_text(target, text)
        except OSError as exc:
            raise InputError(problem(target, None, None, f"cannot write: {exc.strerror or exc}")) from None
        say(f"ragtui: kept a copy of {gold.path} as {backup}")
    else:
        write_output(args.output, text)
    say(f"ragtui: wrote {target}: {len(edited.pending)} edit(s) of {edits_path} applied, {len(log.edits) - len(edited.pending)} already in the gold set")
    return 0
