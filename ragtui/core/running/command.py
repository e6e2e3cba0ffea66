"""A system behind any program: one JSON request a line on its stdin, one JSON answer a line on its stdout.

For teams whose system is not Python. The command is started once (split like a shell
would, without a shell) and reads `{"id", "question", "k"}` lines; it writes one
`{"passages": [...], "answer": ...}` line per request (`retrieved` accepted), in order —
or in any order when each answer carries the request's `id`. `{"id", "error": "why"}` is
that question's system error, as is a line that is not JSON or not of that shape. With
`-j N`, up to N requests are written ahead, so a program reading them one by one never
waits on ragtui.

A program that exits (or closes its stdout) while questions are pending stops the run:
the question it was answering is recorded as a system error naming the exit code and
the end of its stderr; the others are not recorded, and the same command again resumes
with them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.running.answers import ShapeError, SystemAnswer, SystemFailure, SystemStopped, system_answer_from

STDERR_TAIL = 20  # lines of the program's stderr kept for the message when it dies
LINE_LIMIT = 64 * 1024 * 1024  # one answer line may be long (passages with their texts)


@dataclass
class _Pending:
    question_id: str
    future: asyncio.Future[SystemAnswer]


class CommandSystem:
    """Runs `command` and talks JSON lines with it; use as `async with CommandSystem(...) as system`."""

    def __init__(self, command: str, *, fields: dict[str, str] | None = None, cwd: Path | None = None):
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise InputError(problem("--command", None, None, f"cannot split {command!r}: {exc}")) from None
        if not self.argv:
            raise InputError(problem("--command", None, None, "the command is empty"))
        self.command = command
        self.fields = fields or {}
        self.cwd = cwd
        self.retries = 0
        self._process: asyncio.subprocess.Process | None = None
        self._pending: collections.deque[_Pending] = collections.deque()
        self._write_lock = asyncio.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._tasks: list[asyncio.Task[None]] = []
        self._gone: str | None = None  # why the program can answer no more

    @property
    def description(self) -> str:
        return f"command {self.command}"

    @property
    def sources(self) -> list[Path]:
        """The program's script when the command names a file (`python my_system.py`), else none."""
        return [Path(arg) for arg in self.argv[:3] if Path(arg).is_file() and not Path(arg).name.startswith("python")]

    async def __aenter__(self) -> CommandSystem:
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                limit=LINE_LIMIT,
            )
        except OSError as exc:
            raise InputError(problem("--command", None, self.argv[0], f"cannot start: {exc.strerror or exc}")) from None
        self._tasks = [asyncio.create_task(self._read_answers()), asyncio.create_task(self._read_stderr())]
        return self

    async def __aexit__(self, *exc: object) -> None:
        process = self._process
        if process is None:
            return
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), timeout=5.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def ask(self, question_id: str, question: str, k: int) -> SystemAnswer:
        """One question. Raises SystemFailure, or SystemStopped once the program is gone."""
        process = self._process
        assert process is not None and process.stdin is not None, "use `async with CommandSystem(...)`"
        if self._gone is not None:
            raise SystemStopped(self._gone)
        names = self.fields
        request = {names.get("id", "id"): question_id, names.get("question", "question"): question, names.get("k", "k"): k}
        future: asyncio.Future[SystemAnswer] = asyncio.get_running_loop().create_future()
        async with self._write_lock:
            self._pending.append(_Pending(question_id, future))
            try:
                process.stdin.write((json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8"))
                await process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the reader sees the program go and fails what is pending
        return await future

    def _answer(self, line: bytes) -> tuple[str | None, SystemAnswer | SystemFailure]:
        """(the id the line names, if any; its answer or its failure)."""
        try:
            data: Any = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return None, SystemFailure(f"malformed JSON on the command's stdout: {exc}")
        named = data.get(self.fields.get("id", "id")) if isinstance(data, dict) else None
        named_id = None if named is None else str(named)
        if isinstance(data, dict) and data.get("error") is not None:
            return named_id, SystemFailure(f"the command reported: {str(data['error'])[:500]}")
        try:
            return named_id, system_answer_from(data, "answer line", self.fields)
        except ShapeError as exc:
            return named_id, SystemFailure(f"unexpected answer line: {exc}")

    def _settle(self, named_id: str | None, outcome: SystemAnswer | SystemFailure) -> None:
        pending = next((p for p in self._pending if p.question_id == named_id), None) if named_id is not None else None
        if pending is None and self._pending:
            pending = self._pending[0]
        if pending is None:
            return  # an answer nobody asked for: ignored
        self._pending.remove(pending)
        if isinstance(outcome, SystemFailure):
            pending.future.set_exception(outcome)
        else:
            pending.future.set_result(outcome)

    async def _read_answers(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        while True:
            try:
                line = await process.stdout.readline()
            except ValueError:  # a line beyond LINE_LIMIT
                self._settle(None, SystemFailure(f"an answer line longer than {LINE_LIMIT} bytes"))
                continue
            if not line:
                break
            if line.strip():
                self._settle(*self._answer(line))
        code = await process.wait()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):  # its last stderr lines
            await asyncio.wait_for(asyncio.shield(self._tasks[1]), timeout=1.0)
        tail = " | ".join(self._stderr)
        why = f"the command exited with code {code}" + (f" (stderr: {tail[-500:]})" if tail else "")
        self._gone = why
        first = True
        while self._pending:
            pending = self._pending.popleft()
            # The question it was answering failed with it; the others were only queued.
            pending.future.set_exception(SystemFailure(why) if first else SystemStopped(why))
            first = False

    async def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        async for raw in process.stderr:
            text = raw.decode("utf-8", "replace").rstrip()
            if text:
                self._stderr.append(text)
