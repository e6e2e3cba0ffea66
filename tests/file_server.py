"""A file server on 127.0.0.1 with HEAD and byte ranges, as object stores serve Parquet runs:
what the remote-run tests (core, CLI and the app) fetch from."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves files of `root` with HEAD and byte ranges, as object stores do."""

    root: Path
    requests: list[str]

    def log_message(self, *args) -> None:  # quiet
        pass

    def _file(self) -> Path | None:
        path = self.root / self.path.split("?")[0].lstrip("/")
        return path if path.is_file() else None

    def do_HEAD(self) -> None:
        path = self._file()
        if path is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(path.stat().st_size))
        self.end_headers()

    def do_GET(self) -> None:
        self.requests.append(self.path)
        path = self._file()
        if path is None:
            self.send_error(404)
            return
        data = path.read_bytes()
        wanted = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        if wanted:
            first, last = wanted.groups()
            start = int(first) if first else max(0, len(data) - int(last))
            end = int(last) if first and last else len(data) - 1
            body = data[start : end + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        else:
            body = data
            self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(root: Path) -> Iterator[tuple[str, Path, list[str]]]:
    """(base URL, served folder `root/bucket`, requested paths) of a file server on 127.0.0.1."""
    (root / "bucket").mkdir(parents=True)
    requests: list[str] = []
    handler = type("Handler", (_RangeHandler,), {"root": root, "requests": requests})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root / "bucket", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
