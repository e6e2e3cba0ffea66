"""Show a text in the user's $PAGER or $EDITOR, with the app suspended meanwhile.

The text goes to a private temporary file (read-only for the editor: it is a copy,
editing it changes nothing in the runs), the app gives the terminal to the program and
takes it back when the program exits, on the same screen and in the same place.
`edit_outside` is the one exception: a text the person means to change (a gold
expected answer), writable, and read back when the editor exits.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

DEFAULTS = {"PAGER": "less -R", "EDITOR": "vi"}


def command_for(variable: str) -> list[str]:
    """$PAGER / $EDITOR split as a shell would (`less -R`, `code --wait`), or the default."""
    value = os.environ.get(variable, "").strip() or DEFAULTS[variable]
    return shlex.split(value)


def show_outside(app: App, text: str, *, variable: str, name: str) -> str:
    """Run $PAGER or $EDITOR on `text`; returns what to tell the user."""
    argv = command_for(variable)
    folder = Path(tempfile.mkdtemp(prefix="ragtui-"))
    path = folder / name
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    if variable == "EDITOR":
        path.chmod(0o400)
    try:
        with app.suspend():
            result = subprocess.run([*argv, str(path)], check=False)
    except SuspendNotSupported:
        return f"cannot hand the terminal to ${variable} here"
    except OSError as exc:
        return f"${variable} ({argv[0]}) could not start: {exc.strerror or exc}"
    finally:
        path.chmod(0o600)
        path.unlink(missing_ok=True)
        folder.rmdir()
    app.refresh(layout=True)
    if result.returncode:
        return f"${variable} ({argv[0]}) exited with status {result.returncode}"
    return f"back from ${variable} ({argv[0]})"


def edit_outside(app: App, text: str, *, name: str) -> tuple[str | None, str]:
    """Let the person edit `text` in $EDITOR: (the text saved, None when the editor could
    not run or failed; what to tell the user)."""
    argv = command_for("EDITOR")
    folder = Path(tempfile.mkdtemp(prefix="ragtui-"))
    path = folder / name
    path.write_text(text + "\n", encoding="utf-8")
    path.chmod(0o600)
    try:
        with app.suspend():
            result = subprocess.run([*argv, str(path)], check=False)
        edited = path.read_text(encoding="utf-8", errors="replace")
    except SuspendNotSupported:
        return None, "cannot hand the terminal to $EDITOR here"
    except OSError as exc:
        return None, f"$EDITOR ({argv[0]}) could not start: {exc.strerror or exc}"
    finally:
        path.unlink(missing_ok=True)
        folder.rmdir()
    app.refresh(layout=True)
    if result.returncode:
        return None, f"$EDITOR ({argv[0]}) exited with status {result.returncode}: nothing changed"
    return edited.strip(), f"back from $EDITOR ({argv[0]})"
