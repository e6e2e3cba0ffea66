"""Keep API keys out of everything ragtui writes: OUT, the cache, logs, error messages.

The key only ever lives in the request headers. Anything else that could carry it —
a server's error body that echoes the Authorization header (as it is, in base64, cut in
two), an exception message — goes through `redact` before it is stored or shown; a
server's reply headers are never shown at all.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from urllib.parse import quote

MASK = "[REDACTED]"
# Header names whose values are credentials, compared lower-cased.
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie"})


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with each secret replaced by [REDACTED] wherever it shows: whole or in pieces
    (a server that echoes a key in two halves), as it is, percent-encoded, JSON-escaped, in
    hex or in base64 (standard or URL-safe, at any of its three alignments in a longer
    encoded text, as an `Authorization: Basic` value or a JSON body encodes it)."""
    masked = bytearray(len(text))
    for secret in secrets:
        # A very short "key" (a test placeholder like "x") would mask half the text.
        if secret and len(secret) >= 4:
            for form in _forms(secret):
                _mark(text, form, masked)
    if not any(masked):
        return text
    out, at = [], 0
    while at < len(text):
        end = at
        while end < len(text) and masked[end] == masked[at]:
            end += 1
        out.append(MASK if masked[at] else text[at:end])
        at = end
    return "".join(out)


# The shortest piece of a key masked on its own: long enough never to match by chance in
# a message, short enough that a key cut in two (or more) still has every piece masked.
PIECE = 8


def _forms(secret: str) -> set[str]:
    """The secret as the usual encodings write it."""
    raw = secret.encode("utf-8")
    forms = {secret, quote(secret, safe=""), raw.hex(), json.dumps(secret)[1:-1]}
    for shift in range(3):  # base64 of the key after 0, 1 or 2 other bytes
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        stable = encoded[-(-shift * 4 // 3) : len(encoded) - 4]  # the characters no neighbour changes
        forms |= {stable, stable.replace("+", "-").replace("/", "_")}
    return {form for form in forms if len(form) >= min(len(secret), PIECE)}


def _mark(text: str, form: str, masked: bytearray) -> None:
    """Mark every occurrence in `text` of `form`, and of each of its PIECE-long pieces."""
    size = min(len(form), PIECE)
    for start in range(len(form) - size + 1):
        piece = form[start : start + size]
        found = text.find(piece)
        while found != -1:
            masked[found : found + size] = b"\1" * size
            found = text.find(piece, found + 1)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers safe to log: credential values replaced by [REDACTED]."""
    return {name: (MASK if name.lower() in SECRET_HEADERS else value) for name, value in headers.items()}
