"""Hostile files: every one ends in one message naming the file and what is wrong.

The inputs are built here, small; the bombs are generated (a few aliases, a few
kilobytes of Zstandard blocks), never stored. The readers run under a memory limit in a
child process (`resource.setrlimit(RLIMIT_AS)`), so a reader that expanded a bomb would
die there instead of passing.
"""

from __future__ import annotations

import http.server
import json
import os
import struct
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from ragtui.core.errors import InputError, shown
from ragtui.core.loading import bounded_json
from ragtui.core.loading.bounded_file import read_bounded, special_kind
from ragtui.core.loading.config import config_problems_and_value
from ragtui.core.loading.gold import check_gold
from ragtui.core.loading.runs import check_run, load_run
from ragtui.core.loading.validation import validate_file

REPO = Path(__file__).resolve().parents[2]
GOOD = {"id": "q1", "question": "Q ?", "gold_passages": ["p1"], "retrieved": ["p1"], "answer": "Oui."}


def messages(problems) -> list[str]:
    return [str(p) for p in problems]


# YAML -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("2024-13-45", "an impossible date '2024-13-45'"),
        ("2024-02-30", "an impossible date '2024-02-30'"),
        ("9" * 5000, "an integer of more than 100 digits"),
        ("[" * 100 + "]" * 100, "nested more than 64 levels deep"),
    ],
)
def test_an_impossible_yaml_value_is_one_message_at_its_line(tmp_path, value, said):
    gold = tmp_path / "gold.yaml"
    gold.write_text(f"questions:\n  - id: q1\n    question: Q ?\n    created: {value}\n", encoding="utf-8")
    _, problems = check_gold(gold)
    assert len(problems) == 1 and str(problems[0]).startswith(f"{gold}:4: -: malformed YAML: {said}")


def test_a_recursive_alias_in_a_gold_set_a_config_and_a_run_is_refused(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text("questions: &x [*x]\n", encoding="utf-8")
    config = tmp_path / "ragtui.yaml"
    config.write_text("targets: &t {loop: *t}\n", encoding="utf-8")
    run = tmp_path / "run.yaml"
    run.write_text("results: &r [*r]\n", encoding="utf-8")
    assert messages(check_gold(gold)[1]) == [f"{gold}:1: -: malformed YAML: a recursive alias: the value contains itself"]
    assert messages(config_problems_and_value(config)[1]) == [f"{config}:1: -: malformed YAML: a recursive alias: the value contains itself"]
    assert messages(check_run(run)[1]) == [f"{run}:1: -: malformed YAML: a recursive alias: the value contains itself"]


def billion_laughs() -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 10):
        name, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]")
    lines.append("questions: [*j]")
    return "\n".join(lines) + "\n"


def test_a_billion_laughs_gold_set_is_refused_at_once(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(billion_laughs(), encoding="utf-8")
    started = time.perf_counter()
    _, problems = check_gold(gold)
    assert time.perf_counter() - started < 2
    assert len(problems) == 1 and "malformed YAML: aliases expand to more than 10,000,000 values" in str(problems[0])


def test_a_message_quoting_a_value_shows_its_start_only():
    loop: list = []
    loop.append(loop)
    assert shown(loop) == "[" * 39 + "…"
    assert shown({"a": [1, "x"], "b": None}) == '{"a": [1, "x"], "b": null}'
    assert shown(int("9" * 4000)) == "<a number of thousands of digits>"


# JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[" * 5000 + "]" * 5000, "nested more than 64 levels deep"),
        ("[" * 100 + "]" * 100, "nested more than 64 levels deep"),
        ('{"a": ' + "7" * 5000 + "}", "an integer of more than 100 digits"),
        ('{"a": "\\ud800"}', "a lone surrogate escape"),
        ('{"\\udc00": 1}', "a lone surrogate escape"),
    ],
)
def test_bounded_json_refuses_what_python_would_raise_or_carry(text, said):
    with pytest.raises(json.JSONDecodeError, match=said):
        bounded_json.loads(text)


