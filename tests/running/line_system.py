"""A system speaking `ragtui run --command`'s JSON lines, for the tests.

`python line_system.py [--crash-at N --marker FILE]`: answers every request; with
--crash-at, the N-th request (1-based) makes it print to stderr and exit with code 3 —
once: the marker file it creates first tells the restarted program not to crash again.
A question containing "ERR" gets `{"id", "error"}`; one containing "BAD" a line that is not JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--crash-at", type=int)
parser.add_argument("--marker", type=Path)
options = parser.parse_args()
for number, line in enumerate(sys.stdin, start=1):
    request = json.loads(line)
    if options.crash_at == number and options.marker is not None and not options.marker.exists():
        options.marker.write_text("crashed once", encoding="utf-8")
        print("fatal: out of memory while loading the index", file=sys.stderr, flush=True)
        os._exit(3)
    question_id, question = request["id"], request["question"]
    if "ERR" in question:
        reply: dict = {"id": question_id, "error": "no index for this question"}
    elif "BAD" in question:
        print("{not json", flush=True)
        continue
    else:
        reply = {"id": question_id, "retrieved": [{"id": f"p_{question_id}_0", "text": "t", "score": 1}], "answer": f"answer to {question}"}
    print(json.dumps(reply), flush=True)
