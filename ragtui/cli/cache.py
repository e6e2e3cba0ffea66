"""`ragtui cache` (where the run cache lives, what it holds) and `ragtui cache clear`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ragtui.cli.messages import say

if TYPE_CHECKING:
    from ragtui.core.loading.run_cache import EntryInfo


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "action", nargs="?", choices=("info", "clear"), default="info",
        help="info (default): where the cache is, its entries and size; clear: remove every entry",
    )


def run(args: argparse.Namespace) -> int:
    from ragtui.core.loading.run_cache import CACHED_FROM_BYTES, LIMIT_VARIABLE, RunCache

    cache = RunCache.default()
    if args.action == "clear":
        golds = _gold_sets(cache.entries())
        count, size, left = cache.clear()
        say(f"ragtui: removed {count - golds} cached run(s){_and_gold_sets(golds)}, {disk_size(size)}, from {cache.folder}")
        for path in left:  # the cache removes only what it wrote
            say(f"ragtui: left {path}: not written by the run cache")
        return 0
    entries = cache.entries()
    total = sum(info.size for info in entries)
    say(f"run cache: {cache.folder}", stream=sys.stdout)
    golds = _gold_sets(entries)
    print(f"{len(entries) - golds} run(s){_and_gold_sets(golds)}, {disk_size(total)} of {disk_size(cache.limit)} (limit: {LIMIT_VARIABLE}, e.g. 2GB)")
    print(f"files under {disk_size(CACHED_FROM_BYTES)} (runs, gold sets) are read at each open, never cached: writing an entry costs them more than it saves")
    unfinished = cache.unfinished()
    if unfinished:
        print(f"{len(unfinished)} unfinished entr{'y' if len(unfinished) == 1 else 'ies'} of ended processes (removed by the next open or `ragtui cache clear`)")
    for info in reversed(entries):  # most recently used first
        kind = f" ({info.kind})" if info.holds_gold else ""
        say(f"  {disk_size(info.size):>10}  {info.source}{kind}", stream=sys.stdout)  # a path is data: neutralised
    return 0


def _gold_sets(entries: list[EntryInfo]) -> int:
    """How many of the entries hold a gold set (the others hold runs)."""
    return sum(info.holds_gold for info in entries)


def _and_gold_sets(count: int) -> str:
    """", 1 gold set(s)" after the runs' count; nothing when the cache holds no gold set."""
    return f", {count} gold set(s)" if count else ""


def disk_size(size: int) -> str:
    """A byte count as disks are sold, in the units the limit is written in (1 GB = 10⁹ bytes)."""
    if size >= 1000**3:
        return f"{size / 1000**3:,.2f} GB"
    return f"{size / 1000**2:,.1f} MB"