def test_bounded_json_keeps_what_is_ordinary():
    assert bounded_json.loads('{"a": "\\ud83d\\ude00", "b": "\\\\ud800", "n": 12.5, "id": "' + "0" * 300 + '"}') == {
        "a": "😀",
        "b": "\\ud800",
        "n": 12.5,
        "id": "0" * 300,
    }


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (json.dumps({**GOOD, "extra": "X"}).replace('"X"', "[" * 3000 + "]" * 3000), "nested more than 64 levels deep"),
        (json.dumps({**GOOD, "latency_ms": 1}).replace(": 1}", ": " + "1" * 5000 + "}"), "an integer of more than 100 digits"),
        (json.dumps({**GOOD, "answer": "X"}).replace('"X"', '"\\ud800"'), "a lone surrogate escape"),
    ],
)
def test_a_hostile_jsonl_run_line_is_located(tmp_path, line, said):
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps(GOOD | {"id": "q0"}) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(run)
    assert [p.line for p in caught.value.problems] == [2]
    assert said in str(caught.value.problems[0]) and str(run) in str(caught.value.problems[0])


def test_a_deep_json_run_document_is_one_message(tmp_path):
    run = tmp_path / "run.json"
    run.write_text('{"results": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    _, problems = check_run(run)
    assert messages(problems) == [f"{run}:1: -: malformed JSON: nested more than 64 levels deep (column 1)"]


# Files that are not files -------------------------------------------------------------


def test_a_device_is_refused_by_name_wherever_a_file_is_read(tmp_path):
    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero here")
    said = "/dev/zero: -: is a character device (like /dev/zero), not a file"
    with pytest.raises(InputError) as caught:
        load_run(zero)
    assert messages(caught.value.problems) == [said]
    assert messages(validate_file(zero, "run")[1]) == [said]
    assert messages(check_gold(zero)[1]) == [said]
    with pytest.raises(InputError, match="character device"):
        config_problems_and_value(zero)
    with pytest.raises(InputError, match="character device"):
        read_bounded(zero)


def fifo_with_writer(path: Path, data: bytes) -> threading.Thread:
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as handle:  # blocks until the reader opens it: once
            handle.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_a_fifo_run_is_read_once_and_loads(tmp_path, write_jsonl):
    source = write_jsonl(tmp_path / "source.jsonl", {"name": "piped"}, [GOOD, {**GOOD, "id": "q2"}])
    fifo = tmp_path / "run.jsonl"
    writer = fifo_with_writer(fifo, source.read_bytes())
    started = time.perf_counter()
    run = load_run(fifo)
    writer.join(5)
    assert time.perf_counter() - started < 10
    assert run.path == fifo and run.name == "piped" and run.frame.height == 2


def test_a_fifo_gold_set_is_read_once_and_a_bad_one_names_the_fifo(tmp_path):
    fifo = tmp_path / "gold.jsonl"
    writer = fifo_with_writer(fifo, b'{"id": "q1", "question": "Q ?", "gold_passages": ["p1"]}\n{"id": "q2", "question": }\n')
    _, problems = check_gold(fifo)
    writer.join(5)
    assert [p.file for p in problems] == [str(fifo)] and problems[0].line == 2


def test_a_fifo_that_never_stops_is_read_up_to_the_bound(tmp_path):
    fifo = tmp_path / "endless.jsonl"
    os.mkfifo(fifo)

    def flood() -> None:
        try:
            with open(fifo, "wb") as handle:
                while True:
                    handle.write(b"x" * 65536)
        except BrokenPipeError:
            pass

    threading.Thread(target=flood, daemon=True).start()
    with pytest.raises(InputError, match="is a FIFO \\(named pipe\\) that gave more than 1,000,000 bytes"):
        read_bounded(fifo, limit=1_000_000)


def test_special_kinds_are_named(tmp_path):
    os.mkfifo(tmp_path / "f")
    assert special_kind(tmp_path / "f") == "a FIFO (named pipe)"
    assert special_kind(tmp_path) == "a folder, expected a file"
    assert special_kind(tmp_path / "missing") is None


# Archives ---------------------------------------------------------------------------


def rle_zstd_frame(total: int) -> bytes:
    """A Zstandard frame of `total` zero bytes made of RLE blocks: 4 bytes a 128 KiB block."""
    blocks, left = [], total
    while left:
        size = min(left, 128 * 1024)
        left -= size
        header = (size << 3) | (1 << 1) | (0 if left else 1)
        blocks.append(header.to_bytes(3, "little") + b"\0")
    return b"\x28\xb5\x2f\xfd" + bytes([0x00, 0x58]) + b"".join(blocks)  # no content size, window 8 MiB


def zstd_archive(path: Path, name: str, packed: bytes, declared: int, crc: int) -> Path:
    """A zip of one Zstandard entry (method 93) declaring `declared` bytes."""
    encoded = name.encode()
    with open(path, "wb") as out:
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, 93, 0, 0x21, crc, len(packed), declared, len(encoded), 0))
        out.write(encoded + packed)
        central = out.tell()
        out.write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, 93, 0, 0x21, crc, len(packed), declared, len(encoded), 0, 0, 0, 0, 0, 0))
        out.write(encoded)
        end = out.tell()
        out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, end - central, central, 0))
    return path


