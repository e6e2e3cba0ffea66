"""Turn a judge model's reply into verdicts, or into a precise reason why not.

Models wrap JSON in code fences, put prose around it, use the course's French keys,
answer "oui" instead of true, forget a sentence. Extraction is tolerant of the form
(fences, prose, trailing commas, French keys); validation is strict about the content:
one verdict per sentence, a boolean verdict, an integer score from 1 to 5. A reply
that fails raises ParseError with a message meant to be sent back to the model in the
repair request, and later shown to the user — never a NaN, never a guess.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from ragtui.core.errors import shown
from ragtui.core.loading import bounded_json

# Aliases after key normalisation (lower case, accents and separators removed).
_SENTENCES_KEYS = ("sentences", "phrases", "verdicts", "claims")
_TEXT_KEYS = ("text", "texte", "sentence", "phrase")
_ATTESTED_KEYS = ("attested", "atteste", "supported", "faithful", "fidele", "verdict")
_EVIDENCE_KEYS = ("evidence", "evidences", "preuves", "preuve", "sources", "passages", "citations")
_REASON_KEYS = ("reason", "raison", "justification", "explanation", "explication", "rationale")
_UTILITY_KEYS = ("utility", "utilite", "usefulness")
_SCORE_KEYS = ("score", "note", "value")
_NUMBER_KEYS = ("n", "index", "numero", "id", "number")
# The judge's flag for a block that tried to instruct it (the system prompt asks for it).
_INJECTION_KEYS = ("injection", "promptinjection", "tentativedinjection", "tentativeinjection")

_TRUE = {"true", "yes", "oui", "vrai", "attested", "atteste", "attestee", "supported", "1"}
_FALSE = {"false", "no", "non", "faux", "not attested", "non atteste", "non attestee", "unsupported", "0"}

# The JSON schema sent to providers that can enforce one (see providers.py).
VERDICT_SCHEMA_NAME = "ragtui_judge_verdicts"


class ParseError(ValueError):
    """The reply cannot be used; the message says why, in words the model can act on."""


@dataclass(frozen=True)
class Verdict:
    """Validated verdicts of one answer."""

    sentences: list[dict[str, Any]]
    utility: dict[str, Any]
    injection: bool = False  # the judge says a block tried to instruct it


def verdict_schema(n_sentences: int) -> dict[str, Any]:
    """A JSON schema for the reply, with the sentence count fixed (strict-mode compatible)."""
    item = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "reason": {"type": "string"},
            "evidence": {"type": "array", "items": {"type": "string"}},
            "attested": {"type": "boolean"},
        },
        "required": ["n", "reason", "evidence", "attested"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "sentences": {"type": "array", "items": item, "minItems": n_sentences, "maxItems": n_sentences},
            "utility": {
                "type": "object",
                "properties": {"reason": {"type": "string"}, "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
                "required": ["reason", "score"],
                "additionalProperties": False,
            },
            "injection": {"type": "boolean"},
        },
        "required": ["sentences", "utility", "injection"],
        "additionalProperties": False,
    }


def parse_verdict(text: str, sentences: list[str], passage_ids: list[str]) -> Verdict:
    """Extract and validate the verdicts for `sentences` from a reply. Raises ParseError."""
    return validate(extract_json_object(text), sentences, passage_ids)


# -- extraction -------------------------------------------------------------------

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a reply: bare, fenced, or surrounded by prose. Raises ParseError."""
    if text is None or not str(text).strip():
        raise ParseError("the reply is empty")
    text = str(text).strip().lstrip("\ufeff")
    candidates = [text] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for candidate in candidates:
        obj = _loads_object(candidate)
        if obj is not None:
            return obj
    found = _embedded_objects(text) or _embedded_objects(_without_trailing_commas(text))
    for obj in found:
        if _looks_like_verdicts(obj):
            return obj
    if "{" not in text:
        raise ParseError("the reply holds no JSON object; reply with the JSON object only")
    if _unclosed(text[text.index("{") :]):  # inner objects of a cut-off one are no answer
        raise ParseError("the JSON object is cut off before its end (truncated reply)")
    if found:
        return found[0]
    raise ParseError("the reply's JSON is malformed; reply with one valid JSON object only")


def _without_trailing_commas(text: str) -> str:
    return re.sub(r",\s*([}\]])", r"\1", text)


