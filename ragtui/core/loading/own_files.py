"""The files ragtui writes beside runs and gold sets, known by their names so none is read as a run.

A glob such as `runs/*.jsonl` picks up `candidate.labels.jsonl` beside `candidate.jsonl`;
read as a run it failed on its first line ("human: expected an object of verdicts"), or,
worse, a notes file was accepted as run B. These names are ragtui's: a file named so is
refused as a run, saying what it is. Kept free of heavy imports (the app names its
inputs before polars is imported).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

LABELS_SUFFIX = ".labels.jsonl"  # calibration labels of RUN (loading/labels.py)
NOTES_SUFFIX = ".notes.jsonl"  # triage marks and notes about RUN (triage/notes.py)
BATCH_JOBS_SUFFIX = ".batch.json"  # the batch jobs of `ragtui judge … -o OUT --batch` (judge/batch/jobfile.py)
GOLD_EDITS_SUFFIX = ".edits.jsonl"  # edits of GOLD made from triage

# suffix → (what the file is, what it belongs to)
_OWN = {
    LABELS_SUFFIX: ("labels file", "run"),
    NOTES_SUFFIX: ("notes file", "run"),
    BATCH_JOBS_SUFFIX: ("batch job file", "judge output"),
    GOLD_EDITS_SUFFIX: ("gold edits file", "gold set"),
}


@dataclass(frozen=True)
class OwnFile:
    """One of ragtui's own files: what it is and the name of what it belongs to."""

    name: str  # the file's name: candidate.labels.jsonl
    kind: str  # "labels file"
    owner_kind: str  # "run"
    owner: str  # "candidate"

    def what(self) -> str:
        """`ragtui's labels file for run candidate`."""
        return f"ragtui's {self.kind} for {self.owner_kind} {self.owner}"

    def not_a_run(self) -> str:
        """`candidate.labels.jsonl is ragtui's labels file for run candidate, not a run`."""
        return f"{self.name} is {self.what()}, not a run"


def own_file(path: str | PurePath) -> OwnFile | None:
    """What ragtui file `path` is, by its name alone; None for any other file."""
    name = PurePath(str(path)).name
    for suffix, (kind, owner_kind) in _OWN.items():
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return OwnFile(name, kind, owner_kind, name[: -len(suffix)])
    return None
