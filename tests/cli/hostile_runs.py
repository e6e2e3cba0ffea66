"""A hostile comparison for the CI formats: every text a file can carry is an attack.

The question, category, run names, passage ids and texts, the answer, the judge's
sentences and reasons hold a `<script>`, an `onerror` image, an iframe, a `javascript:`
link, and the ids a newline or `::` that would forge a GitHub workflow command. Each
script, once run, would mark the page (`data-pwned` on its root element): a page whose
DOM after load has no such mark ran none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

MARK = "document.documentElement.dataset.pwned"
SCRIPT = f"<script>{MARK} = 'script'</script>"
IMAGE = f"<img src=x onerror=\"{MARK} = 'image'\">"
IFRAME = f"<iframe srcdoc=\"<script>parent.{MARK} = 'iframe'</script>\"></iframe>"
LINK = f"<a id=hostile-link href=\"javascript:{MARK} = 'link'\">click me</a>"
NEWLINE_ID = "q-nl\n::error title=forged::forged by a newline"
COLONS_ID = "q-colons::error title=forged::forged by colons"
CONTROL = "\x1b]0;pwned\x07"  # a terminal's title set by an OSC sequence
CATEGORY = f"cat {IMAGE}"
QUESTION = f"Who wins? {SCRIPT}"
ATTACKS = (SCRIPT, IMAGE, IFRAME, LINK)


def _judge(verdicts: list[bool], reason: str) -> dict:
    sentences = [{"text": f"Sentence {i} {LINK}", "attested": v, "evidence": [], "reason": reason} for i, v in enumerate(verdicts, 1)]
    return {"model": "claude-sonnet-4", "faithfulness": {"sentences": sentences}, "utility": {"score": 4, "reason": "u"}}


def _record(qid: str, *, regressed: bool) -> dict:
    gold = f"g-{qid}"
    passages = [
        {"id": gold if not regressed else "p-other", "text": f"Gold passage {IFRAME}", "score": 0.9},
        {"id": f"p {IMAGE}", "text": f"Passage {SCRIPT}", "score": 0.5},
    ]
    if regressed:
        passages.append({"id": gold, "text": f"Gold, far down {LINK}", "score": 0.1})
    verdicts = [True, False] if regressed else [True, True]
    return {"id": qid, "question": QUESTION, "retrieved": passages, "answer": f"Answer {SCRIPT} {LINK}",
            "judge": _judge(verdicts, f"reason {IMAGE} {CONTROL}")}


def write_hostile(folder: Path) -> tuple[Path, Path, Path]:
    """(A, B, gold) of a comparison where both hostile ids (and q-plain) regress in B."""
    ids = [NEWLINE_ID, COLONS_ID, "q-plain", "q-stable"]
    gold = [{"id": qid, "question": QUESTION, "gold_passages": [f"g-{qid}"], "category": CATEGORY} for qid in ids]
    gold_path = folder / "gold.yaml"
    gold_path.write_text(yaml.safe_dump(gold), encoding="utf-8")
    paths = []
    for side, name in (("a", f"base {SCRIPT}"), ("b", f"cand {IFRAME}")):
        records = [_record(qid, regressed=side == "b" and qid != "q-stable") for qid in ids]
        path = folder / f"{side}.jsonl"
        lines = [json.dumps({"run": {"name": name, "judge_model": "claude-sonnet-4"}})] + [json.dumps(r) for r in records]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], gold_path