def test_a_zstandard_bomb_is_measured_from_its_block_headers_and_refused(tmp_path):
    from ragtui.core.importers.zipentry import read_entry

    packed = rle_zstd_frame(2_100_000_000)  # 2.1 GB of zeros in 64 KB
    path = zstd_archive(tmp_path / "bomb.eval", "samples/1.json", packed, 100, 0)
    with zipfile.ZipFile(path) as archive:
        with pytest.raises(InputError, match="can give up to 2,100,000,000 bytes, more than the 1,000,000,000"):
            read_entry(archive, archive.getinfo("samples/1.json"), path)


def test_a_zstandard_entry_must_give_the_size_it_declares(tmp_path, monkeypatch):
    from ragtui.core.importers.zipentry import read_entry

    data = b"\0" * 1000
    path = zstd_archive(tmp_path / "liar.eval", "x.json", rle_zstd_frame(len(data)), 10, zlib.crc32(data))
    with zipfile.ZipFile(path) as archive:
        with pytest.raises(InputError, match="1,000 bytes after decompression, the archive declares 10"):
            read_entry(archive, archive.getinfo("x.json"), path)


def test_a_deflate_entry_declared_larger_than_the_bound_is_not_read(tmp_path):
    from ragtui.core.importers import zipentry

    path = tmp_path / "big.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1.json", b"\0" * 5_000_000)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/1.json")
        original = zipentry.MAX_ENTRY_BYTES
        try:
            zipentry.MAX_ENTRY_BYTES = 1_000_000
            with pytest.raises(InputError, match="declares 5,000,000 bytes uncompressed, more than the 1,000,000"):
                zipentry.read_entry(archive, info, path)
        finally:
            zipentry.MAX_ENTRY_BYTES = original


# Under a memory limit -----------------------------------------------------------------

_UNDER_LIMIT = textwrap.dedent(
    """
    import resource, sys, time
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    from ragtui.core.errors import InputError
    from ragtui.core.loading.gold import check_gold
    from ragtui.core.loading.records import read_bytes_utf8
    from ragtui.core.loading import bounded_json
    folder = Path(sys.argv[1])
    started = time.perf_counter()
    said = []
    said += [str(p) for p in check_gold(folder / "laughs.yaml")[1]]
    said += [str(p) for p in check_gold(folder / "deep.json")[1]]
    try:
        read_bytes_utf8(Path("/dev/zero"))
    except InputError as exc:
        said.append(str(exc))
    try:
        bounded_json.loads("[" * 200000 + "]" * 200000)
    except ValueError as exc:
        said.append(str(exc))
    import zipfile
    from ragtui.core.importers.zipentry import read_entry
    with zipfile.ZipFile(folder / "bomb.eval") as archive:
        try:
            read_entry(archive, archive.getinfo("samples/1.json"), folder / "bomb.eval")
        except InputError as exc:
            said.append(str(exc))
    print("\\n".join(said))
    print(f"seconds {time.perf_counter() - started:.1f}")
    """
)


