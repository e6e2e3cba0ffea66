"""Test inputs built in the test: inspect_ai `.eval` archives, Zstandard frames, gold indexes.

The archives follow inspect_ai's layout (header.json, samples/{id}_epoch_{n}.json,
summaries.json, _journal/start.json), with every entry stored, deflated or compressed
with Zstandard (zip method 93, which Python 3.11's zipfile cannot write either: those
archives are written here byte by byte).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ZSTD_METHOD = 93


def gold_index(records: list[dict[str, Any]]) -> dict[str, str]:
    """normalised question → id, the way the loader builds `gold_questions`."""
    from ragtui.core.measuring.textnorm import normalize_question

    return {normalize_question(r["question"]): r["id"] for r in records}


def inspect_entries(log: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The entries of a finished `.eval` log holding `log` (an EvalLog as JSON)."""
    header = {key: value for key, value in log.items() if key != "samples"}
    start = {"version": log["version"], "eval": log["eval"], "plan": log["plan"]}
    samples = log["samples"]
    summaries = [{k: s.get(k) for k in ("id", "epoch", "input", "target", "scores")} for s in samples]
    entries = [("_journal/start.json", start)]
    entries += [(f"samples/{s['id']}_epoch_{s['epoch']}.json", s) for s in samples]
    entries += [("summaries.json", summaries), ("header.json", header)]
    # inspect writes its entries as indented JSON (pydantic's to_json(indent=2)).
    return [(name, json.dumps(value, indent=2, ensure_ascii=False).encode()) for name, value in entries]


def write_archive(path: Path, entries: list[tuple[str, bytes]], method: str = "deflate") -> Path:
    """A zip of `entries`, each stored, deflated or compressed with Zstandard ("zstd")."""
    if method == "zstd":
        return write_zstd_archive(path, entries)
    compression = {"stored": zipfile.ZIP_STORED, "deflate": zipfile.ZIP_DEFLATED}[method]
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def zstd_frame(data: bytes) -> bytes:
    """`data` compressed into Zstandard frames: with polars' writer, else zstandard, else skip.

    polars' CSV writer compresses the text of a single cell followed by "\\n", so `data`
    must end with a newline (checked).
    """
    assert data.endswith(b"\n")
    import polars as pl

    text = data[:-1].decode()
    frame = pl.DataFrame({"c": [text]})
    plain, packed = io.BytesIO(), io.BytesIO()
    try:
        frame.write_csv(packed, include_header=False, quote_style="never", compression="zstd")
    except TypeError:  # a polars without compressed writing
        try:
            import zstandard
        except ImportError:
            pytest.skip("neither this polars nor the zstandard package can write Zstandard frames")
        return zstandard.ZstdCompressor().compress(data)
    frame.write_csv(plain, include_header=False, quote_style="never")
    assert plain.getvalue() == data, "polars changed the text while writing it"
    return packed.getvalue()


def write_zstd_archive(path: Path, entries: list[tuple[str, bytes]], compress=zstd_frame) -> Path:
    """Write the local headers, data, central directory and end record by hand.

    `compress` turns an entry's bytes into its stored data (tests pass broken ones).
    """
    out = io.BytesIO()
    central = io.BytesIO()
    for name, data in entries:
        data = data if data.endswith(b"\n") else data + b"\n"
        packed = compress(data)
        encoded = name.encode()
        crc, offset = zlib.crc32(data), out.tell()
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0x800, ZSTD_METHOD, 0, 0x21, crc, len(packed), len(data), len(encoded), 0))
        out.write(encoded + packed)
        central.write(
            struct.pack(
                "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0x800, ZSTD_METHOD, 0, 0x21, crc, len(packed), len(data),
                len(encoded), 0, 0, 0, 0, 0, offset,
            )
        )
        central.write(encoded)
    directory = central.getvalue()
    start = out.tell()
    out.write(directory)
    out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), start, 0))
    path.write_bytes(out.getvalue())
    return path
