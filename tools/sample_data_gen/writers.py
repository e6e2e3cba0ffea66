"""Writing the sample's files, byte for byte the same on every run.

The YAML files are written by hand rather than by a YAML emitter, so their layout is
the one of docs/formats.md's examples and does not change with the PyYAML version: every
string goes through `json.dumps(..., ensure_ascii=False)`, which is also a valid YAML
double-quoted scalar. JSON lines use compact separators and keep the key order given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .corpus import Question


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


GOLD_HEADER = """\
# Gold set of ragtui's bundled sample: 120 questions on the fictional HR and regulatory
# intranet of Ardelis SAS (documents in corpus/). Course format, French keys.
# Written by tools/make_sample_data.py from tools/sample_data_gen/questions_*.yaml: edit those.
"""


def gold_yaml(questions: list[Question]) -> str:
    """The gold set, one record per question, in id order."""
    lines = [GOLD_HEADER]
    for q in questions:
        gold = ", ".join(_quote(p) for p in q.gold)
        lines += [
            f"- id: {_quote(q.id)}",
            f"  question: {_quote(q.question)}",
            f"  passages_verite: [{gold}]",
            f"  reponse_attendue: {_quote(q.expected)}",
            f"  categorie: {_quote(q.category)}",
        ]
        if q.tags:
            lines.append(f"  tags: [{', '.join(_quote(tag) for tag in q.tags)}]")
    return "\n".join(lines) + "\n"


def run_jsonl(meta: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """A JSONL run: the `{"run": …}` line, then one question per line."""
    rows = [{"run": meta}, *records]
    return "".join(json.dumps(row, ensure_ascii=False, separators=(", ", ": ")) + "\n" for row in rows)


CONFIG_YAML = """\
# The targets of the team that owns the sample (docs/formats.md): the dashboard's
# reference column. These are also ragtui's shipped defaults.
k: 5
targets:
  recall@5: {min: 0.80}
  faithfulness: {min: 0.85}
  abstention: {min: 0.90}
  utility: {min: 4.0}
regression:
  max_drop: 0.03              # a drop of 3 points is a regression to look at
  confidence: 0.95
fallback_phrases: ["Je ne trouve pas cette information"]
"""


def write(path: Path, text: str) -> None:
    """Write UTF-8 with LF line ends whatever the platform (the files are compared byte for byte)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
