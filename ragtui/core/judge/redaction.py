"""Keep API keys out of everything ragtui writes: OUT, the cache, logs, error messages.

The key only ever lives in the request headers. Anything else that could carry it —
a server's error body that echoes the Authorization header, an exception message —
goes through `redact` before it is stored or shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MASK = "[REDACTED]"
# Header names whose values are credentials, compared lower-cased.
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie"})


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every occurrence of each secret replaced by [REDACTED]."""
    for secret in secrets:
        # A very short "key" (a test placeholder like "x") would mask half the text.
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return text


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers safe to log: credential values replaced by [REDACTED]."""
    return {name: (MASK if name.lower() in SECRET_HEADERS else value) for name, value in headers.items()}
