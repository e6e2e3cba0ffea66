"""The `run` object of a run ragtui makes: what was asked, of what, when, by which ragtui.

`name`, `created_at`, `k`, `fallback_phrases`, `gold_set` (as given) with `gold_set_sha1`,
`ragtui_version`, `system` (how it was reached: `python retr.py:chercher + …`, an
endpoint's address without credentials or query, a command) and, when the system's code
lives in a git work tree, `system_commit` and `system_dirty`. Header values and
environment variables are never part of it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragtui.core.loading.run_cache import file_digest
from ragtui.version import __version__


def git_state(paths: Iterable[Path]) -> dict[str, Any]:
    """`{"system_commit", "system_dirty"}` of the git work tree holding the first of `paths`, or {}.

    Dirty means the work tree differs from the commit (tracked changes or new files):
    the answers may come from code no commit holds.
    """
    for path in paths:
        folder = path.resolve().parent if path.is_file() else path.resolve()
        try:
            commit = subprocess.run(
                ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
            )
            if commit.returncode != 0:
                continue
            status = subprocess.run(
                ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=normal"],
                capture_output=True, text=True, timeout=10, check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return {}
        return {"system_commit": commit.stdout.strip(), "system_dirty": bool(status.stdout.strip())}
    return {}


def run_metadata(
    *,
    name: str,
    k: int,
    gold_path: Path,
    system: str,
    fallback_phrases: tuple[str, ...],
    sources: Iterable[Path] = (),
) -> dict[str, Any]:
    """The metadata line of a new run (docs/formats.md)."""
    meta: dict[str, Any] = {
        "name": name,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "system": system,
        "k": k,
        "fallback_phrases": list(fallback_phrases),
        "gold_set": str(gold_path),
        "gold_set_sha1": file_digest(gold_path),
        "ragtui_version": __version__,
    }
    meta.update(git_state(sources))
    return meta
