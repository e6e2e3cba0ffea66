"""The app on a real (pseudo-)terminal: signals restore it, ctrl+z suspends, stderr stays clean.

Each test starts `python -m ragtui` on the bundled sample under a pseudo-terminal of
80×24, as a shell over SSH would, and reads what the app writes to it. Nothing here
sleeps for a fixed time: reads poll with short timeouts until the awaited bytes arrive.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals only")

REPO = Path(__file__).resolve().parents[2]
ENTER_ALT_SCREEN = b"\x1b[?1049h"
# What `q` leaves behind: the alternate screen left, the cursor shown, mouse, focus and
# bracketed-paste reporting off.
RESTORE = (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l", b"\x1b[?1004l", b"\x1b[?2004l")
TIMEOUT = 60.0  # generous for a loaded CI machine; the tests return as soon as the bytes arrive


class TerminalSession:
    """`ragtui` started on the slave side of a pty; the test holds the master side."""

    def __init__(self, tmp_path: Path, *, stderr=None, env: dict[str, str] | None = None, argv: list[str] | None = None) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path), **(env or {})}
        for name in ("NO_COLOR", "COLUMNS", "LINES"):
            env.pop(name, None)
        self.process = subprocess.Popen(
            argv or [sys.executable, "-m", "ragtui"],
            stdin=slave,
            stdout=slave,
            stderr=slave if stderr is None else stderr,
            cwd=REPO,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.output = b""

    def read_until(self, needle: bytes, start: int = 0) -> int:
        """Read until `needle` appears after offset `start`; return the offset just past it."""
        deadline = time.monotonic() + TIMEOUT
        while needle not in self.output[start:]:
            assert time.monotonic() < deadline, f"{needle!r} never came; last output: {self.output[-300:]!r}"
            self._read(0.05)
        return self.output.index(needle, start) + len(needle)

    def read_to_exit(self) -> int:
        """Read everything until the app exits; returns its exit code."""
        deadline = time.monotonic() + TIMEOUT
        while self.process.poll() is None:
            assert time.monotonic() < deadline, "the app did not exit"
            self._read(0.05)
        while self._read(0.05):  # what is left in the pty
            pass
        return self.process.returncode

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the slave side is closed
            return False
        self.output += data
        return bool(data)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path):
    sessions: list[TerminalSession] = []

    def start(**kwargs) -> TerminalSession:
        session = TerminalSession(tmp_path, **kwargs)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.close()


def _assert_restored(output: bytes) -> None:
    missing = [sequence for sequence in RESTORE if sequence not in output]
    assert not missing, f"terminal left with {missing!r} not reset"


def test_q_restores_the_terminal_and_exits_0(terminal):
    session = terminal()
    session.read_until(b"Quit")
    os.write(session.master, b"q")
    assert session.read_to_exit() == 0
    _assert_restored(session.output)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_restore_the_terminal_as_q_does(terminal, signum, code):
    session = terminal()
    started = session.read_until(b"Quit")
    session.process.send_signal(signum)
    assert session.read_to_exit() == code  # 128 + the signal, as a shell reports it
    _assert_restored(session.output[started:])


def test_a_hang_up_with_the_terminal_gone_still_ends_the_app(terminal):
    session = terminal()
    session.read_until(b"Quit")
    os.close(session.master)  # the SSH link dropped: every write to the terminal now fails
    session.master = os.open(os.devnull, os.O_RDONLY)  # so close() has something to close
    session.process.send_signal(signal.SIGHUP)
    assert session.process.wait(timeout=TIMEOUT) == 129


def test_ctrl_z_suspends_to_the_shell_and_fg_comes_back_to_the_same_screen(terminal):
    session = terminal()
    session.read_until(b"Quit")
    suspended_at = len(session.output)
    os.write(session.master, b"\x1a")  # ctrl+z
    deadline = time.monotonic() + TIMEOUT
    while True:  # stopped, as a shell's job control sees it
        pid, status = os.waitpid(session.process.pid, os.WUNTRACED | os.WNOHANG)
        if pid and os.WIFSTOPPED(status):
            break
        assert time.monotonic() < deadline, "ctrl+z did not suspend the app"
        session._read(0.05)
    session._read(0.05)
    _assert_restored(session.output[suspended_at:])  # the shell gets a usable terminal
    resumed_at = len(session.output)
    os.kill(session.process.pid, signal.SIGCONT)  # `fg`
    back = session.read_until(ENTER_ALT_SCREEN, resumed_at)
    session.read_until(b"Quit", back)  # the dashboard is drawn again
    os.write(session.master, b"q")
    assert session.read_to_exit() == 0


# The app as `python -m ragtui` starts it (argv is empty after `-c`), its intervals thread kept inside numpy's C++
# code (np.unique) for a minute, as a large comparison's bootstraps would be.
_BUSY_INTERVALS = """
import os, sys, numpy as np
from pathlib import Path
from ragtui.ui import loader
def fill_intervals(data):
    values = np.arange(200_000) % 977
    Path(os.environ["BUSY_FLAG"]).touch()  # the test presses q once this exists
    for _ in range(100_000):
        np.unique(values)
    return data
loader.fill_intervals = fill_intervals
from ragtui.cli import run_and_exit
run_and_exit()
"""


def test_q_while_the_intervals_are_still_computing_exits_0_without_an_abort(terminal, tmp_path):
    # Python's shutdown stops a daemon thread inside C++ code by unwinding it, which
    # aborts the process: "terminate called without an active exception", exit -6.
    flag = tmp_path / "busy"
    session = terminal(argv=[sys.executable, "-c", _BUSY_INTERVALS], env={"BUSY_FLAG": str(flag)})
    session.read_until(b"Quit")
    deadline = time.monotonic() + TIMEOUT
    while not flag.exists():
        assert time.monotonic() < deadline, "the intervals never started"
        session._read(0.05)
    os.write(session.master, b"q")
    assert session.read_to_exit() == 0
    assert b"terminate called" not in session.output
    _assert_restored(session.output)


def test_the_app_draws_on_the_terminal_not_on_a_redirected_stderr(terminal, tmp_path):
    log = tmp_path / "log"
    with log.open("wb") as stderr:
        session = terminal(stderr=stderr)
        session.read_until(b"Quit")  # the screen reached the terminal…
        os.write(session.master, b"q")
        assert session.read_to_exit() == 0
    _assert_restored(session.output)
    assert b"\x1b[" not in log.read_bytes()  # …and not one escape code reached the log


def test_the_screen_is_utf8_under_a_latin1_locale(terminal):
    # PYTHONIOENCODING stands in for a Latin-1 locale whether or not one is installed here.
    session = terminal(env={"LANG": "fr_FR.ISO-8859-1", "PYTHONIOENCODING": "latin-1:backslashreplace"})
    session.read_until("✓".encode())  # the sample's dashboard shows ✓ marks, in UTF-8
    os.write(session.master, b"q")
    assert session.read_to_exit() == 0
