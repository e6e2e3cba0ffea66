"""`ragtui cache` (where the run cache lives, what it holds) and `ragtui cache clear`."""

from __future__ import annotations

import argparse
import sys

from ragtui.cli.messages import say


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "action", nargs="?", choices=("info", "clear"), default="info",
        help="info (default): where the cache is, its entries and size; clear: remove every entry",
    )


def run(args: argparse.Namespace) -> int:
    from ragtui.core.loading.run_cache import LIMIT_VARIABLE, RunCache
    from ragtui.ui.models.dashboard_cache import KEEP, clear_dashboards, dashboards_folder, kept_dashboards

    cache = RunCache.default()
    if args.action == "clear":
        count, size, left = cache.clear()
        say(f"ragtui: removed {count} cached run(s), {disk_size(size)}, from {cache.folder}")
        for path in left:  # the cache removes only what it wrote
            say(f"ragtui: left {path}: not written by the run cache")
        count, size = clear_dashboards()
        say(f"ragtui: removed {count} kept dashboard(s), {disk_size(size)}, from {dashboards_folder()}")
        return 0
    entries = cache.entries()
    total = sum(info.size for info in entries)
    say(f"run cache: {cache.folder}", stream=sys.stdout)
    print(f"{len(entries)} run(s), {disk_size(total)} of {disk_size(cache.limit)} (limit: {LIMIT_VARIABLE}, e.g. 2GB)")
    unfinished = cache.unfinished()
    if unfinished:
        print(f"{len(unfinished)} unfinished entr{'y' if len(unfinished) == 1 else 'ies'} of ended processes (removed by the next open or `ragtui cache clear`)")
    for info in reversed(entries):  # most recently used first
        say(f"  {disk_size(info.size):>10}  {info.source}", stream=sys.stdout)  # a path is data: neutralised
    count, size = kept_dashboards()
    say(f"kept dashboards: {dashboards_folder()}", stream=sys.stdout)
    print(f"{count} of at most {KEEP} (the dashboard of each comparison opened, drawn first when it is opened again), {disk_size(size)}")
    return 0


def disk_size(size: int) -> str:
    """A byte count as disks are sold, in the units the limit is written in (1 GB = 10⁹ bytes)."""
    if size >= 1000**3:
        return f"{size / 1000**3:,.2f} GB"
    return f"{size / 1000**2:,.1f} MB"
