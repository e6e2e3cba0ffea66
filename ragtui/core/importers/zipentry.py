"""Read one entry of a zip archive, including Zstandard entries (method 93).

inspect_ai writes `.eval` logs as zip archives whose entries may be compressed with
Zstandard, which Python's zipfile reads only from 3.14 on. For those entries the raw
bytes are taken from the archive (the local header says where they start) and
decompressed by, in order:

1. the `zstandard` package, when it is installed (optional: `pip install zstandard`);
2. polars, a dependency ragtui already has: its CSV reader recognises a Zstandard frame
   by its magic number and decompresses it before parsing. Read as one cell (separator
   and line end set to two control characters that valid JSON text never holds raw),
   the text comes back whole; the entry's CRC-32 then proves the bytes are exact.

Stored (method 0) and deflated (8) entries need nothing beyond the standard library.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from ragtui.core.errors import InputError, problem

ZSTD_METHOD = 93
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature … file name length, extra field length
_BOM = "\ufeff".encode()
# Two ASCII control characters; JSON text may hold them only escaped, never raw.
_CELL_END, _LINE_END = "\x1f", "\x1e"


def read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """The uncompressed bytes of one entry, or an InputError naming the archive and entry."""
    if info.compress_type == ZSTD_METHOD and not hasattr(zipfile, "ZIP_ZSTANDARD"):
        return _read_zstd(info, path)
    try:
        return archive.read(info)
    except NotImplementedError:
        raise InputError(
            problem(path, None, info.filename, f"compression method {info.compress_type} is not supported")
        ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise InputError(problem(path, None, info.filename, f"corrupt zip entry: {exc}")) from None


def _read_zstd(info: zipfile.ZipInfo, path: Path) -> bytes:
    if info.flag_bits & 0x1:
        raise InputError(problem(path, None, info.filename, "the entry is encrypted"))
    compressed = _raw_bytes(info, path)
    try:
        data, doubt = _zstd_with_package(compressed), ""
        if data is None:
            data = _zstd_with_polars(compressed, info.CRC)
            doubt = f" (or it holds bytes polars' reader cannot restore: {_hint()})"
    except _Undecodable as exc:
        raise InputError(problem(path, None, info.filename, f"cannot decompress this Zstandard entry: {exc}")) from None
    if zlib.crc32(data) != info.CRC:
        raise InputError(problem(path, None, info.filename, f"corrupt zip entry: CRC-32 does not match after decompression{doubt}"))
    return data


def _raw_bytes(info: zipfile.ZipInfo, path: Path) -> bytes:
    """The entry's compressed bytes, located through its local file header."""
    with open(path, "rb") as handle:  # a handle of our own: zipfile's is shared with its readers
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size:
            raise InputError(problem(path, None, info.filename, "corrupt zip entry: truncated local header"))
        signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != b"PK\x03\x04":
            raise InputError(problem(path, None, info.filename, "corrupt zip entry: bad local header signature"))
        handle.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        data = handle.read(info.compress_size)
    if len(data) != info.compress_size:
        raise InputError(problem(path, None, info.filename, "corrupt zip entry: truncated data"))
    return data


class _Undecodable(Exception):
    """A Zstandard entry none of the available decoders could restore exactly."""


def _zstd_with_package(data: bytes) -> bytes | None:
    """Decompress with the `zstandard` package; None when it is not installed."""
    try:
        import zstandard
    except ImportError:
        return None
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        with reader:
            return reader.read()
    except zstandard.ZstdError as exc:
        raise _Undecodable(str(exc)) from None


def _zstd_with_polars(data: bytes, crc: int) -> bytes:
    """Decompress through polars' CSV reader, which undoes Zstandard by itself.

    The text is read as a single cell; should it hold the two separator characters
    anyway, the rows and cells are joined back. A leading byte-order mark, which the
    reader drops, is put back when the CRC says it was there. The caller checks the CRC.
    """
    if not data.startswith(_ZSTD_MAGIC):
        raise _Undecodable("the data does not start with a Zstandard frame")
    import polars as pl

    try:
        frame = pl.read_csv(
            data,
            has_header=False,
            separator=_CELL_END,
            eol_char=_LINE_END,
            quote_char=None,
            infer_schema=False,
            raise_if_empty=False,
        )
    except Exception as exc:  # polars raises ComputeError, OSError, … for bad frames and bad UTF-8
        raise _Undecodable(f"{_hint()} ({type(exc).__name__}: {exc})") from None
    text = _LINE_END.join(_CELL_END.join(cell or "" for cell in row) for row in frame.iter_rows())
    body = text.encode("utf-8")
    for candidate in (_BOM + body, body + _LINE_END.encode()):
        if zlib.crc32(candidate) == crc:
            return candidate
    return body


def _hint() -> str:
    return "install the zstandard package (`pip install zstandard`) and try again"
