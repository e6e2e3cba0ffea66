"""Can the app draw here? It needs a terminal on standard input and output.

Without one (`ragtui </dev/null`, `ssh host ragtui` without `-t`, a cron job, `TERM=dumb`
in an editor's shell) Textual would spin writing escape codes nobody reads; ragtui says
so at once and points to the command that needs no screen. Only stdlib here: this runs
before Textual is imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import IO

NEEDS_TERMINAL = "needs an interactive terminal — use `ragtui report`"


def _is_terminal(stream: IO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # closed, or no file descriptor at all
        return False


def terminal_problem(
    stdin: IO | None = None, stdout: IO | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """Why the app cannot run here (one line for stderr), or None when it can.

    Args:
        stdin: the keyboard side (default `sys.stdin`).
        stdout: the screen side (default `sys.stdout`); standard error may be redirected.
        environ: the environment (default `os.environ`), for `TERM`.
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    environ = os.environ if environ is None else environ
    if not _is_terminal(stdin):
        reason = "standard input is not a terminal; with ssh, add -t"
    elif not _is_terminal(stdout):
        reason = "standard output is not a terminal"
    elif environ.get("TERM", "").strip().lower() == "dumb":
        reason = "TERM=dumb cannot draw a screen"
    else:
        return None
    return f"ragtui: {NEEDS_TERMINAL} ({reason})"
