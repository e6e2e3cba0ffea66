"""The one way a message reaches the person at the terminal: neutralised, one line.

Problems, warnings, `validate` lines and gate lines quote file names, ids and run names
from files. Each message goes through `neutralize` here, so an OSC sequence in a
duplicate id cannot set the terminal's title or write its clipboard, and a newline in
an id cannot forge a second `ragtui:` line.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from ragtui.core.sanitize import neutralize


def say(text: object, stream: TextIO | None = None) -> None:
    """Print `text` as one inert line on `stream` (default: stderr)."""
    print(neutralize(text, keep_newlines=False), file=stream if stream is not None else sys.stderr)


class InertFormatter(logging.Formatter):
    """A log formatter whose lines are inert like `say`'s: the judge logs the servers' own
    words (an error body, a refused request), and they must not reach the terminal raw."""

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        line = neutralize(self.formatMessage(record), keep_newlines=False)
        if record.exc_info:  # a traceback keeps its lines; what it quotes is made inert all the same
            line += "\n" + neutralize(self.formatException(record.exc_info))
        return line

