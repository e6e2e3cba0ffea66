"""People's labels of a run: the sidecar JSONL the app appends to, and its replay.

One line per label event (docs/formats.md): a sentence label
`{"id", "run", "sentence": 2, "human": true, "sampled", "at"}` or a utility label
`{"id", "run", "utility": 4, "sampled", "at"}`; `"human": null` / `"utility": null`
clears. Reloading replays the events, the last one for a key winning. Each event is
appended and flushed as the key is pressed, so a killed app loses at most that key; a
last line cut short by such a kill is skipped with a warning, never an error.

Labels already inside a run (its `human` object) are read too, as labels not drawn from
the random queue, and an event of the sidecar on the same sentence replaces them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import polars as pl

from ragtui.core.errors import InputError, Problem, problem, warning
from ragtui.core.loading import bounded_json
from ragtui.core.loading.bounded_file import read_bounded
from ragtui.core.loading.inputs import default_labels_path

SENTENCE_LABELS = {"id": pl.String(), "sentence": pl.Int64(), "human": pl.Boolean(), "sampled": pl.Boolean()}
UTILITY_LABELS = {"id": pl.String(), "human": pl.Float64(), "sampled": pl.Boolean()}


class LabelsUnwritable(Exception):
    """The labels file cannot be written; the message says what to do (`--labels`)."""


@dataclass
class RunLabels:
    """The current labels of one run (sidecar replayed over the run's own `human` labels).

    `sentences` maps (id, sentence index) to (attested, sampled); `utility` maps id to
    (score, sampled). Mutated in place by `apply` as the person labels.
    """

    run: str
    path: Path | None = None
    sentences: dict[tuple[str, int], tuple[bool, bool]] = field(default_factory=dict)
    utility: dict[str, tuple[float, bool]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    misaligned: int = 0  # answers whose `human` object judged another sentence count: not paired

    def apply(self, event: dict[str, Any]) -> None:
        """Replay one event: set or (with null) clear the label it names."""
        qid = event["id"]
        if "sentence" in event:
            key = (qid, int(event["sentence"]))
            if event.get("human") is None:
                self.sentences.pop(key, None)
            else:
                self.sentences[key] = (bool(event["human"]), bool(event.get("sampled", False)))
        elif event.get("utility") is None:
            self.utility.pop(qid, None)
        else:
            self.utility[qid] = (float(event["utility"]), bool(event.get("sampled", False)))

    def sentence_frame(self) -> pl.DataFrame:
        rows = [(qid, index, human, sampled) for (qid, index), (human, sampled) in self.sentences.items()]
        return pl.DataFrame(rows, schema=SENTENCE_LABELS, orient="row")

    def utility_frame(self) -> pl.DataFrame:
        rows = [(qid, score, sampled) for qid, (score, sampled) in self.utility.items()]
        return pl.DataFrame(rows, schema=UTILITY_LABELS, orient="row")

    def of_answer(self, question_id: str) -> tuple[dict[int, tuple[bool, bool]], tuple[float, bool] | None]:
        """This answer's sentence labels (index → (attested, sampled)) and utility label."""
        said = {index: value for (qid, index), value in self.sentences.items() if qid == question_id}
        return said, self.utility.get(question_id)

    def count(self, *, sampled_only: bool = False) -> int:
        """Labels held (sentences and utility scores), or only those drawn from the queue."""
        values = [*self.sentences.values(), *self.utility.values()]
        return sum(1 for _, sampled in values if sampled or not sampled_only)


def from_run(run: str, questions: pl.DataFrame) -> RunLabels:
    """The labels inside a run's `human` objects, never `sampled`.

    Sentences pair with the judge's by position, and only where both judged the same
    number of sentences; other answers are counted (`misaligned`), not guessed at.
    """
    labels = RunLabels(run)
    if "human_present" not in questions.columns:
        return labels
    with_human = questions.filter(pl.col("human_present").fill_null(False))
    both = with_human.filter(pl.col("human_sentences").is_not_null() & pl.col("judge_sentences").is_not_null())
    aligned = both.filter(pl.col("human_sentences").list.len() == pl.col("judge_sentences").list.len())
    labels.misaligned = both.height - aligned.height
    sentences = (
        aligned.select("id", pl.col("human_sentences").list.eval(pl.element().struct.field("attested")).alias("h"))
        .with_columns(pl.int_ranges(pl.col("h").list.len()).alias("i"))
        .explode("h", "i")
        .drop_nulls()
    )
    for qid, human, index in sentences.iter_rows():
        labels.sentences[(qid, int(index))] = (bool(human), False)
    for qid, score in with_human.select("id", "human_utility").drop_nulls().iter_rows():
        labels.utility[qid] = (float(score), False)
    return labels


def _event_problem(path: Path, number: int, obj: Any) -> Problem | None:
    """Why a parsed line is not a label event, or None."""
    if not isinstance(obj, dict):
        return problem(path, number, None, "expected a JSON object")
    if not isinstance(obj.get("id"), str) or not isinstance(obj.get("run"), str):
        return problem(path, number, "id" if not isinstance(obj.get("id"), str) else "run", "expected a string")
    if "sentence" in obj:
        index = obj["sentence"]
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            return problem(path, number, "sentence", f"expected a sentence index ≥ 0, found {index!r}")
        if obj.get("human") is not None and not isinstance(obj["human"], bool):
            return problem(path, number, "human", f"expected true, false or null, found {obj['human']!r}")
    elif "utility" in obj:
        score = obj["utility"]
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float) or not 1 <= score <= 5):
            return problem(path, number, "utility", f"expected a score from 1 to 5 or null, found {score!r}")
    else:
        return problem(path, number, None, 'expected "sentence" or "utility"')
    if not isinstance(obj.get("sampled", False), bool):
        return problem(path, number, "sampled", "expected true or false")
    return None


