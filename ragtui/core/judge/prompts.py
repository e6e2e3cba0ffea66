"""The judge's prompt templates: loading, versioning and rendering one question.

Templates are plain text files, `{lang}.system.txt`, `{lang}.user.txt` and
`{lang}.repair.txt`, shipped in `ragtui/core/judge/prompts/` (French by default, the
corpus is French) and overridable file by file with `--prompts DIR`. They use
`string.Template` placeholders (`$question`, `$expected`, `$passages`, `$sentences`,
`$n_sentences`; `$error` in the repair prompt) because the prompts are full of JSON
braces that `str.format` would choke on.

The version written to `judge.prompt_version` is a name plus a hash of the effective
template texts and of the rendering rules below, so two runs judged with different
prompts are never mistaken for comparable ones.

Answers and passages are fenced (fencing.py): their tags carry a per-prompt nonce
(`<passage-7f3a2c9d1e4b id="…">`, `<phrase-7f3a2c9d1e4b n="1">`) and the text placed
inside is neutralised first, so it can neither close its block nor forge another.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ragtui.core.errors import InputError, problem
from ragtui.core.judge.fencing import NonceSource, neutralise, neutralise_attribute

PARTS = ("system", "user", "repair")
# Bump when the rendering below changes (tags, labels, fencing): it changes what the judge reads.
RENDER_VERSION = "render-3-fenced"
PASSAGE_TAG = "passage"

_LABELS = {
    "fr": {
        "sentence_tag": "phrase",
        "no_passages": "(aucun passage cité : aucune phrase ne peut être attestée)",
        "no_expected": "(aucune réponse attendue fournie : juge l'utilité d'après la question seule)",
        "unanswerable": "(le corpus ne contient pas la réponse : la bonne réponse est une abstention claire)",
    },
    "en": {
        "sentence_tag": "sentence",
        "no_passages": "(no cited passage: no sentence can be attested)",
        "no_expected": "(no expected answer given: judge utility from the question alone)",
        "unanswerable": "(the corpus does not hold the answer: the right answer is a clear abstention)",
    },
}
_PLACEHOLDERS = {
    "system": {},
    "user": {"question": "q", "expected": "e", "passages": "p", "sentences": "s", "n_sentences": "1"},
    "repair": {"error": "x", "n_sentences": "1"},
}


@dataclass(frozen=True)
class Passage:
    """A cited passage as the judge sees it."""

    id: str
    text: str


@dataclass(frozen=True)
class PromptSet:
    """The three templates of one language, with their version."""

    lang: str
    system: str
    user: str
    repair: str
    version: str

    def messages(
        self,
        question: str,
        sentences: list[str],
        passages: list[Passage],
        expected: str | None,
        unanswerable: bool = False,
        *,
        nonce: str | None = None,
    ) -> list[dict[str, str]]:
        """The chat messages (system, user) that ask for the verdicts of one answer.

        `nonce` names this prompt's tags; by default it is drawn at random (the judge
        session derives it from its seed instead, so a resumed run renders the same bytes).
        """
        labels = _LABELS[self.lang]
        if nonce is None:
            nonce = NonceSource().nonce(question, sentences, [(p.id, p.text) for p in passages], expected, unanswerable)
        tag, passage_tag = f"{labels['sentence_tag']}-{nonce}", f"{PASSAGE_TAG}-{nonce}"
        fence = lambda text: neutralise(text, nonce)  # noqa: E731
        if unanswerable:
            expected_text = labels["unanswerable"] + (f"\n{fence(expected)}" if expected and not _is_abstention_word(expected) else "")
        else:
            expected_text = fence(expected.strip()) if expected and expected.strip() else labels["no_expected"]
        passages_text = "\n".join(
            f'<{passage_tag} id="{neutralise_attribute(p.id, nonce)}">\n{fence(p.text.strip())}\n</{passage_tag}>' for p in passages
        )
        sentences_text = "\n".join(f'<{tag} n="{i}">{fence(s)}</{tag}>' for i, s in enumerate(sentences, start=1))
        user = string.Template(self.user).safe_substitute(
            question=fence(question.strip()),
            expected=expected_text,
            passages=passages_text or labels["no_passages"],
            sentences=sentences_text or "(—)",
            n_sentences=str(len(sentences)),
        )
        return [{"role": "system", "content": self.system.strip()}, {"role": "user", "content": user.strip()}]

    def repair_message(self, error: str, n_sentences: int) -> dict[str, str]:
        """The user message that asks again after an unusable reply."""
        text = string.Template(self.repair).safe_substitute(error=error, n_sentences=str(n_sentences))
        return {"role": "user", "content": text.strip()}


def _is_abstention_word(expected: str) -> bool:
    return expected.strip().lower() in {"abstention", "abstain", "sans réponse", "sans reponse", "none"}


def is_unanswerable_expected(expected: str | None) -> bool:
    """Whether an expected answer is the course's marker for "no answer in the corpus"."""
    return expected is not None and bool(expected) and _is_abstention_word(expected)


def load_prompts(lang: str = "fr", prompts_dir: str | Path | None = None) -> PromptSet:
    """The templates for `lang`: from `prompts_dir` where it has them, else the shipped ones.

    Raises InputError when a template file is unreadable or uses an unknown placeholder.
    """
    if prompts_dir is not None and not Path(prompts_dir).is_dir():
        raise InputError(problem(prompts_dir, None, None, "--prompts must be a folder holding {lang}.system.txt / .user.txt / .repair.txt"))
    texts: dict[str, str] = {}
    custom = False
    for part in PARTS:
        name = f"{lang}.{part}.txt"
        override = Path(prompts_dir) / name if prompts_dir is not None else None
        if override is not None and override.is_file():
            try:
                texts[part] = override.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(problem(override, None, None, f"cannot read the prompt template: {exc}")) from None
            custom = True
            _check_template(override, part, texts[part])
        else:
            texts[part] = resources.files("ragtui.core.judge").joinpath("prompts", name).read_text(encoding="utf-8")
    digest = hashlib.sha256()
    for part in PARTS:
        digest.update(texts[part].encode("utf-8") + b"\0")
    digest.update(repr(sorted(_LABELS[lang].items())).encode("utf-8") + RENDER_VERSION.encode())
    name = f"{'custom' if custom else 'ragtui'}-{lang}"
    return PromptSet(lang, texts["system"], texts["user"], texts["repair"], f"{name}@{digest.hexdigest()[:10]}")


def _check_template(path: Path, part: str, text: str) -> None:
    """Render once with dummy values so a typo fails before any paid call."""
    try:
        string.Template(text).substitute(_PLACEHOLDERS[part])
    except KeyError as exc:
        known = ", ".join(f"${k}" for k in _PLACEHOLDERS[part]) or "none"
        raise InputError(problem(path, None, None, f"unknown placeholder ${exc.args[0]} (known: {known}; write $$ for a dollar sign)")) from None
    except ValueError as exc:
        raise InputError(problem(path, None, None, f"bad placeholder: {exc} (write $$ for a dollar sign)")) from None
