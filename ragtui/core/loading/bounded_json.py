"""JSON decoded within bounds: the one `loads` for runs, peer tools' files and judge replies.

Python's decoder builds whatever a document asks for: an array nested thousands deep ends
in RecursionError, a 5,000-digit integer in ValueError (Python refuses str→int past 4,300
digits), and an escaped lone surrogate (`"\\ud800"`) decodes into a string that no UTF-8
stream can then write. Each is a `json.JSONDecodeError` here, so every caller's one
`except json.JSONDecodeError` reports it like any malformed document, at its position.

The checks cost little on ordinary files: the decoder's own RecursionError is caught, the
decoded value is walked for its depth (containers only) when the text has more than
MAX_DEPTH brackets, integers are checked by the decoder's hook as they are read, and the
surrogate walk runs only where a `\\uD8..`-style escape is found.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Deeper than any run, peer tool log or judge reply (a few levels), far shallower than
# the recursion a decoder or a later walk over the value could survive.
MAX_DEPTH = 64
MAX_INT_DIGITS = 100  # Python itself refuses str→int past 4,300 digits

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's, matched where it stands (no copy of the text)


class _NumberTooLong(Exception):
    def __init__(self, text: str):
        self.text = text


def loads(text: str | bytes) -> Any:
    """`json.loads`, with nesting, number length and lone surrogates bounded.

    Raises `json.JSONDecodeError` (its `msg` says which bound) for anything refused.
    """
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")  # a UnicodeDecodeError, as json.loads would raise
    value, end = raw_decode(text, _skip_whitespace(text, 0))
    end = _skip_whitespace(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _skip_whitespace(text: str, position: int) -> int:
    found = _WHITESPACE.match(text, position)
    return found.end() if found else position


def raw_decode(text: str, position: int = 0) -> tuple[Any, int]:
    """`json.JSONDecoder().raw_decode(text, position)` within the same bounds as `loads`:
    (the value starting at `position`, where it ends); what follows is not read."""
    try:
        value, end = _DECODER.raw_decode(text, position)
    except _NumberTooLong as exc:
        raise json.JSONDecodeError(f"an integer of more than {MAX_INT_DIGITS} digits", text, max(text.find(exc.text), 0)) from None
    except RecursionError:  # the decoder's own bound, thousands of levels down
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, position) from None
    if type(value) in (dict, list) and text.count("[", position, end) + text.count("{", position, end) > MAX_DEPTH:
        _check_depth(value, text)
    # A pair of escapes decodes into one character; a lone one stays. `in` first: it is
    # several times faster than the pattern over a text that has no escape at all.
    surrogate = _SURROGATE_ESCAPE.search(text, position, end) if "\\u" in text else None
    if surrogate and has_lone_surrogate(value):
        raise json.JSONDecodeError("a lone surrogate escape (\\ud800–\\udfff without its pair)", text, surrogate.start())
    return value, end


def _check_depth(value: Any, text: str) -> None:
    """Walk the decoded containers once, without recursion, for their depth."""
    containers = (dict, list)
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= MAX_DEPTH:
            raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, 0)
        children = item.values() if type(item) is dict else item
        stack.extend([(child, depth + 1) for child in children if type(child) in containers])


def has_lone_surrogate(value: Any) -> bool:
    """Whether any string in `value` (its keys included) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is str:
            if _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _NumberTooLong(text)
    return int(text)


# Integers only: a run has ten times more floats than integers, a Python call for each
# float cost a third of the decode, and a float of any length decodes (to inf at worst).
_DECODER = json.JSONDecoder(parse_int=_int)
