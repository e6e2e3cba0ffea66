"""Data for the triage tests (failure list, question view, verdict inspector).

`write_triage_runs` writes a small comparison by hand, so each expected value can be
checked by a person:

    id         category              A                        B
    fact-01    factuelle_courte      pass                     pass
    fact-02    factuelle_courte      retrieval_miss           pass (gold came in)        fixed
    fact-03    factuelle_courte      pass                     judge_error                regressed, judge error in B
    proc-01    procedurale           pass (gold at rank 1)    gold at rank 7: retrieval_miss, regressed, retrieval
    proc-02    procedurale           pass                     sentence 2 unsupported     regressed, generation (same passages)
    none-01    sans_reponse          abstains                 answers: answered_unanswerable, regressed
    none-02    sans_reponse          answers                  answers                    still failing
    contra-01  contradiction_connue  pass                     pass

B's proc-02 carries human labels that disagree with the judge on sentence 1.
With `hostile=True` every text a file can hold (question, expected answer, passage
texts, answer, reasons, judge error, run name, one id, one category) carries terminal
escapes, markup and a bidi override.

`synthetic_comparison(n)` builds a comparison of n questions directly as polars frames
(no JSON), so the virtual-view test can afford 100,000 questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import yaml

from ragtui.core.comparing.compare import Comparison, compare
from ragtui.core.loading.config import Config
from ragtui.core.loading.records import write_run_jsonl
from ragtui.core.loading.run import Run, RunMeta
from ragtui.core.loading.schema import RUN_SCHEMA
from ragtui.core.measuring.evaluate import evaluate
from ragtui.core.session import Inputs, load_comparison

K = 5
ABSTAIN = "Je ne trouve pas cette information."
# Everything a hostile file could try: markup with an action, a stray closing tag, a
# style, CSI, OSC 0 (title), OSC 8 (link), OSC 52 (clipboard), a C1 CSI and a bidi override.
PAYLOAD = (
    "[@click=app.quit]x[/] [/] [bold]b "
    "\x1b[31mred \x1b]0;title\x07 \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 "
    "\x1b]52;c;AAAA\x07 \x9b6n \u202eevil"
)
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")
HOSTILE_ID = "proc-[@click=app.quit]9"
HOSTILE_CATEGORY = "[bold]cat\x1b[31m"

GOLD = [
    ("fact-01", "factuelle_courte", "Combien de jours de conges payes par an ?", ["p_conges_001"], "25 jours ouvres."),
    ("fact-02", "factuelle_courte", "Quel est le montant de la prime de transport ?", ["p_prime_003"], "50 euros par mois."),
    ("fact-03", "factuelle_courte", "Quelle est la duree du preavis d'un cadre ?", ["p_preavis_004"], "Trois mois."),
    ("proc-01", "procedurale", "Comment demander un jour de teletravail ?", ["p_teletravail_042"], "Par le portail RH, 48 h avant."),
    ("proc-02", "procedurale", "Comment renouveler une periode d'essai ?", ["p_essai_010"], "Une fois, par ecrit."),
    ("none-01", "sans_reponse", "Quel est le montant du telephone de fonction d'un stagiaire ?", [], "abstention"),
    ("none-02", "sans_reponse", "Les stagiaires ont-ils une voiture de fonction ?", [], "abstention"),
    ("contra-01", "contradiction_connue", "Combien de RTT pour un cadre au forfait ?", ["p_rtt_020"], "12 jours."),
]
GOLD_IDS = [g[0] for g in GOLD]

PROC02_REASON_2_B = "the passage says renewable once, it does not mention a written form"
PROC02_HUMAN_REASON_1 = "a human reads article 10 as twice, not once"


def _retrieved(qid: str, gold: list[str], gold_rank: int | None, text: str | None = None) -> list[dict[str, Any]]:
    """Eight passages, the gold one (if any) at `gold_rank`."""
    noise = [{"id": f"p_{qid}_n{i}", "text": text or f"Passage sans rapport numero {i} du reglement interieur.", "score": round(0.9 - i * 0.05, 2)} for i in range(8)]
    if gold and gold_rank is not None:
        noise.insert(gold_rank - 1, {"id": gold[0], "text": text or f"Article de reference pour {qid} : la reponse exacte.", "score": 0.93})
    return noise[:8]


def _sentence(text: str, attested: bool, evidence: list[str], reason: str) -> dict[str, Any]:
    return {"text": text, "attested": attested, "evidence": evidence, "reason": reason}


def _judge(sentences: list[dict[str, Any]], utility: int, reason: str = "answers the question", model: str = "claude-sonnet-4") -> dict[str, Any]:
    return {"model": model, "faithfulness": {"sentences": sentences}, "utility": {"score": utility, "reason": reason}, "error": None}


def _answer(qid: str, gold: list[str], *, ok: tuple[bool, ...] = (True, True), utility: int = 5, hostile: bool = False, model: str = "claude-sonnet-4") -> tuple[str, dict]:
    texts = [f"Reponse a {qid}, premiere phrase.", f"Deuxieme phrase pour {qid}."]
    if hostile:
        texts = [f"{PAYLOAD} one.", f"{PAYLOAD} two."]
    sentences = [
        _sentence(t, good, list(gold[:1]) if good else [], (PAYLOAD if hostile else "explicit in the passage") if good else (PAYLOAD if hostile else "not in the passages"))
        for t, good in zip(texts, ok)
    ]
    return " ".join(texts), _judge(sentences, utility, PAYLOAD if hostile else "answers the question", model)


def _records(side: str, hostile: bool) -> list[dict[str, Any]]:
    model = "claude-sonnet-4" if side == "A" else "gpt-4.1"
    text = PAYLOAD if hostile else None
    out = []
    for qid, _category, _q, gold, _expected in GOLD:
        record: dict[str, Any] = {"id": qid}
        rank: int | None = 1
        ok, utility = (True, True), 5
        abstain = False
        judge_error = None
        if qid == "fact-02":
            rank = 7 if side == "A" else 1
        if qid == "fact-03" and side == "B":
            judge_error = PAYLOAD if hostile else "timeout after 60 s"
        if qid == "proc-01":
            rank = 1 if side == "A" else 7
        if qid == "proc-02" and side == "B":
            ok = (True, False)
        if qid == "none-01":
            abstain = side == "A"
        if qid == "none-02":
            utility = 2
        record["retrieved"] = _retrieved(qid, gold, rank if gold else None, text)
        if abstain:
            record["answer"] = ABSTAIN
            record["judge"] = {"model": model, "utility": {"score": 5, "reason": "abstained as it should"}, "error": None}
        else:
            answer, judge = _answer(qid, gold, ok=ok, utility=utility, hostile=hostile, model=model)
            if qid == "proc-02" and side == "B":
                judge["faithfulness"]["sentences"][1]["reason"] = PAYLOAD if hostile else PROC02_REASON_2_B
                judge["utility"] = {"score": 3, "reason": "one unsupported addition"}
                record["human"] = {
                    "model": "annotator-1",
                    "faithfulness": {
                        "sentences": [
                            _sentence(judge["faithfulness"]["sentences"][0]["text"], False, [], PROC02_HUMAN_REASON_1),
                            _sentence(judge["faithfulness"]["sentences"][1]["text"], False, [], "agree: unsupported"),
                        ]
                    },
                    "utility": {"score": 2, "reason": "misleading"},
                }
            record["answer"] = answer
            record["judge"] = judge
        if judge_error:
            record["judge"] = {"model": model, "error": judge_error}
        out.append(record)
    return out


def write_triage_runs(root: Path, *, hostile: bool = False, judge_provider: str | None = None) -> dict[str, Path]:
    """Write gold.yaml, ragtui.yaml, a.jsonl, b.jsonl under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    gold = []
    for qid, category, question, passages, expected in GOLD:
        gold.append(
            {
                "id": qid,
                "question": f"{question} {PAYLOAD}" if hostile else question,
                "gold_passages": passages,
                "expected_answer": f"{expected} {PAYLOAD}" if hostile else expected,
                "category": category,
            }
        )
    records_a, records_b = _records("A", hostile), _records("B", hostile)
    if hostile:
        # One question whose id and category are hostile too (regressed: B misses its gold).
        gold.append({"id": HOSTILE_ID, "question": PAYLOAD, "gold_passages": ["p_evil"], "expected_answer": PAYLOAD, "category": HOSTILE_CATEGORY})
        for records, rank in ((records_a, 1), (records_b, None)):
            answer, judge = _answer(HOSTILE_ID, ["p_evil"], hostile=True)
            records.append({"id": HOSTILE_ID, "retrieved": _retrieved("evil", ["p_evil"], rank, PAYLOAD), "answer": answer, "judge": judge})
    paths = {name: root / f for name, f in (("gold", "gold.yaml"), ("config", "ragtui.yaml"), ("a", "a.jsonl"), ("b", "b.jsonl"))}
    paths["gold"].write_text(yaml.safe_dump(gold, allow_unicode=True, sort_keys=False), encoding="utf-8")
    config: dict[str, Any] = {"k": K}
    if judge_provider:
        config["judge"] = {"provider": judge_provider}
    paths["config"].write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    name_a = f"baseline {PAYLOAD}" if hostile else "baseline"
    write_run_jsonl(paths["a"], {"name": name_a, "k": K, "judge_model": "claude-sonnet-4"}, records_a)
    write_run_jsonl(paths["b"], {"name": "candidate", "k": K, "judge_model": "gpt-4.1"}, records_b)
    return paths


