"""Runs on other machines' storage: a Parquet run at an `https://` or `s3://` address.

Where polars reads a file, ragtui does: polars' own object-store readers fetch the
columns, with credentials and endpoints from the environment exactly as polars takes
them (`AWS_ACCESS_KEY_ID`, `AWS_REGION`, `AWS_ENDPOINT_URL`, …; `gs://` and `az://` alike).
Only Parquet is read remotely: it is columnar and self-describing, so a run is fetched
in a few ranged requests, and its metadata rides in the file (key `ragtui.run`).

Kept free of heavy imports at module level: the CLI names its inputs with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

SCHEMES = ("https", "http", "s3", "gs", "az", "abfs", "abfss")


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
