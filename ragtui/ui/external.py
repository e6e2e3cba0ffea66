"""Show a text in the user's $PAGER or $EDITOR, with the app suspended meanwhile.

The text goes, neutralised as the screen shows it, to a private temporary file (read-only for the editor: it is a copy,
editing it changes nothing in the runs), the app gives the terminal to the program and
takes it back when the program exits, on the same screen and in the same place.
`edit_outside` is the one exception: a text the person means to change (a gold
expected answer), writable, and read back when the editor exits.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

from ragtui.core.sanitize import neutralize

DEFAULTS = {"PAGER": "less -R", "EDITOR": "vi"}
_NAME_BYTES = 80


def command_for(variable: str) -> list[str]:
    """$PAGER / $EDITOR split as a shell would (`less -R`, `code --wait`), or the default."""
    value = os.environ.get(variable, "").strip() or DEFAULTS[variable]
    return shlex.split(value)


def file_name(name: str, suffix: str) -> str:
    """A temporary file's name from untrusted parts (an id may be 1,000 bytes of anything):
    letters, digits, `-_.` only, cut to fit any file system, with a hash of the whole name
    when it had to be cut, so two long ids still get two names."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "text"
    if len(cleaned) > _NAME_BYTES or cleaned != name:
        cleaned = f"{cleaned[:_NAME_BYTES]}-{hashlib.sha1(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return cleaned + suffix


def show_outside(app: App, text: str, *, variable: str, name: str, suffix: str = ".txt") -> str:
    """Run $PAGER or $EDITOR on `text` (neutralised as the screen shows it: `less -R` and
    editors pass escape sequences to the terminal); returns what to tell the user."""
    argv = command_for(variable)
    folder = Path(tempfile.mkdtemp(prefix="ragtui-"))
    path = folder / file_name(name, suffix)
    try:
        inert = neutralize(text)
        path.write_text(inert if inert.endswith("\n") else inert + "\n", encoding="utf-8")
        if variable == "EDITOR":
            path.chmod(0o400)
        with app.suspend():
            result = subprocess.run([*argv, str(path)], check=False)
    except SuspendNotSupported:
        return f"cannot hand the terminal to ${variable} here"
    except OSError as exc:
        return f"${variable} ({argv[0]}) could not start: {exc.strerror or exc}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # ours, made above: mkdtemp's private folder
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
