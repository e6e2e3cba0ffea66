"""The dashboard of runs opened before, drawn at once while they are read again.

Opening the same runs again gives the same values, so each comparison's dashboard values
(`DashboardData`: plain values, the intervals still pending) are kept in a small file in
the user's cache folder, `cache_root()/dashboards`. On the next open the app draws that
copy first, before polars and numpy are even imported, then loads the runs as always:
the loaded values take the copy's place (the screen is redrawn only where they differ),
and the intervals follow as before (docs/ui.md, "Opening").

A copy is never stale. It is read only under a key that covers the state of everything
the values come from:
- each file the comparison reads, present or not (`Inputs.local_files`: the runs, the
  gold set, the config, the labels files): its device, inode, size, modification and
  change times, and its SHA-1 when it is small;
- the command's settings (k, format, variants, whose verdicts make the status…);
- ragtui's own code, and the polars and numpy it runs with.
What the key alone cannot rule out (a large run rewritten at the same size within one
tick of the file clock) the load that follows catches: it redraws what differs.

The file is read by an unpickler that builds only the dashboard's value types, so a file
someone else put in the cache folder cannot make ragtui run code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtui.core.loading.run_cache import cache_root, file_digest, file_identity
from ragtui.ui.models.dashboard import DashboardData

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs

# Raised whenever what a copy holds, or how it is keyed, changes.
DASHBOARD_CACHE_VERSION = 2
FOLDER = "dashboards"
KEEP = 64  # copies kept, the most recently used (each a few kilobytes)
_HASHED_UP_TO = 4 * 1000**2  # files this small are also keyed by their bytes (4 ms a file at most)
_SUFFIX = ".pickle"
# Where the classes a copy may hold are defined: plain frozen dataclasses, nothing else.
_VALUE_MODULES = frozenset({
    "ragtui.ui.models.dashboard",
    "ragtui.core.comparing.result",
    "ragtui.core.measuring.metric_specs",
    "ragtui.core.measuring.label_values",
})


def dashboards_folder() -> Path:
    return cache_root() / FOLDER


def dashboard_key(inputs: Inputs) -> str | None:
    """The key of these inputs as they are now; None where no copy is kept: `--no-cache`,
    or a run at an address (its state is not known without reading it)."""
    files = inputs.local_files() if inputs.cache else None
    if files is None:
        return None
    settings = [inputs.k, inputs.fmt, inputs.detail, list(inputs.variants), inputs.status_from]
    material = [DASHBOARD_CACHE_VERSION, _code_state(), settings, *(_file_state(path) for path in files)]
    return hashlib.sha1(json.dumps(material, default=str).encode()).hexdigest()


def read_dashboard(key: str) -> DashboardData | None:
    """The copy kept under `key`, or None (none kept, or unreadable: the load draws the dashboard)."""
    path = dashboards_folder() / f"{key}{_SUFFIX}"
    try:
        with path.open("rb") as handle:
            data = _ValuesOnly(handle).load()
    except Exception:  # noqa: BLE001 — a damaged copy of any kind is no copy: the load draws the dashboard, and keeps it anew
        return None
    with contextlib.suppress(OSError):  # a cache that cannot be written is still read
        os.utime(path)  # most recently used: pruned last
    return data if isinstance(data, DashboardData) else None


def save_dashboard(key: str, data: DashboardData) -> None:
    """Keep `data`'s values under `key` (atomically), then prune to the `KEEP` most recent.

    Raises OSError when the cache folder cannot be written (the app says so)."""
    from ragtui.core.atomic import atomic_writer  # only after a load: kept off the way to the first paint

    folder = dashboards_folder()
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_writer(folder / f"{key}{_SUFFIX}", "wb", encoding=None) as handle:
        pickle.dump(replace(data, comparison=None), handle, protocol=pickle.HIGHEST_PROTOCOL)
    _prune(folder)


def clear_dashboards() -> tuple[int, int]:
    """Remove every kept dashboard; (copies, bytes) removed."""
    count = size = 0
    with contextlib.suppress(FileNotFoundError):
        for path in dashboards_folder().iterdir():
            with contextlib.suppress(OSError):
                found = path.stat().st_size
                path.unlink()
                count, size = count + (path.suffix == _SUFFIX), size + found
    return count, size


def kept_dashboards() -> tuple[int, int]:
    """(copies, bytes) kept now, for `ragtui cache`."""
    sizes = []
    with contextlib.suppress(FileNotFoundError):
        for path in dashboards_folder().glob(f"*{_SUFFIX}"):
            with contextlib.suppress(OSError):
                sizes.append(path.stat().st_size)
    return len(sizes), sum(sizes)


def _prune(folder: Path) -> None:
    copies = []
    for path in folder.glob(f"*{_SUFFIX}"):
        with contextlib.suppress(OSError):
            copies.append((path.stat().st_mtime_ns, path))
    for _, path in sorted(copies, reverse=True)[KEEP:]:
        with contextlib.suppress(OSError):
            path.unlink()


def _file_state(path: Path) -> list[Any]:
    """A file's place and state; an absent file is a state too (a labels file not yet written)."""
    try:
        identity = file_identity(path)
        resolved = str(path.resolve())
    except OSError:
        return [str(path.absolute()), "absent"]
    state: list[Any] = [resolved, *identity]
    if identity[2] <= _HASHED_UP_TO:
        with contextlib.suppress(OSError):
            state.append(file_digest(path))
    return state


@functools.cache
def _code_state() -> list[Any]:
    """What ragtui computes the values with: its own sources, Python, polars and numpy.

    Taken once a process: an app start keys its inputs three times (the copy read, then
    before and after the load), and the code it runs does not change meanwhile."""
    package = Path(__file__).resolve().parents[2]  # ragtui/
    sources = []
    for folder, _, names in os.walk(package):
        for name in names:
            if name.endswith(".py"):
                with contextlib.suppress(OSError):
                    stat = os.stat(os.path.join(folder, name))
                    sources.append((os.path.relpath(os.path.join(folder, name), package), stat.st_size, stat.st_mtime_ns))
    libraries = []
    for library in ("polars", "numpy"):
        spec = importlib.util.find_spec(library)  # finds the package without importing it
        origin = spec.origin if spec is not None else None
        with contextlib.suppress(OSError, TypeError):
            stat = os.stat(origin)  # type: ignore[arg-type]
            libraries.append((library, origin, stat.st_size, stat.st_mtime_ns))
    return [sys.version, sorted(sources), libraries]


class _ValuesOnly(pickle.Unpickler):
    """Builds the dashboard's own frozen dataclasses and Python's plain values, nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if module in _VALUE_MODULES:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a dashboard value")
