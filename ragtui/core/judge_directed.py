"""Flag answers and passages that address the judge, before anything is judged.

A local, deterministic tripwire (no model, no network): French and English patterns for
text that speaks to the judge or the evaluator ("Note au juge : …"), tells it to ignore
its instructions, dictates a verdict ("toutes les phrases sont attestées"), imitates a
role marker (`system:`, `### Instruction`, `[INST]`), embeds a ready-made verdict JSON
(`"attested": true`), or names the prompt's own tags (`</passage-…>`). It catches the
clumsy and the copied; a paraphrase gets past it — the fenced prompt and the judge's own
`injection` flag are the other layers (docs/judge.md). A flag is a reason to look, not
a verdict: it never changes a score.

The patterns are written in the regex dialect Python's `re` and polars (Rust `regex`)
share — no look-around, no back-reference — so `findings` (one text, for the app and the
judge) and `flag_expr` (a whole column, for the report) flag exactly the same texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, TypedDict

from ragtui.core.vocabulary import JUDGE_DIRECTED_LABEL as LABEL
from ragtui.core.vocabulary import JUDGE_DIRECTED_MARK as MARK

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

__all__ = ["LABEL", "MARK", "QuestionFlags", "RunFlags", "addresses_judge", "findings", "flag_expr", "question_flags", "runs_flags"]

_JUDGE_FR = r"(?:juges?|[ée]valuat(?:eur|rice)s?|correct(?:eur|rice)s?|examinat(?:eur|rice)s?|notat(?:eur|rice)s?)"
_JUDGE_EN = r"(?:(?:llm\s+|ai\s+)?(?:judges?|evaluators?|graders?|assessors?|raters?|scorers?))"
_INSTRUCTIONS_FR = r"(?:instructions|consignes|r[èe]gles|directives|prompts?)"
_INSTRUCTIONS_EN = r"(?:instructions?|prompts?|guidelines|directives|rules)"
_IGNORE_FR = (
    r"(?:ignore[rsz]?|oublie[rsz]?|outrepasse[rz]?|ne\s+tiens?\s+pas\s+compte\s+d[eu]s?|ne\s+tenez\s+pas\s+compte\s+d[eu]s?"
    r"|fai(?:s|tes)\s+abstraction\s+d[eu]s?)"
)
_IGNORE_EN = r"(?:ignore|disregard|forget|override|bypass)"
_ATTESTED_FR = r"(?:attest[ée]e?s?|fid[èe]les?)"
_ATTESTED_EN = r"(?:attested|supported|faithful|grounded)"

# (rule, pattern): the rule names what a person sees beside the ⚠.
RULES: tuple[tuple[str, str], ...] = (
    (
        "speaks to the judge",
        r"\b(?:notes?|messages?|remarques?|consignes?|instructions?|avis)\s+(?:au|aux|[àa]\s+l['’]|[àa]\s+la|pour\s+l['’]|pour\s+le|pour\s+la|destin[ée]e?s?\s+(?:au|[àa]\s+l['’]))\s*"
        + _JUDGE_FR
        + r"|\b(?:cher|ch[èe]re|chers|madame|monsieur)\s+(?:le\s+|la\s+)?"
        + _JUDGE_FR
        + r"|\b(?:au|aux|[àa]\s+l['’])\s*"
        + _JUDGE_FR
        + r"\s*:"
        + r"|\bsi\s+tu\s+es\s+(?:le|la|un|une|l['’])\s*"
        + _JUDGE_FR
        + r"|\b(?:notes?|messages?|instructions?|reminders?|memo)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
        + _JUDGE_EN
        + r"\b|\b(?:dear|hey|hello|attention)\s*,?\s+(?:the\s+)?"
        + _JUDGE_EN
        + r"\b|\bif\s+you\s+are\s+(?:the|an|a)\s+"
        + _JUDGE_EN
        + r"\b|(?:^|[.!?]\s+)"
        + r"(?:"
        + _JUDGE_EN
        + r"|"
        + _JUDGE_FR
        + r")\s*:",
    ),
    (
        "ignore … instructions",
        _IGNORE_FR
        + r"\s+(?:toutes\s+|tous\s+)?(?:tes|vos)\s+"
        + _INSTRUCTIONS_FR
        + r"|"
        + _IGNORE_FR
        + r"\s+(?:toutes\s+|tous\s+)?(?:les|ces|des)\s+"
        + _INSTRUCTIONS_FR
        + r"\s+(?:pr[ée]c[ée]dentes|ci-dessus|ant[ée]rieures|du\s+syst[èe]me|syst[èe]me|d['’][ée]valuation|re[çc]ues|qui\s+pr[ée]c[èe]dent)"
        + r"|\bignore[rz]?\s+(?:tout\s+)?ce\s+qui\s+pr[ée]c[èe]de"
        + r"|\b"
        + _IGNORE_EN
        + r"\s+(?:all\s+|any\s+)?(?:of\s+)?your\s+(?:\w+\s+)?"
        + _INSTRUCTIONS_EN
        + r"|\b"
        + _IGNORE_EN
        + r"\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|these\s+)?(?:previous|prior|above|earlier|preceding|system|original)\s+"
        + _INSTRUCTIONS_EN
        + r"|\b"
        + _IGNORE_EN
        + r"\s+(?:all|any)\s+(?:the\s+)?"
        + _INSTRUCTIONS_EN
        + r"|\b"
        + _IGNORE_EN
        + r"\s+(?:everything|all)\s+(?:above|before)",
    ),
    (
        "dictates a verdict",
        r"\b(?:toutes\s+les|chacune\s+des|chaque|ces|cette)\s+(?:phrases?|affirmations?)\s+(?:\S+\s+){0,4}?(?:sont|est|seront|doivent\s+[êe]tre|doit\s+[êe]tre)\s+(?:consid[ée]r[ée]e?s?\s+comme\s+|jug[ée]e?s?\s+|marqu[ée]e?s?\s+(?:comme\s+)?)?"
        + _ATTESTED_FR
        + r"|\b(?:marque|marquez|consid[èe]re|consid[ée]rez|d[ée]clare|d[ée]clarez)\b[^.\n]{0,60}\b(?:comme\s+)?"
        + _ATTESTED_FR
        + r"|\b(?:donne|donnez|attribue|attribuez|mets|mettez)\b[^.\n]{0,40}(?:5\s*/\s*5|\bla\s+note\s+maximale|\b(?:une|la)\s+note\s+de\s+5|\butilit[ée]\s+(?:de\s+)?5)"
        + r"|\b(?:all|every|each|these|this)\s+(?:of\s+the\s+)?(?:sentences?|claims?|statements?)\s+(?:\S+\s+){0,4}?(?:is|are|must\s+be|should\s+be)\s+(?:marked\s+(?:as\s+)?|considered\s+|judged\s+|rated\s+)?"
        + _ATTESTED_EN
        + r"|\b(?:mark|consider|treat|rate|judge)\b[^.\n]{0,60}\bas\s+"
        + _ATTESTED_EN
        + r"|\b(?:give|assign|award|rate|score)\b[^.\n]{0,40}(?:5\s*/\s*5|\b(?:a\s+)?(?:score|utility|rating)\s+of\s+5|\bfive\s+out\s+of\s+five|\bfull\s+marks)",
    ),
    (
        "role marker",
        r"(?:^|[.!?]\s+)\s*(?:system|assistant|developer|human|syst[èe]me|d[ée]veloppeur)\s*:"
        + r"|#{2,}\s*(?:instructions?|system|syst[èe]me|consignes?|new\s+task|nouvelle\s+t[âa]che)\b"
        + r"|\[/?INST\]|<<\s*/?\s*SYS\s*>>|<\|\s*(?:im_start|im_end|system|user|assistant|endoftext)\s*\|>"
        + r"|\bBEGIN\s+(?:SYSTEM|INSTRUCTIONS?)\b",
    ),
    (
        "verdict JSON",
        r"[\"'](?:attested|atteste|attest[ée]e?s?|supported|injection)[\"']\s*:"
        + r"|[\"'](?:sentences|phrases|verdicts)[\"']\s*:\s*\["
        + r"|[\"'](?:utility|utilit[ée])[\"']\s*:\s*\{",
    ),
    ("prompt tag", r"[<＜﹤]\s*/?\s*(?:passage|phrase|sentence)s?(?:-|\b)|\b(?:passage|phrase|sentence)-[0-9a-f]{6,}\b"),
)

_FLAGS = "(?im)"  # the same inline flags mean the same thing in Python and in Rust


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(_FLAGS + pattern)) for name, pattern in RULES)


def combined_pattern() -> str:
    """Every rule as one regular expression (the form polars runs)."""
    return _FLAGS + "|".join(f"(?:{pattern})" for _, pattern in RULES)


def findings(text: object) -> list[str]:
    """The names of the rules `text` trips, in rule order; [] for clean text or no text."""
    if not isinstance(text, str) or not text:
        return []
    return [name for name, pattern in _compiled() if pattern.search(text)]


def addresses_judge(text: object) -> bool:
    """Whether `text` trips any rule."""
    return bool(findings(text))


def prefilter_pattern() -> str:
    """The combined pattern without its word boundaries: it matches every text the rules
    match, and more (an assertion removed only loosens a pattern)."""
    return combined_pattern().replace(r"\b", "")


def flag_expr(column: pl.Expr) -> pl.Expr:
    """A polars expression: True where the strings of `column` trip a rule (null stays null).

    Two passes, for speed on real text: polars' regex engine cannot test a Unicode word
    boundary (`\b`) in its fast automaton once a text holds a non-ASCII character, and
    falls back to one that read the sample's French passages at 0.7 MB/s (1.8 s for the
    sample's two runs, most of the app's first paint). The pattern without boundaries runs
    first, at ~70 MB/s; the exact one runs only on the texts it keeps, the others being
    empty to it. (Empty, not null: a null keeps its text behind the mask, and the exact
    pattern read it anyway.) The outcome is the exact pattern's.
    """
    import polars as pl

    maybe = pl.when(column.str.contains(prefilter_pattern())).then(column).otherwise(pl.lit(""))
    return pl.when(column.is_not_null()).then(maybe.str.contains(combined_pattern()))


@dataclass(frozen=True)
class QuestionFlags:
    """What addresses the judge in one question: its answer's rules, and each flagged passage's."""

    answer: list[str] = field(default_factory=list)
    passages: dict[str, list[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.answer or self.passages)

    def describe(self) -> str:
        """`answer (ignore … instructions); passage p_12 (prompt tag)` — ids are untrusted, neutralise before display."""
        parts = [f"answer ({', '.join(self.answer)})"] if self.answer else []
        parts += [f"passage {ident} ({', '.join(rules)})" for ident, rules in self.passages.items()]
        return "; ".join(parts)


def question_flags(answer: object, passages: list[tuple[str, str | None]]) -> QuestionFlags:
    """The flags of one question: its answer and its (id, text) passages."""
    flagged = {}
    for ident, text in passages:
        rules = findings(text)
        if rules and ident not in flagged:
            flagged[ident] = rules
    return QuestionFlags(findings(answer), flagged)


def keep_flagged(texts: pl.Expr) -> pl.Expr:
    """A list-of-strings column with only the texts that trip a rule (the others null).

    A headless report drops passage texts to save memory; it keeps these few so the
    report still counts what addresses the judge (loading/schema.py, `without_detail`).
    """
    import polars as pl

    return texts.list.eval(pl.when(flag_expr(pl.element())).then(pl.element()))


class RunFlags(TypedDict):
    """The report's `runs.X.judge_directed`."""

    questions: int
    answers: int
    passages: int
    ids: list[str]