def replay(path: Path, runs: list[str], base: dict[str, RunLabels] | None = None) -> dict[str, RunLabels]:
    """Replay a labels file for the named runs (over `base`); raises InputError on a bad line.

    Events naming another run are kept out (a shared `--labels` file holds both runs).
    A missing file is no labels yet.
    """
    out = base if base is not None else {run: RunLabels(run) for run in runs}
    for labels in out.values():
        labels.path = path
    if not path.exists():  # nothing labelled yet (writing will say why it cannot)
        return out
    data = read_bounded(path)
    lines = data.split(b"\n")
    problems: list[Problem] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        last_unterminated = number == len(lines)  # no newline after it: a write cut short
        try:
            obj = bounded_json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if last_unterminated:
                note = warning(path, number, None, "last line cut short (the app was stopped while writing); skipped")
                for labels in out.values():
                    labels.problems.append(note)
                continue
            problems.append(problem(path, number, None, f"malformed JSON: {exc}"))
            continue
        found = _event_problem(path, number, obj)
        if found is not None:
            problems.append(found)
        elif obj["run"] in out:
            out[obj["run"]].apply(obj)
    if problems:
        raise InputError(problems)
    return out


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class LabelWriter:
    """Appends label events to one file, flushing each, and keeps `RunLabels` in step."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def _open(self) -> IO[str]:
        if self._handle is None:
            try:
                # Append mode with the user's umask; the folder must already exist.
                self._handle = self.path.open("a", encoding="utf-8", newline="\n")
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                raise LabelsUnwritable(
                    f"cannot write labels to {self.path}: {reason.lower()}; "
                    "start ragtui with --labels FILE in a folder you can write to"
                ) from None
        return self._handle

    def record(self, labels: RunLabels, question_id: str, *, sentence: int | None = None,
               human: bool | None = None, utility: float | None = None, sampled: bool = False) -> dict[str, Any]:
        """Write one event (flushed before returning), then apply it to `labels`."""
        event: dict[str, Any] = {"id": question_id, "run": labels.run}
        if sentence is not None:
            event |= {"sentence": sentence, "human": human}
        else:
            event["utility"] = int(utility) if utility is not None and float(utility).is_integer() else utility
        event |= {"sampled": sampled, "at": now_utc()}
        handle = self._open()
        try:
            handle.write(json.dumps(event, ensure_ascii=False) + "\n")
            handle.flush()
        except OSError as exc:
            raise LabelsUnwritable(f"cannot write labels to {self.path}: {(exc.strerror or '').lower()}") from None
        labels.apply(event)
        return event

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def writable_problem(path: Path) -> str | None:
    """Why labels could not be written to `path` (checked before the first key), or None."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists():
        return None if os.access(path, os.W_OK) else f"{path} is read-only: start ragtui with --labels FILE to label"
    if not folder.is_dir():
        return f"the folder {folder} does not exist: start ragtui with --labels FILE to label"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is read-only: start ragtui with --labels FILE to label"
    return None


def load_labels(sides: dict[str, Any], labels_file: Path | None) -> dict[str, RunLabels]:
    """Each side's labels: the run's own `human` labels, with its sidecar replayed over them.

    Without `labels_file` each run has its own `RUN.labels.jsonl`; with it, both runs share
    that file and events are told apart by run name. Raises InputError on a bad line.

    Args:
        sides: The measured runs by label ("A", "B").
        labels_file: The shared labels file (--labels), or None.
    """
    names = [evaluation.run.name for evaluation in sides.values()]
    if labels_file is not None and len(set(names)) < len(names):
        raise InputError(problem(
            labels_file, None, "run",
            f"both runs are named {names[0]!r}: a shared --labels file tells them apart by name; "
            "give the runs distinct names (run.name) or leave out --labels",
        ))
    out: dict[str, RunLabels] = {}
    for side, evaluation in sides.items():
        run = evaluation.run
        path = labels_file if labels_file is not None else default_labels_path(run.path)
        base = from_run(run.name, evaluation.questions)
        out[side] = replay(path, [run.name], {run.name: base})[run.name]
    return out