def triage_comparison(root: Path, *, hostile: bool = False, single: bool = False, judge_provider: str | None = None) -> Comparison:
    paths = write_triage_runs(root, hostile=hostile, judge_provider=judge_provider)
    return load_comparison(Inputs(a=paths["a"], b=None if single else paths["b"], gold=paths["gold"], config=paths["config"]))


# -- 100,000 questions, built as frames ----------------------------------------------------

_CATEGORIES = {0: "factuelle_courte", 1: "procedurale", 2: "sans_reponse", 3: "contradiction_connue"}


def _synthetic_run(n: int, variant: int) -> Run:
    """n questions; B (variant 1) pushes the gold of every 7th question to rank 7."""
    i = pl.col("i")
    gold_id = pl.format("p{}", i)
    answerable = i.mod(4) != 2
    gold_rank = pl.when(i.mod(11) == 0).then(8).otherwise(1)
    if variant:
        gold_rank = pl.when(i.mod(7) == 0).then(7).otherwise(gold_rank)
    ranks = [pl.when(answerable & (gold_rank == r)).then(gold_id).otherwise(pl.format("n{}_{}", i, pl.lit(r))) for r in range(1, 9)]
    # Repeated nested values are gathered from a two-row pattern: building a struct per
    # row with expressions would take seconds at 100,000 rows.
    sentences = pl.Series(
        [
            [{"text": "Phrase un.", "attested": True, "evidence": ["p"], "reason": "synthetic reason"},
             {"text": "Phrase deux.", "attested": True, "evidence": ["p"], "reason": "synthetic reason"}],
            [{"text": "Phrase un.", "attested": True, "evidence": ["p"], "reason": "synthetic reason"},
             {"text": "Phrase deux.", "attested": False, "evidence": [], "reason": "synthetic reason"}],
        ],
        dtype=RUN_SCHEMA["judge_sentences"],
    )
    texts = pl.Series([[f"texte du passage {r}" for r in range(1, 9)]], dtype=pl.List(pl.String))
    scores = pl.Series([[1.0 - r / 10 for r in range(1, 9)]], dtype=pl.List(pl.Float64))
    index = pl.select(pl.int_range(0, n, dtype=pl.Int64).alias("i"))
    unsupported = index.select(((i.mod(13) == 0) if variant == 0 else (i.mod(5) == 0)).cast(pl.Int64)).to_series()
    zeros = pl.Series([0] * n)
    frame = index.with_columns(
        id=pl.format("q{}", i.cast(pl.String).str.zfill(6)),
        line=i + 2,
        question=pl.format("Question {} sur le reglement ?", i),
        category=i.mod(4).replace_strict(_CATEGORIES, return_dtype=pl.String),
        gold_passages=pl.when(answerable).then(pl.concat_list(gold_id)).otherwise(pl.lit([], dtype=pl.List(pl.String))),
        expected_answer=pl.lit("Reponse attendue."),
        retrieved_ids=pl.concat_list(ranks),
        retrieved_texts=texts.gather(zeros),
        retrieved_scores=scores.gather(zeros),
        answer=pl.lit("Phrase un. Phrase deux."),
        judge_present=pl.lit(True),
        judge_model=pl.lit("synthetic-judge"),
        judge_sentences=sentences.gather(unsupported),
        judge_utility=pl.lit(4.0),
        judge_utility_reason=pl.lit("synthetic"),
    )
    frame = frame.select([pl.col(c).cast(t) if c in frame.columns else pl.lit(None, dtype=t).alias(c) for c, t in RUN_SCHEMA.items()])
    return Run(meta=RunMeta(name=f"synthetic-{'ab'[variant]}", k=K), frame=frame, path=Path(f"synthetic_{variant}.jsonl"))