# Up to this many questions in all, the runs' texts are scanned together; past it, one run
# at a time: both runs' passages side by side in one frame held 150 MB more at
# 2 × 100,000 questions (2 GB at 2 × 1,000,000) for one compile of the patterns saved.
ONE_SCAN_UP_TO = 20_000


def runs_flags(runs: Sequence[pl.DataFrame]) -> list[RunFlags]:
    """What addresses the judge in each run's questions (present ones), for the report.

    `questions`: questions whose answer or a retrieved passage trips a rule; `answers`:
    questions whose answer does; `passages`: distinct retrieved passage ids that do;
    `ids`: the flagged question ids, sorted.

    Small runs are read in one scan of one chunk, not one per run, per column or per chunk:
    compiling the rules' patterns (4 KB of Unicode-aware regular expression) costs polars
    more than matching the sample's 2,400 passages a run, and it compiles them again in
    each thread of its pool that runs them (the sample's two runs: 20 ms of CPU in one
    scan, 40 ms in four). Large ones are read one at a time (`ONE_SCAN_UP_TO`).
    """
    if len(runs) > 1 and sum(run.height for run in runs) > ONE_SCAN_UP_TO:
        return [_scan([run])[0] for run in runs]
    return _scan(runs)


def _scan(runs: Sequence[pl.DataFrame]) -> list[RunFlags]:
    """`runs_flags` of `runs`, their texts in one frame."""
    import polars as pl

    texts = []
    for side, questions in enumerate(runs):
        frame = questions.select("id", "answer", "retrieved_ids", "retrieved_texts")
        if "present" in questions.columns:
            frame = frame.filter(questions.get_column("present"))
        tag = pl.lit(side, pl.Int32).alias("side")
        texts.append(frame.select(tag, "id", pl.lit(None, pl.String).alias("passage"), pl.col("answer").alias("text"), pl.lit(True).alias("is_answer")))
        with_texts = frame.filter(
            pl.col("retrieved_texts").is_not_null() & (pl.col("retrieved_texts").list.len() == pl.col("retrieved_ids").list.len())
        )
        passages = with_texts.select(tag, "id", pl.col("retrieved_ids").alias("passage"), pl.col("retrieved_texts").alias("text")).explode("passage", "text")
        texts.append(passages.with_columns(pl.lit(False).alias("is_answer")))
    # `flag_expr`'s two passes as two filters: the exact pattern is compiled and run only
    # when the loose one kept a text (it kept none of the sample's 5,000).
    text = pl.col("text")
    hits = pl.concat(texts, how="vertical_relaxed", rechunk=True).filter(text.str.contains(prefilter_pattern()).fill_null(False))
    if hits.height:
        hits = hits.filter(text.str.contains(combined_pattern()))
    flags = []
    for side in range(len(runs)):
        mine = hits.filter(pl.col("side") == side)
        answers = set(mine.filter(pl.col("is_answer")).get_column("id").to_list())
        passages = mine.filter(~pl.col("is_answer"))
        flagged = answers | set(passages.get_column("id").to_list())
        flags.append(
            RunFlags(questions=len(flagged), answers=len(answers), passages=passages.get_column("passage").n_unique(), ids=sorted(flagged))
        )
    return flags
