"""Zip entries are read exactly, Zstandard ones (method 93) through an existing dependency."""

from __future__ import annotations

import sys
import zipfile

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers.zipentry import read_entry

from .builders import write_archive, write_zstd_archive, zstd_frame

TEXTS = {
    "crlf.json": '{\r\n  "a": "é ü — \\u0000"\r\n}\r\n'.encode(),
    "bom.json": "\ufeff{}\n".encode(),
    "blank_lines.json": b"\n\n{\"x\": 1}\n\n",
    "large.json": ('{"big": "' + "y" * 3_000_000 + '"}\n').encode(),
}


def read_all(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: read_entry(archive, info, path) for info in archive.infolist()}


@pytest.mark.parametrize("method", ["stored", "deflate", "zstd"])
def test_every_entry_comes_back_byte_for_byte(tmp_path, monkeypatch, method):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    path = write_archive(tmp_path / "a.zip", list(TEXTS.items()), method)
    assert read_all(path) == TEXTS


def test_concatenated_zstandard_frames_are_one_entry(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    two_frames = lambda data: zstd_frame(data[:6]) + zstd_frame(data[6:])  # noqa: E731
    path = write_zstd_archive(tmp_path / "b.zip", [("x.json", b'{"a":\n1}\n')], two_frames)
    assert read_all(path) == {"x.json": b'{"a":\n1}\n'}


def test_a_corrupt_zstandard_entry_is_refused_by_its_crc(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    tampered = lambda data: zstd_frame(data.replace(b"1", b"2"))  # noqa: E731
    path = write_zstd_archive(tmp_path / "c.zip", [("x.json", b'{"a": 1}\n')], tampered)
    with pytest.raises(InputError) as caught:
        read_all(path)
    assert str(caught.value).startswith(f"{path}: x.json: corrupt zip entry: CRC-32 does not match after decompression")


def test_bytes_that_are_not_a_zstandard_frame_are_refused_with_a_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    garbage = lambda data: b"\x28\xb5\x2f\xfd" + b"garbage!" * 4  # noqa: E731
    path = write_zstd_archive(tmp_path / "d.zip", [("x.json", b"{}\n")], garbage)
    with pytest.raises(InputError, match="cannot decompress this Zstandard entry: .*pip install zstandard"):
        read_all(path)


def test_an_unknown_compression_method_is_named(tmp_path):
    path = write_archive(tmp_path / "e.zip", [("x.json", b"{}\n")], "stored")
    raw = bytearray(path.read_bytes())
    # method 97 (WavPack) in the local header (offset 8) and the central directory (offset 10)
    raw[8:10] = (97).to_bytes(2, "little")
    central = raw.index(b"PK\x01\x02")
    raw[central + 10 : central + 12] = (97).to_bytes(2, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="x.json: compression method 97 is not supported"):
        read_all(path)
