"""Runs on other machines' storage: a Parquet run at an `https://` or `s3://` address.

Where polars reads a file, ragtui does: polars' own object-store readers fetch the
columns, with credentials and endpoints from the environment exactly as polars takes
them (`AWS_ACCESS_KEY_ID`, `AWS_REGION`, `AWS_ENDPOINT_URL`, …; `gs://` and `az://` alike).
Only Parquet is read remotely: it is columnar and self-describing, so a run is fetched
in a few ranged requests, and its metadata rides in the file (key `ragtui.run`).

Kept free of heavy imports at module level: the CLI names its inputs with it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from ragtui.core.loading import bounded_json

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.runs import Run

SCHEMES = ("https", "http", "s3", "gs", "az", "abfs", "abfss")
# The whole fetch of a remote run, metadata and columns: a run of 100,000 questions is a
# few hundred megabytes, fetched in well under this on any link a team works over.
FETCH_DEADLINE_S = 300.0
T = TypeVar("T")


@dataclass(frozen=True)
class RemoteLocation:
    """A run's address; quacks like the parts of a Path a run's name and messages use."""

    url: str

    def __str__(self) -> str:
        return self.url

    @property
    def name(self) -> str:
        return urlsplit(self.url).path.rsplit("/", 1)[-1] or self.url

    @property
    def stem(self) -> str:
        return self.name.rsplit(".", 1)[0] if "." in self.name else self.name

    @property
    def suffix(self) -> str:
        return "." + self.name.rsplit(".", 1)[1] if "." in self.name else ""


def is_remote(text: object) -> bool:
    """Whether `text` is an address polars fetches (`https://…`, `s3://…`), not a local path."""
    if isinstance(text, RemoteLocation):
        return True
    scheme, sep, _ = str(text).partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def run_location(text: str) -> Path | RemoteLocation:
    """A run argument as given on the command line: an address, else a local path."""
    return RemoteLocation(text) if is_remote(text) else Path(text)


def within_deadline(fetch: Callable[[], T]) -> T:
    """`fetch()`, or TimeoutError once FETCH_DEADLINE_S have passed.

    polars' readers time out per read, so a server sending a byte every half second (or
    promising more bytes than it sends) would hold a run open for ever; the fetch runs in
    a daemon thread, left behind at the deadline (it ends with its connection).
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = fetch()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller as it was raised
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="ragtui-fetch", daemon=True)
    thread.start()
    thread.join(FETCH_DEADLINE_S)
    if thread.is_alive():
        raise TimeoutError
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def load_remote_run(location: RemoteLocation, *, detail: bool = True) -> Run:
    """Fetch a Parquet run; raises InputError naming the address on any failure."""
    import polars as pl

    from ragtui.core.errors import InputError, problem
    from ragtui.core.loading.fast_jsonl import canonical_from_frame
    from ragtui.core.loading.records import PARQUET_META_KEY, RawRun
    from ragtui.core.loading.runs import Run, frame_from_raw, parse_meta
    from ragtui.core.loading.schema import without_detail

    if location.suffix.lower() != ".parquet":
        raise InputError(problem(location, None, None, "a run at an address must be a Parquet file (.parquet); download other formats first"))
    try:
        stored_meta, stored = within_deadline(lambda: (pl.read_parquet_metadata(location.url).get(PARQUET_META_KEY), pl.read_parquet(location.url)))
    except TimeoutError:
        raise InputError(problem(location, None, None, f"cannot fetch: no whole reply within {FETCH_DEADLINE_S:g} s")) from None
    except Exception as exc:  # noqa: BLE001 - object stores raise many types: one message names the address
        reason = " ".join(str(exc).split())[:300]
        raise InputError(problem(location, None, None, f"cannot fetch: {reason}")) from None
    problems: list = []
    meta_dict: dict[str, Any] = {}
    if stored_meta:
        try:
            meta_dict = bounded_json.loads(stored_meta)
        except json.JSONDecodeError as exc:
            problems.append(problem(location, None, "run", f"metadata key {PARQUET_META_KEY} is not JSON: {exc.msg}"))
    frame = canonical_from_frame(stored)
    if frame is None:  # not sure of something: every record checked, every problem located
        records = stored.to_dicts()
        frame, found = frame_from_raw(RawRun(location, meta_dict, records, list(range(1, len(records) + 1))))  # type: ignore[arg-type]
        problems += found
    meta = parse_meta(location, meta_dict if isinstance(meta_dict, dict) else {}, None, problems)
    if frame.height == 0 and not any(p.is_error for p in problems):
        problems.append(problem(location, None, None, "no question records in the file"))
    if any(p.is_error for p in problems):
        raise InputError([p for p in problems if p.is_error])
    return Run(meta, frame if detail else without_detail(frame), location, tuple(problems), "ragtui")
