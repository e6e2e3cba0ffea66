"""The kept dashboard (`ragtui.ui.models.dashboard_cache`): keyed by the state of every
input, never read stale, read without running code or importing polars and numpy."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.loading.inputs import default_labels_path
from ragtui.ui import loader
from ragtui.ui.models import dashboard_cache
from ragtui.ui.models.dashboard_cache import (
    KEEP,
    clear_dashboards,
    dashboard_key,
    dashboards_folder,
    kept_dashboards,
    read_dashboard,
    save_dashboard,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def loaded(two_runs):
    """The dashboard values of the fixture's runs, loaded (and kept) as the app loads them."""
    return loader._prepare(two_runs)


def _touch_later(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_a_load_keeps_its_dashboard_and_it_reads_back_equal_without_the_comparison(two_runs, loaded):
    kept = read_dashboard(dashboard_key(two_runs))
    assert kept is not None and kept == loaded
    assert kept.comparison is None and loaded.comparison is not None
    assert kept.intervals_pending  # the copy is of the values: the intervals are computed each time


def test_the_key_is_the_same_for_the_same_inputs_and_none_without_the_cache(two_runs):
    assert dashboard_key(two_runs) == dashboard_key(replace(two_runs))
    assert dashboard_key(replace(two_runs, cache=False)) is None


@pytest.mark.parametrize("change", ["touch", "truncate", "same-size rewrite", "append"])
@pytest.mark.parametrize("which", ["a", "b", "gold", "config"])
def test_any_change_to_an_input_file_changes_the_key(two_runs, fixture_paths, which, change):
    before = dashboard_key(two_runs)
    path = fixture_paths[which]
    data = path.read_bytes()
    if change == "touch":
        _touch_later(path)
    elif change == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif change == "same-size rewrite":
        stat = path.stat()
        index = data.index(b"e")  # one letter changed, size and timestamps put back
        path.write_bytes(data[:index] + b"E" + data[index + 1 :])
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    else:
        path.write_bytes(data + b"\n")
    assert dashboard_key(two_runs) != before


def test_a_labels_file_written_beside_a_run_changes_the_key(two_runs):
    before = dashboard_key(two_runs)
    default_labels_path(two_runs.b).write_text("", encoding="utf-8")
    assert dashboard_key(two_runs) != before


def test_a_ragtui_yaml_appearing_in_the_current_folder_changes_the_key_when_no_config_is_given(two_runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inputs = replace(two_runs, config=None)
    before = dashboard_key(inputs)
    (tmp_path / "ragtui.yaml").write_text("k: 3\n", encoding="utf-8")
    assert dashboard_key(inputs) != before


@pytest.mark.parametrize("setting", [{"k": 3}, {"status_from": "tool"}, {"fmt": "ragtui"}, {"variants": (0, None)}])
def test_a_different_setting_gives_a_different_key(two_runs, setting):
    assert dashboard_key(replace(two_runs, **setting)) != dashboard_key(two_runs)


def test_a_change_to_ragtuis_own_code_changes_the_key(two_runs, monkeypatch):
    before = dashboard_key(two_runs)
    real = dashboard_cache._code_state
    monkeypatch.setattr(dashboard_cache, "_code_state", lambda: [*real(), ("ragtui/core/measuring/metrics.py", 1, 2)])
    assert dashboard_key(two_runs) != before


def test_a_run_at_an_address_keeps_no_dashboard(two_runs):
    from ragtui.core.loading.remote import RemoteLocation

    remote = RemoteLocation("https://example.invalid/runs/b.parquet")
    assert dashboard_key(replace(two_runs, b=remote)) is None


def test_inputs_changed_during_the_load_keep_nothing(two_runs, fixture_paths, monkeypatch):
    from ragtui.core import session

    real = session.load_comparison

    def load_then_change(inputs, **kwargs):
        comparison = real(inputs, **kwargs)
        _touch_later(fixture_paths["b"])  # written to while it was read: the values are of neither state
        return comparison

    monkeypatch.setattr(session, "load_comparison", load_then_change)
    key_before = dashboard_key(two_runs)
    loader._prepare(two_runs)
    assert read_dashboard(key_before) is None and read_dashboard(dashboard_key(two_runs)) is None
    assert kept_dashboards() == (0, 0)


def test_a_cache_folder_that_cannot_be_written_is_said_in_the_warnings(two_runs, monkeypatch):
    def refuse(key, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(dashboard_cache, "save_dashboard", refuse)
    data = loader._prepare(two_runs)
    assert data.warnings[-1] == f"the dashboard could not be kept for the next open: {dashboards_folder()}: Permission denied"


def test_a_file_that_is_not_a_dashboard_is_refused_without_running_it(two_runs, tmp_path):
    key = dashboard_key(two_runs)
    marker = tmp_path / "ran"

    class Hostile:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    dashboards_folder().mkdir(parents=True)
    (dashboards_folder() / f"{key}.pickle").write_bytes(pickle.dumps(Hostile()))
    assert read_dashboard(key) is None
    assert not marker.exists()


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps({"runs": ()}), pickle.dumps(3)])
def test_an_unreadable_or_foreign_file_reads_as_no_dashboard(two_runs, content):
    key = dashboard_key(two_runs)
    dashboards_folder().mkdir(parents=True)
    (dashboards_folder() / f"{key}.pickle").write_bytes(content)
    assert read_dashboard(key) is None


def test_a_damaged_copy_is_replaced_by_the_next_load(two_runs, loaded):
    key = dashboard_key(two_runs)
    (dashboards_folder() / f"{key}.pickle").write_bytes(pickle.dumps(replace(loaded, comparison=None))[:-40])
    assert read_dashboard(key) is None
    assert loader._prepare(two_runs) == loaded
    assert read_dashboard(key) == loaded


def test_only_the_most_recently_used_dashboards_are_kept(loaded):
    clear_dashboards()  # the fixture's own
    for number in range(KEEP + 5):
        save_dashboard(f"{number:040x}", loaded)
        path = dashboards_folder() / f"{number:040x}.pickle"
        os.utime(path, ns=(number * 10**9, number * 10**9))  # in order, whatever the clock's grain
    names = sorted(path.name for path in dashboards_folder().iterdir())
    assert len(names) == KEEP and names[0] == f"{5:040x}.pickle"


def test_cache_clear_removes_the_kept_dashboards(two_runs, loaded, capsys):
    assert kept_dashboards()[0] == 1
    assert main(["cache", "clear"]) == 0
    assert f"ragtui: removed 1 kept dashboard(s), 0.0 MB, from {dashboards_folder()}" in capsys.readouterr().err
    assert kept_dashboards() == (0, 0) and read_dashboard(dashboard_key(two_runs)) is None
    assert clear_dashboards() == (0, 0)


def test_a_kept_dashboard_is_written_with_the_users_umask(loaded, two_runs):
    path = dashboards_folder() / f"{dashboard_key(two_runs)}.pickle"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_reading_a_kept_dashboard_imports_neither_polars_nor_numpy(two_runs, loaded):
    code = (
        "import sys\nfrom pathlib import Path\nfrom ragtui.core.loading.inputs import Inputs\n"
        "from ragtui.ui.models.dashboard_cache import dashboard_key, read_dashboard\n"
        f"inputs = Inputs(a=Path({str(two_runs.a)!r}), b=Path({str(two_runs.b)!r}), gold=Path({str(two_runs.gold)!r}), "
        f"config=Path({str(two_runs.config)!r}))\n"
        "data = read_dashboard(dashboard_key(inputs))\n"
        "print(data is not None and data.status_counts['regressed'], sorted({'polars', 'numpy'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=os.environ, check=True)
    assert done.stdout.split(maxsplit=1) == [str(loaded.status_counts["regressed"]), "[]\n"]
