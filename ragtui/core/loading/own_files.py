"""The files ragtui writes about runs and gold sets: where they go, and their names, so none is read as a run.

They go beside the run they are about (`candidate.labels.jsonl` beside `candidate.jsonl`),
except for the bundled sample: its folder is the package's (the repository in a clone,
site-packages once installed), so what a user makes on it goes to the user's data folder,
`$XDG_DATA_HOME/ragtui/sample` (`sidecar_path`).

A glob such as `runs/*.jsonl` picks up `candidate.labels.jsonl` beside `candidate.jsonl`;
read as a run it failed on its first line ("human: expected an object of verdicts"), or,
worse, a notes file was accepted as run B. These names are ragtui's: a file named so is
refused as a run, saying what it is. Kept free of heavy imports (the app names its
inputs before polars is imported).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from ragtui.core.user_dirs import data_root

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


def bundled_sample_dir() -> Path:
    """The folder of the bundled sample (`ragtui.sample_data`), in a clone or an installed wheel."""
    from importlib.resources import files

    return Path(str(files("ragtui.sample_data")))


def sample_sidecar_dir() -> Path:
    """Where the labels, marks and exports made on the bundled sample go: `$XDG_DATA_HOME/ragtui/sample`."""
    return data_root() / "sample"


def sidecar_path(run_path: Path, suffix: str) -> Path:
    """ragtui's own file about a run: `runs/candidate.jsonl` → `runs/candidate{suffix}`; for a run
    of the bundled sample, that name in `sample_sidecar_dir()`."""
    name = (run_path.stem if run_path.suffix else run_path.name) + suffix
    try:
        in_sample = run_path.resolve().parent == bundled_sample_dir().resolve()
    except (OSError, ModuleNotFoundError):  # a sample left out of an unusual install: nothing is in it
        in_sample = False
    return (sample_sidecar_dir() if in_sample else run_path.parent) / name
