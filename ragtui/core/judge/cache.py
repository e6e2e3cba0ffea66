"""The disk cache of judge calls: what makes a rerun free and an interrupted run resumable.

Every successful HTTP completion — parseable or not, truncated or not, since each one
was paid for — is stored under the sha256 of what determines it: provider, model,
prompt version, the exact messages and the output-token bound. A rerun, or a run
resumed after Ctrl-C, a crash or kill -9, finds it and does not pay again. Failures
that were not paid for (429, 5xx, timeouts) are not stored: a rerun retries them.

Format: one JSON file per call, `CACHE/ab/abcdef….json`, written atomically (temporary
sibling, fsync, rename) — chosen over an append-only journal because:
- an entry is complete or absent, whatever kills the process; a journal needs a
  torn-tail repair on every open;
- several processes may share a cache (the CLI judging while the TUI re-judges one
  question): independent renames need no lock, concurrent appends to one journal do;
- a lookup is one open(), without loading the whole history, so a warm rerun of a
  10,000-question run starts at once; one bad verdict is invalidated by deleting one file
  (what `--retry-errors` does for the replies that ended in a judge error);
- the costs — an inode per call, a rename per write — are small next to an HTTP call.
Writes run on a writer thread so the event loop keeps sending requests; `flush()`
waits for them, and a pending write finishes even when its task is cancelled.
The API key is never part of an entry (only messages and the completion are).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ragtui.core.loading import bounded_json

FORMAT = "ragtui-judge-cache/1"
log = logging.getLogger("ragtui.judge")


def call_key(provider: str, model: str, prompt_version: str, messages: list[dict[str, str]], max_tokens: int, repeat: int = 0) -> str:
    """The sha256 naming one call: what the provider would answer depends on these only.

    The base URL is left out on purpose: the same model behind another address
    (a proxy, a new port) gives the same verdicts, and should not be paid twice.
    `repeat` is the repetition of `ragtui judge --repeat N` (0 for the first): each
    repetition is a call of its own, paid once; the first keeps the key it always had,
    so a run judged before costs only the repetitions it lacks.
    """
    fields: dict[str, object] = {"v": 1, "provider": provider, "model": model, "prompt_version": prompt_version, "messages": messages, "max_tokens": max_tokens}
    if repeat:
        fields["repeat"] = repeat
    canonical = json.dumps(
        fields,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    """Temporary sibling, fsync, rename: the file is complete or absent, whatever happens.

    The same guarantee as ragtui.core.atomic, in plain os calls: half its CPU per entry
    (no mkstemp, no file object), which counts at 150 writes a second. The temporary
    name holds the process and thread ids, so concurrent writers never share one.
    """
    tmp = f"{path}.{os.getpid()}-{threading.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)


class CallCache:
    """A folder of cached completions; `CallCache(None)` caches nothing."""

    def __init__(self, root: str | os.PathLike[str] | None):
        self.root = Path(root) if root is not None else None
        self._pending: set[futures.Future] = set()
        self._writer: ThreadPoolExecutor | None = None
        self._shards: set[str] = set()  # shard folders known to exist
        self._writing: dict[str, dict[str, Any]] = {}  # key -> entry not yet on disk
        self._index: set[str] | None = None  # keys on disk, listed once (see get)
        self.stored_now: set[str] = set()  # keys this process stored: answers of this run
        if self.root is not None:
            self.root.mkdir(parents=True, exist_ok=True)
            self._remove_stale_temporaries()

    def path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached entry for `key`, or None. A damaged file counts as a miss."""
        if self.root is None:
            return None
        if key in self._writing:
            return self._writing[key]
        if self._index is None:
            self._index = self._list_keys()
        if key not in self._index:
            # A miss costs a set lookup, not a failed open(): on a cold run every call
            # misses. Entries another process writes after the listing are not seen —
            # at worst that call is made again, never a wrong answer.
            return None
        try:
            text = self.path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("judge cache: cannot read %s: %s", self.path(key), exc)
            return None
        try:
            entry = bounded_json.loads(text)
        except json.JSONDecodeError:
            log.warning("judge cache: ignoring a damaged entry %s", self.path(key))
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("response"), dict):
            return None
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry; the write happens on a thread (await `flush()` to be sure of it).

        The entry must not be mutated afterwards: the writer thread serialises it.
        """
        if self.root is None:
            return
        entry = {"format": FORMAT, "key": key, **entry}
        self.stored_now.add(key)
        self._writing[key] = entry
        if self._index is not None:
            self._index.add(key)
        if self._writer is None:
            # One writer thread, fed with submit() rather than loop.run_in_executor: no
            # asyncio future per write, so no event-loop wake-up per write (a third of
            # the cache's CPU cost). Its thread is joined at interpreter exit, so a write
            # in progress when Ctrl-C lands still completes.
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragtui-judge-cache")
        future = self._writer.submit(self._write, key, entry)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

    def forget(self, key: str) -> None:
        """Delete the entry for `key` so that its call is made again (`ragtui judge --retry-errors`).

        Only an answer from an earlier run is forgotten: one stored by this run is what
        asking again just gave.
        """
        if self.root is None or key in self.stored_now:
            return
        if self._index is not None:
            self._index.discard(key)
        try:
            self.path(key).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:  # the call is made again all the same; its answer replaces the entry
            log.warning("judge cache: cannot delete %s: %s", self.path(key), exc)

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        path = self.path(key)
        try:
            # Compact JSON: with `indent`, json falls back to its pure-Python encoder.
            data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            if path.parent.name not in self._shards:
                path.parent.mkdir(exist_ok=True)
                self._shards.add(path.parent.name)
            _write_atomically(path, data)
        except OSError as exc:  # a full disk must not lose the verdict already in hand
            log.warning("judge cache: cannot write %s: %s", path, exc)
        finally:
            self._writing.pop(key, None)

    async def flush(self) -> None:
        """Wait until every entry put so far is on disk."""
        while pending := list(self._pending):
            await asyncio.to_thread(futures.wait, pending)

    async def close(self) -> None:
        """Flush, then stop the writer thread (a new one starts if `put` is called again)."""
        await self.flush()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None

    def _list_keys(self) -> set[str]:
        keys: set[str] = set()
        assert self.root is not None
        for shard in os.scandir(self.root):
            if shard.is_dir() and len(shard.name) == 2:
                keys.update(entry.name[:-5] for entry in os.scandir(shard.path) if entry.name.endswith(".json"))
        return keys

    def __len__(self) -> int:
        if self.root is None:
            return 0
        return sum(1 for _ in self.root.glob("??/*.json"))

    def _remove_stale_temporaries(self, older_than: float = 3600.0) -> None:
        """Remove temporaries left by a process killed mid-write (an hour old: not in use)."""
        cutoff = time.time() - older_than
        for tmp in self.root.glob("??/*.tmp"):  # type: ignore[union-attr]
            try:
                if tmp.stat().st_mtime < cutoff:
                    tmp.unlink()
            except OSError:
                pass