def _loads_object(chunk: str) -> dict[str, Any] | None:
    for attempt in (chunk, _without_trailing_commas(chunk)):
        try:
            obj = bounded_json.loads(attempt)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _embedded_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object that starts at some "{" of `text`, outermost first.

    raw_decode parses one value and ignores what follows, so prose before and after an
    object — or a stray "{" in the prose — does not hide it.
    """
    objects: list[dict[str, Any]] = []
    position = text.find("{")
    while position != -1:
        try:
            obj, end = bounded_json.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(obj, dict):
            objects.append(obj)
        position = text.find("{", end)
    return objects


def _unclosed(text: str) -> bool:
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth > 0 or in_string


def _looks_like_verdicts(obj: dict[str, Any]) -> bool:
    keys = {_norm_key(k) for k in obj}
    return bool(keys & set(_SENTENCES_KEYS + _UTILITY_KEYS + ("faithfulness",)))


# -- validation -------------------------------------------------------------------


def _norm_key(key: Any) -> str:
    text = unicodedata.normalize("NFKD", str(key)).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[\s_-]+", "", text)


@functools.lru_cache(maxsize=512)
def _norm_key_cached(key: str) -> str:
    return _norm_key(key)


def _get(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    normalised = {_norm_key_cached(k) if isinstance(k, str) else _norm_key(k): v for k, v in obj.items()}
    for key in keys:
        if key in normalised:
            return normalised[key]
    return None


def validate(obj: dict[str, Any], sentences: list[str], passage_ids: list[str]) -> Verdict:
    """Check a parsed reply against the expected sentences. Raises ParseError."""
    items = _get(obj, _SENTENCES_KEYS)
    if items is None and isinstance(_get(obj, ("faithfulness", "fidelite")), dict):
        items = _get(_get(obj, ("faithfulness", "fidelite")), _SENTENCES_KEYS)  # our own output shape
    if items is None:
        raise ParseError('the object has no "sentences" array')
    if not isinstance(items, list):
        raise ParseError(f'"sentences" must be an array, found {type(items).__name__}')
    if len(items) != len(sentences):
        raise ParseError(f'expected {len(sentences)} item(s) in "sentences" (one per numbered sentence), found {len(items)}')
    items = _in_sentence_order(items)
    known = set(passage_ids)
    verdicts = []
    for number, (item, text) in enumerate(zip(items, sentences), start=1):
        if not isinstance(item, dict):
            raise ParseError(f"sentence {number}: expected an object, found {type(item).__name__}")
        verdicts.append(
            {
                "text": text,
                "attested": _attested(_get(item, _ATTESTED_KEYS), number),
                "evidence": _evidence(_get(item, _EVIDENCE_KEYS), known),
                "reason": _text(_get(item, _REASON_KEYS)),
            }
        )
    return Verdict(verdicts, _utility(_get(obj, _UTILITY_KEYS)), _injection(_get(obj, _INJECTION_KEYS)))


def _injection(value: Any) -> bool:
    """The judge's injection flag; absent means not reported (older prompts never ask)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower().strip()
        if word in _TRUE:
            return True
        if word in _FALSE or word in {"none", "null", ""}:
            return False
    raise ParseError(f'"injection" must be true or false, found {shown(value)}')


def _in_sentence_order(items: list[Any]) -> list[Any]:
    """Items reordered by their sentence number when every item has a distinct valid one."""
    numbers = []
    for item in items:
        value = _get(item, _NUMBER_KEYS) if isinstance(item, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit():
            return items
        numbers.append(int(str(value).strip()))
    if sorted(numbers) != list(range(1, len(items) + 1)):
        return items
    return [item for _, item in sorted(zip(numbers, items), key=lambda pair: pair[0])]


def _attested(value: Any, number: int) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = _norm_key(value.replace("_", " ")).strip()
        spaced = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower().strip()
        if word in _TRUE or spaced in _TRUE:
            return True
        if word in _FALSE or spaced in _FALSE or word in {"notattested", "nonatteste", "nonattestee"}:
            return False
    if value is None:
        raise ParseError(f'sentence {number}: missing "attested" (true or false)')
    raise ParseError(f'sentence {number}: "attested" must be true or false, found {shown(value)}')


def _evidence(value: Any, known: set[str]) -> list[str]:
    """Cited passage ids that exist; the judge's invented or mangled ids are dropped."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    ids: list[str] = []
    for item in values:
        if isinstance(item, (str, int)):
            ident = str(item).strip().strip("[]<>\"'` ")
            if ident in known and ident not in ids:
                ids.append(ident)
    return ids


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _utility(value: Any) -> dict[str, Any]:
    if value is None:
        raise ParseError('the object has no "utility" (with an integer "score" from 1 to 5 and a "reason")')
    if isinstance(value, dict):
        score, reason = _get(value, _SCORE_KEYS), _text(_get(value, _REASON_KEYS))
    else:
        score, reason = value, ""
    return {"score": _score(score), "reason": reason}


def _score(value: Any) -> int:
    if isinstance(value, bool):
        raise ParseError(f"utility score must be an integer from 1 to 5, found {value}")
    number: float | None = None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\d+(?:[.,]0+)?\s*(?:/\s*5)?\s*", value):
        leading = re.match(r"\s*(\d+)", value)
        number = float(leading.group(1)) if leading else None
    if number is None or number != number or not number.is_integer() or not 1 <= number <= 5:
        raise ParseError(f"utility score must be an integer from 1 to 5, found {shown(value) if value is not None else 'nothing'}")
    return int(number)