def synthetic_comparison(n: int) -> Comparison:
    """A against B over n synthetic questions (about 3 s for 100,000)."""
    config = Config()
    return compare(evaluate(_synthetic_run(n, 0), None, config, K), evaluate(_synthetic_run(n, 1), None, config, K), config)


# -- hosting the screens without the app shell ---------------------------------------------


def host_app(make_screen):
    """A minimal App showing the screen `make_screen()` builds, with ragtui's theme variables."""
    from textual.app import App

    from ragtui.ui.themes import THEME_VARIABLE_DEFAULTS

    class TriageHost(App):
        """Records every toast it is asked to show, so tests read them without Textual's internals."""

        def __init__(self) -> None:
            super().__init__()
            self.toasts: list[tuple[str, bool]] = []  # (message, markup)

        def get_theme_variable_defaults(self) -> dict[str, str]:
            return dict(THEME_VARIABLE_DEFAULTS)

        def on_mount(self) -> None:
            self.push_screen(make_screen())

        def notify(self, message, *args, markup: bool = True, **kwargs) -> None:
            self.toasts.append((str(message), markup))
            super().notify(message, *args, markup=markup, **kwargs)

    return TriageHost()


def screen_strips(app):
    """The composed screen as styled strips, as the compositor would send them to the terminal.

    Textual has no public call for the composed screen; this is the one place in the tests
    that reads it (the screen's private compositor), so a Textual upgrade that moves it
    breaks one function. Snapshot tests cover looks; this serves behaviour tests that
    need to read what is on screen, wherever a widget drew it.
    """
    return app.screen._compositor.render_strips()


def screen_lines(app) -> list[str]:
    """The text of every line on the terminal (see `screen_strips`)."""
    return [strip.text for strip in screen_strips(app)]