def test_the_readers_refuse_every_bomb_under_a_memory_limit(tmp_path):
    resource = pytest.importorskip("resource")
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    (tmp_path / "laughs.yaml").write_text(billion_laughs(), encoding="utf-8")
    (tmp_path / "deep.json").write_text('{"questions": ' + "[" * 50000 + "]" * 50000 + "}", encoding="utf-8")
    zstd_archive(tmp_path / "bomb.eval", "samples/1.json", rle_zstd_frame(2_100_000_000), 100, 0)
    limit = 1_500_000_000  # address space: the interpreter and polars' mappings fit, a bomb does not
    code = _UNDER_LIMIT.replace("MEMORY", str(limit))
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert resource is not None and done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert "aliases expand to more than 10,000,000 values" in lines[0]
    assert "nested more than 64 levels deep" in lines[1]
    assert lines[2] == "/dev/zero: -: is a character device (like /dev/zero), not a file"
    assert "nested more than 64 levels deep" in lines[3]
    assert "a Zstandard entry that can give up to 2,100,000,000 bytes" in lines[4]
    assert float(lines[5].split()[1]) < 30


# Remote runs ------------------------------------------------------------------------


_SIZE = 1_000_000


class _SlowParquet(http.server.BaseHTTPRequestHandler):
    """Serves a run of a megabyte, one byte every half second."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(_SIZE))
        self.end_headers()

    def do_GET(self) -> None:
        first, _, last = self.headers.get("Range", f"bytes=0-{_SIZE - 1}").removeprefix("bytes=").partition("-")
        if not first:  # a suffix: the last bytes, where Parquet keeps its footer
            start, end = _SIZE - int(last), _SIZE - 1
        else:
            start, end = int(first), min(int(last or _SIZE - 1), _SIZE - 1)
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{end}/{_SIZE}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        try:
            for _ in range(end - start + 1):
                self.wfile.write(b"P")
                self.wfile.flush()
                time.sleep(0.5)
        except (BrokenPipeError, ConnectionResetError):
            pass


def test_a_remote_run_from_a_slow_server_ends_at_the_deadline(monkeypatch):
    from ragtui.core.loading import remote

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowParquet)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(remote, "FETCH_DEADLINE_S", 2.0)
    url = f"http://127.0.0.1:{server.server_address[1]}/run.parquet"
    started = time.perf_counter()
    try:
        with pytest.raises(InputError) as caught:
            remote.load_remote_run(remote.RemoteLocation(url))
    finally:
        server.shutdown()
        server.server_close()
    assert time.perf_counter() - started < 6
    assert str(caught.value) == f"{url}: -: cannot fetch: no whole reply within 2 s"


# A short fuzz: whatever the bytes, the readers answer with problems, never an exception --

_PIECES = ["[", "]", "{", "}", '"', "\\ud800", "\\udc00", ",", ":", "1" * 120, "1e999", "-", "&a ", "*a", "- ", "\n", "  ", "x: ", "2024-02-30", "!!python/object:os.system", "\x00", "\x9b", "é"]


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=40))
def test_the_json_reader_raises_only_a_decode_error(parts):
    try:
        bounded_json.loads("".join(parts))
    except json.JSONDecodeError:
        pass


@hyp_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=40), suffix=st.sampled_from([".yaml", ".json", ".jsonl"]))
def test_a_gold_set_of_any_bytes_ends_in_problems_not_an_exception(tmp_path_factory, parts, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"gold{suffix}"
    path.write_text("".join(parts), encoding="utf-8")
    gold, problems = check_gold(path)
    assert gold is not None or problems


@hyp_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=40), suffix=st.sampled_from([".yaml", ".json", ".jsonl"]))
def test_a_run_of_any_bytes_ends_in_problems_not_an_exception(tmp_path_factory, parts, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"run{suffix}"
    path.write_text('{"id": "q1", "answer": "a"}\n' + "".join(parts), encoding="utf-8")
    try:
        run = load_run(path)
    except InputError as exc:
        assert exc.problems
    else:
        assert run.frame.height >= 1


def test_a_peer_tools_fifo_run_is_read_once_and_named_as_the_fifo(tmp_path):
    fixture = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "deepeval_test_run.json"
    fifo = tmp_path / "test_run.json"
    writer = fifo_with_writer(fifo, fixture.read_bytes())
    run = load_run(fifo)
    writer.join(5)
    assert run.source_format == "deepeval" and run.path == fifo and run.frame.height == 2


def test_a_deep_metadata_line_is_located_by_the_exact_path(tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_text('{"run": {"x": ' + "[" * 5000 + "]" * 5000 + "}}\n" + json.dumps(GOOD) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(run)
    assert messages(caught.value.problems) == [f"{run}:1: -: malformed JSON: nested more than 64 levels deep (column 1)"]
