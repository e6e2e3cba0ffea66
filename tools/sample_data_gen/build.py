"""Build every generated file of the sample into one folder."""

from __future__ import annotations

from pathlib import Path

from .corpus import check_references, load_corpus, load_questions
from .runs import RUNS, SWEEP, choose_accidents, records, retrieve_and_answer, sweep_accidents
from .writers import CONFIG_YAML, gold_yaml, run_jsonl, write

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_OUT = REPO / "sample_data"
CORPUS = REPO / "sample_data" / "corpus"

# The files this generator owns; the corpus and README.md are written by hand.
GENERATED = (
    "gold.yaml",
    "baseline.jsonl",
    "candidate.jsonl",
    "candidate_k3.jsonl",
    "candidate_k10.jsonl",
    "candidate_k20.jsonl",
    "ragtui.yaml",
)


def build(out: Path, corpus_dir: Path = CORPUS, questions_dir: Path = HERE) -> list[Path]:
    """Write the gold set, every run and the config into `out`; return the paths written."""
    passages = load_corpus(corpus_dir)
    questions = load_questions(questions_dir)
    check_references(questions, passages)
    results = {spec.key: retrieve_and_answer(spec, passages, questions) for spec in RUNS}
    accidents = choose_accidents(results)
    texts = {"gold.yaml": gold_yaml(questions), "ragtui.yaml": CONFIG_YAML}
    for spec in RUNS:
        texts[spec.file_name] = run_jsonl(spec.meta(), records(spec, results[spec.key], accidents, passages))
    sweep = {spec.key: retrieve_and_answer(spec, passages, questions) for spec in SWEEP}
    for spec in SWEEP:
        texts[spec.file_name] = run_jsonl(spec.meta(), records(spec, sweep[spec.key], sweep_accidents(sweep), passages))
    written = []
    for name in GENERATED:
        write(out / name, texts[name])
        written.append(out / name)
    return written
