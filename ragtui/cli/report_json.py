"""The JSON report's text: `json.dumps(report, ensure_ascii=False, indent=2)`, byte for byte.

With an indent, the standard library encodes in Python, one value at a time: 2.0–2.4 s
for the report of two 1,000,000-question runs (45 MB), most of it in its long lists (the
question ids of each status, 175,435 regressions). Here a list of strings is joined by
one C call and a record's values are encoded by their type directly: 1.3–1.4 s. Anything
else goes back to `json.dumps`. A test holds the two to the same text on random values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring  # the C encoder where the interpreter has it
from typing import Any

_STEP = "  "


def _float(value: float) -> str:
    return json.dumps(value)  # NaN, Infinity and float repr as the standard library writes them


_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    float: _float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _: "null",
}


def report_json(value: Any) -> str:
    """`value` as `json.dumps(value, ensure_ascii=False, indent=2)` would write it."""
    return _encode(value, 0)


def _encode(value: Any, depth: int) -> str:
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        return scalar(value)
    inner, outer = "\n" + _STEP * (depth + 1), "\n" + _STEP * depth
    if type(value) is list:
        if not value:
            return "[]"
        if all(type(item) is str for item in value):
            return "[" + inner + ("," + inner).join(map(encode_basestring, value)) + outer + "]"
        if all(type(item) is dict for item in value):
            return "[" + inner + ("," + inner).join(_records(value, depth + 1)) + outer + "]"
        return "[" + inner + ("," + inner).join(_encode(item, depth + 1) for item in value) + outer + "]"
    if type(value) is dict and all(type(key) is str for key in value):
        if not value:
            return "{}"
        members = (encode_basestring(key) + ": " + _encode(item, depth + 1) for key, item in value.items())
        return "{" + inner + ("," + inner).join(members) + outer + "}"
    # Anything else (tuples, subclasses, keys that are not strings): the standard library,
    # its lines indented to this depth (a JSON string never holds a raw newline).
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + _STEP * depth)


def _records(records: list[dict[Any, Any]], depth: int) -> list[str]:
    """Each record of a list, its text and lists of text encoded in place (the regressions)."""
    inner, outer = "\n" + _STEP * (depth + 1), "\n" + _STEP * depth
    deeper = inner + _STEP
    encoded = []
    for record in records:
        members = []
        for key, item in record.items():
            if type(key) is not str:
                encoded.append(_encode(record, depth))
                break
            kind = type(item)
            if kind is str:
                text = encode_basestring(item)
            elif item is None:
                text = "null"
            elif kind is list and item and all(type(part) is str for part in item):
                text = "[" + deeper + ("," + deeper).join(map(encode_basestring, item)) + inner + "]"
            else:
                text = _encode(item, depth + 1)
            members.append(encode_basestring(key) + ": " + text)
        else:
            encoded.append("{" + inner + ("," + inner).join(members) + outer + "}" if members else "{}")
    return encoded
