"""List cells as pandas writes them into a CSV: Python literals, read without running code.

`to_csv` writes a list as its Python repr (`['a', "l'article"]`), and a numpy array of
strings as numpy's repr, without commas (`['a' 'b']`, RAGAS 0.1). `ast.literal_eval` builds
literals only and never runs code; numpy's repr is read one string literal at a time, since
Python would join adjacent strings into one.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

from ragtui.core.loading import bounded_json


def list_literal(cell: str) -> Any:
    """Parse a Python list literal safely; returns the reason as a str when it cannot.

    `ast.literal_eval` builds literals only and never runs code; a JSON array (with
    `null` or `true`) is accepted too. Deeply nested input fails with RecursionError,
    caught here like any other malformed cell.
    """
    stripped = cell.strip()
    if not stripped.startswith(("[", "(")):
        return "expected [ at the start"
    if _adjacent_strings(stripped):
        strings = _numpy_strings(stripped)
        return strings if strings is not None else "strings without commas between them, mixed with other items"
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) and exc.msg else type(exc).__name__
    try:
        return bounded_json.loads(stripped)
    except (ValueError, RecursionError):
        return reason


def _numpy_strings(cell: str) -> list[str] | None:
    """The strings of a numpy array's repr, `['a' "l'b"\n 'c']` (RAGAS 0.1's CSV cells), else None.

    Only a bracket, string literals separated by blanks or line breaks, and a bracket: each
    literal is read on its own, so Python's joining of adjacent strings never applies.
    """
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(cell).readline) if token.type not in skip]
    except (tokenize.TokenError, SyntaxError, RecursionError):
        return None
    if len(tokens) < 2 or (tokens[0].string, tokens[-1].string) != ("[", "]"):
        return None
    inner = tokens[1:-1]
    if not all(token.type == tokenize.STRING for token in inner):
        return None
    try:
        values = [ast.literal_eval(token.string) for token in inner]
    except (ValueError, SyntaxError):
        return None
    return values if all(isinstance(value, str) for value in values) else None


def _adjacent_strings(cell: str) -> bool:
    """True when two string literals follow each other: `['a' 'b']`.

    Python reads them as one string ('ab'), so numpy's repr of an array of strings
    would parse silently into the wrong list.
    """
    previous = None
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    try:
        for token in tokenize.generate_tokens(io.StringIO(cell).readline):
            if token.type in skip:
                continue
            if token.type == tokenize.STRING and previous == tokenize.STRING:
                return True
            previous = token.type
    except (tokenize.TokenError, SyntaxError, RecursionError):
        return False  # literal_eval will say what is wrong
    return False
