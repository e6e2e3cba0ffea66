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

An archive is small and its entries may be huge (a 3 MB deflate entry of 3 GB, a 100 KB
Zstandard frame of gigabytes): no entry declared larger than MAX_ENTRY_BYTES is read, a
Zstandard entry is first measured from its block headers (the most its blocks can give,
without decompressing), and what comes out must be the size the archive declares.
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
# The most one entry may give: inspect_ai's entries are a sample each, a few megabytes.
MAX_ENTRY_BYTES = 1_000_000_000
_SKIPPABLE_MAGIC = 0x184D2A50  # the 16 values 0x184D2A50–5F: a frame to skip
_BLOCK_MAX = 128 * 1024  # what one compressed block gives at most (the format's bound)


def read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """The uncompressed bytes of one entry, or an InputError naming the archive and entry."""
    if info.file_size > MAX_ENTRY_BYTES:
        raise InputError(problem(path, None, info.filename, f"declares {info.file_size:,} bytes uncompressed, more than the {MAX_ENTRY_BYTES:,} read from one entry"))
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
    most = _zstd_upper_bound(compressed)
    if most is None:
        reason = f"cannot decompress this Zstandard entry: its bytes are not whole Zstandard frames (if another tool opens it: {_hint()})"
        raise InputError(problem(path, None, info.filename, reason))
    if most > MAX_ENTRY_BYTES:
        raise InputError(problem(path, None, info.filename, f"a Zstandard entry that can give up to {most:,} bytes, more than the {MAX_ENTRY_BYTES:,} read from one entry"))
    try:
        data, doubt = _zstd_with_package(compressed), ""
        if data is None:
            data = _zstd_with_polars(compressed, info.CRC)
            doubt = f" (or it holds bytes polars' reader cannot restore: {_hint()})"
    except _Undecodable as exc:
        raise InputError(problem(path, None, info.filename, f"cannot decompress this Zstandard entry: {exc}")) from None
    if len(data) != info.file_size:
        raise InputError(problem(path, None, info.filename, f"corrupt zip entry: {len(data):,} bytes after decompression, the archive declares {info.file_size:,}{doubt}"))
    if zlib.crc32(data) != info.CRC:
        raise InputError(problem(path, None, info.filename, f"corrupt zip entry: CRC-32 does not match after decompression{doubt}"))
    return data


def _zstd_upper_bound(data: bytes) -> int | None:
    """The most bytes these Zstandard frames can decompress to, read from their headers
    (a raw or RLE block says its size; a compressed one gives at most 128 KiB); None when
    the bytes are not whole frames."""
    total, at = 0, 0
    while at < len(data):
        if len(data) - at < 8:
            return None
        magic = int.from_bytes(data[at : at + 4], "little")
        if magic & 0xFFFFFFF0 == _SKIPPABLE_MAGIC:
            at += 8 + int.from_bytes(data[at + 4 : at + 8], "little")
            continue
        if data[at : at + 4] != _ZSTD_MAGIC:
            return None
        descriptor = data[at + 4]
        single_segment = descriptor >> 5 & 1
        content_size_bytes = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
        at += 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 3] + content_size_bytes
        while True:
            if at + 3 > len(data):
                return None
            header = int.from_bytes(data[at : at + 3], "little")
            last, kind, size = header & 1, header >> 1 & 3, header >> 3
            if kind == 3:
                return None
            total += size if kind < 2 else _BLOCK_MAX
            at += 3 + (1 if kind == 1 else size)
            if last:
                break
        at += 4 if descriptor >> 2 & 1 else 0  # the content checksum
    return total if at == len(data) else None


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
            chunks, size = [], 0
            while size <= MAX_ENTRY_BYTES and (chunk := reader.read(1 << 20)):  # bounded should the headers lie
                chunks.append(chunk)
                size += len(chunk)
            return b"".join(chunks)
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
