"""The user's folders, as the XDG base directory spec names them: one rule for every ragtui folder.

`$XDG_CACHE_HOME/ragtui` (parsed runs, kept dashboards), `$XDG_CONFIG_HOME/ragtui` (themes,
key map), `$XDG_DATA_HOME/ragtui` (what the user makes on the bundled sample: labels,
marks). A variable that is unset, empty or relative is ignored, as the spec says.
"""

from __future__ import annotations

import os
from pathlib import Path


def xdg_dir(variable: str, fallback: str) -> Path:
    """`$VARIABLE/ragtui`, else `~/FALLBACK/ragtui` (`XDG_DATA_HOME`, `.local/share`); it need not exist."""
    base = os.environ.get(variable, "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / fallback
    return root / "ragtui"


def data_root() -> Path:
    """`$XDG_DATA_HOME/ragtui`, else `~/.local/share/ragtui`."""
    return xdg_dir("XDG_DATA_HOME", ".local/share")
