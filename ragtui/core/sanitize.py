"""Neutralise control characters in untrusted text before it reaches a terminal.

Passages, questions, answers and judge output are data. A terminal interprets ESC
sequences (colours, OSC 52 clipboard writes, OSC 8 links, window titles), C1 controls
and bidi overrides that reorder what the reader sees; all of them are replaced by
visible stand-ins here. Markup safety is the UI's job (Content/Text, never markup);
this function only makes the characters themselves harmless, for the TUI and for
`ragtui report` alike.
"""

from __future__ import annotations

import re

# C0 controls except TAB and LF, DEL, C1 controls (U+0080–U+009F).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidi embeddings/overrides/isolates, zero-width and line/paragraph separators, and lone
# surrogates (no terminal or UTF-8 stream takes one: printing it would raise).
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def _control_picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␀ for NUL, …
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}"


def neutralize(text: object, *, keep_newlines: bool = True) -> str:
    """Return `text` with every terminal control and bidi override made visible and inert.

    ESC becomes ␛ (so `\\x1b[31m` shows as `␛[31m`), C1 controls and bidi overrides
    become `\\x9b` / `<U+202E>`. Tabs become spaces. With `keep_newlines=False`,
    newlines become spaces too (for one-line cells).
    """
    if text is None:
        return ""
    value = str(text)
    value = value.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        value = value.replace("\n", " ")
    value = _CONTROL.sub(_control_picture, value)
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", value)


# What a terminal acts on and JSON leaves raw (it escapes C0 controls itself): DEL, C1, bidi
# and invisible characters. They only ever stand inside JSON strings, where `\u009b`
# reads back as the same character.
_JSON_RAW_CONTROL = re.compile(f"[\x7f-\x9f]|{_INVISIBLE.pattern}")


def inert_json(text: str) -> str:
    """JSON text with DEL, C1 controls and bidi/invisible characters written as `\\uXXXX`
    escapes: the same JSON to any reader, inert on a terminal."""
    return _JSON_RAW_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")
# What GitHub turns into a link with no markup at all: `http://`, `https://`, `ftp://` and
# `www.`. A zero-width space after the scheme or `www` leaves the text readable and dead.
_BARE_LINK = re.compile(r"(?i)(?<![a-z0-9])(?:https?|ftp)(?=://)|(?<![a-z0-9])www(?=\.)")


def markdown_cell(text: object) -> str:
    """Untrusted text as one line of inert markdown (a table cell, a list item).

    Controls are neutralised, newlines become spaces, and every character markdown or
    HTML would act on (`|`, backtick, `<`, `[`, `*`, …) is backslash-escaped, and a bare
    address (`https://…`, `www.…`) is broken by a zero-width space, so a note cannot break
    the table, open a link or ping anyone in a PR comment.
    """
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", neutralize(text, keep_newlines=False))
    value = _BARE_LINK.sub(lambda m: m.group() + "\u200b", value)
    return value.replace("@", "@\u200b") if "@" in value else value
