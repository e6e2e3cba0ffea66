"""Textual's Unix driver, made a good citizen of the terminal it draws on.

Three changes to `LinuxDriver`, each for a way people run ragtui over SSH:

- It draws on the terminal of standard output, not on standard error: `ragtui 2>log`
  keeps the screen on the terminal and the log readable (the CLI has already checked
  that standard input and output are terminals, `ragtui.cli.terminal`).
- It writes UTF-8 whatever the locale's encoding, so ✓ ▼ and accents reach a terminal
  on a server whose `LANG` still names Latin-1 (terminals speak UTF-8 today).
- SIGTERM and SIGHUP (`kill`, `timeout`, a dropped SSH link, `tmux kill-pane`) end the
  app as `q` does, so the terminal is restored: alternate screen left, cursor shown,
  mouse, focus and paste reporting off. Once the terminal is gone, writes to it are
  dropped instead of failing: the writer thread must never die, or the app would
  block on its full queue instead of exiting.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

from textual.drivers.linux_driver import LinuxDriver

# Signals that end the app as `q` does; the exit code is 128 + the signal, as a shell reports it.
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class TerminalOutput:
    """A write-only text stream on a terminal's file descriptor: UTF-8, errors dropped.

    `WriterThread` calls `write` for each chunk then `flush`; the chunks are joined and
    written with `os.write` in one go, as the buffered stream it replaces did.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending: list[str] = []
        self.gone = False  # the terminal went away (EIO after a hang-up, EPIPE)

    def write(self, text: str) -> int:
        self._pending.append(text)
        return len(text)

    def flush(self) -> None:
        data = "".join(self._pending).encode("utf-8", "replace")
        self._pending.clear()
        while data and not self.gone:
            try:
                written = os.write(self._fd, data)
            except InterruptedError:
                continue
            except OSError:
                self.gone = True  # nothing left to draw on
                return
            data = data[written:]

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)


class TerminalDriver(LinuxDriver):
    """`LinuxDriver` drawing on standard output's terminal, restoring it on SIGTERM/SIGHUP."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert sys.__stdout__ is not None, "the app draws on standard output's terminal"
        self._file = TerminalOutput(sys.__stdout__.fileno())  # type: ignore[assignment]  # LinuxDriver writes to it as to a text file
        self._signal_loop: asyncio.AbstractEventLoop | None = None

    def start_application_mode(self) -> None:
        super().start_application_mode()
        loop = asyncio.get_running_loop()
        for signum in EXIT_SIGNALS:
            loop.add_signal_handler(signum, self._exit_on_signal, signum)
        self._signal_loop = loop

    def stop_application_mode(self) -> None:
        # Also called on Ctrl+Z: the handlers come back with application mode on `fg`.
        if self._signal_loop is not None:
            if not self._signal_loop.is_closed():
                for signum in EXIT_SIGNALS:
                    self._signal_loop.remove_signal_handler(signum)
            self._signal_loop = None
        super().stop_application_mode()

    def _exit_on_signal(self, signum: int) -> None:
        """Leave as `q` does (the terminal is restored on the way out), with code 128 + signum."""
        self._app.exit(return_code=128 + signum)
