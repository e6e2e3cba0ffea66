"""People's labels of a run: the sidecar JSONL the app appends to (`label_writer.py`), and its replay.

One line per label event (docs/formats.md): a sentence label
`{"id", "run", "sentence": 2, "human": true, "sampled", "at"}` or a utility label
`{"id", "run", "utility": 4, "sampled", "at"}`; `"human": null` / `"utility": null`
clears. Reloading replays the events, the last one for a key winning. Each event is
appended and flushed as the key is pressed, so a killed app loses at most that key; a
last line cut short by such a kill is skipped with a warning, never an error.

Labels already inside a run (its `human` object) are read too, as labels not drawn from
the random queue, and an event of the sidecar on the same sentence replaces them.

A sentence label names its sentence by position, and remembers a hash of its text
(`text_hash`): a run judged again may split its answers differently, and a label whose
sentence no longer has that text is counted and left out (`stale`), never re-paired with
another sentence. Events naming a run not compared here are counted (`other_runs`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ragtui.core.errors import InputError, Problem, problem, warning
from ragtui.core.loading import bounded_json
from ragtui.core.loading.bounded_file import read_bounded
from ragtui.core.loading.inputs import default_labels_path
from ragtui.core.loading.runs import check_run

SENTENCE_LABELS = {"id": pl.String(), "sentence": pl.Int64(), "human": pl.Boolean(), "sampled": pl.Boolean()}
UTILITY_LABELS = {"id": pl.String(), "human": pl.Float64(), "sampled": pl.Boolean()}


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
    # The text hash each sidecar sentence label was made on (events written before hashes: none).
    hashes: dict[tuple[str, int], str] = field(default_factory=dict)
    stale: int = 0  # sentence labels whose sentence no longer has the text they were made on
    other_runs: Counter[str] = field(default_factory=Counter)  # events of its file naming runs not compared

    def apply(self, event: dict[str, Any]) -> None:
        """Replay one event: set or (with null) clear the label it names."""
        qid = event["id"]
        if "sentence" in event:
            key = (qid, int(event["sentence"]))
            self.hashes.pop(key, None)
            if event.get("human") is None:
                self.sentences.pop(key, None)
            else:
                self.sentences[key] = (bool(event["human"]), bool(event.get("sampled", False)))
                if isinstance(event.get("text_hash"), str):
                    self.hashes[key] = event["text_hash"]
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

    def drop_stale(self, texts: dict[str, list[str | None]]) -> None:
        """Leave out (and count in `stale`) each hashed label whose sentence has another text now.

        Args:
            texts: question id → the texts of its judged sentences, in order, for every
                question a hashed label names (None for a text that cannot be read: not judged).
        """
        for key, made_on in list(self.hashes.items()):
            qid, index = key
            sentences = texts.get(qid)
            if sentences is None or (index < len(sentences) and sentences[index] is None):
                continue  # the text cannot be read here: the label is kept, as before hashes
            if index >= len(sentences) or sentence_hash(sentences[index] or "") != made_on:
                self.sentences.pop(key, None)
                del self.hashes[key]
                self.stale += 1

    def warnings(self) -> list[str]:
        """What the comparison's warnings say about these labels: lines cut short, stale labels, other runs."""
        where = self.path if self.path is not None else "the labels"
        out = [str(item) for item in self.problems]
        if self.stale:
            out.append(
                f"{where}: {self.stale} label{'s' if self.stale != 1 else ''} of run {self.run} no longer fit their sentence "
                "(its answer was judged again and split differently): left out of the comparison with the judge"
            )
        if self.other_runs:
            names = ", ".join(f"{name} ({count})" for name, count in sorted(self.other_runs.items()))
            total = sum(self.other_runs.values())
            out.append(f"{where}: {total} label{'s' if total != 1 else ''} for runs not compared here, not used: {names}")
        return out


def sentence_hash(text: str) -> str:
    """What a sentence label remembers of its sentence: 16 hex digits of the SHA-256 of its
    text with whitespace collapsed (re-wrapping an answer does not change it)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


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

    Events naming another run are kept out and counted in each run's `other_runs` (a shared
    `--labels` file is replayed once for both runs). A missing file is no labels yet.
    """
    out = base if base is not None else {run: RunLabels(run) for run in runs}
    for labels in out.values():
        labels.path = path
    if not path.exists():  # nothing labelled yet (writing will say why it cannot)
        return out
    data = read_bounded(path)
    lines = data.split(b"\n")
    problems: list[Problem] = []
    others: Counter[str] = Counter()
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
        else:
            others[obj["run"]] += 1
    if problems:
        raise InputError(problems)
    for labels in out.values():
        labels.other_runs = others
    return out


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
    if labels_file is not None:  # one file for both runs, replayed once: neither run's events are "another run's"
        bases = {evaluation.run.name: from_run(evaluation.run.name, evaluation.questions) for evaluation in sides.values()}
        replayed = replay(labels_file, list(bases), bases)
        out = {side: replayed[evaluation.run.name] for side, evaluation in sides.items()}
    else:
        for side, evaluation in sides.items():
            run = evaluation.run
            base = from_run(run.name, evaluation.questions)
            out[side] = replay(default_labels_path(run.path), [run.name], {run.name: base})[run.name]
    for side, evaluation in sides.items():
        labels = out[side]
        if labels.hashes:
            labels.drop_stale(judged_sentence_texts(evaluation, {qid for qid, _ in labels.hashes}))
    return out


def judged_sentence_texts(evaluation: Any, ids: set[str]) -> dict[str, list[str | None]]:
    """question id → the texts of its judged sentences, in order (a question without verdicts: []).

    From the frame, else the run cache or the run file (`Evaluation.question`); a headless
    report that neither holds nor can read them back (`--no-cache`) reads the run again for
    these questions only once, so a stale label is told there too.
    """
    texts: dict[str, list[str | None]] = {}
    unread: set[str] = set()
    for qid in ids:
        row = evaluation.question(qid) or {}
        found = [sentence.get("text") for sentence in row.get("judge_sentences") or []]
        texts[qid] = found
        if found and all(text is None for text in found):
            unread.add(qid)
    if unread and isinstance(evaluation.run.path, Path) and evaluation.run.source_format == "ragtui":
        run, _ = check_run(evaluation.run.path, "ragtui")
        if run is not None:
            for row in run.frame.filter(pl.col("id").is_in(sorted(unread))).select("id", "judge_sentences").iter_rows(named=True):
                texts[row["id"]] = [sentence.get("text") for sentence in row["judge_sentences"] or []]
    return texts
