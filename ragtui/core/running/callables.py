"""A system given as Python functions: `--retriever`/`--generator`, or one `--system`.

The course's shapes: `chercher(question, k) -> [{"id", "text", "score"?}, …]`,
`repondre(question, passages) -> str | {"answer", "tokens_in"?, "tokens_out"?, "cost_usd"?}`,
or `answer(question, k) -> {"passages": [...], "answer": ...}`. Each is named
`FILE.py:function` (the file's folder goes first on `sys.path`, as when running it as a
script, so it can import its neighbours) or `package.module:function`. Async functions
are awaited; plain ones run in worker threads, so `-j N` asks N questions at once
(a function that is not thread-safe wants `-j 1`).

Loading checks the import, the name and the signature; a problem is an InputError naming
the function and what is wrong. An exception raised by a function while answering is a
`SystemFailure` (its type and message), a return of the wrong shape too (naming the field).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.running.answers import (
    ShapeError,
    SystemAnswer,
    SystemFailure,
    generation_from,
    passages_from,
    system_answer_from,
)

# Role → (option, the parameters it is called with, what it returns), for messages.
ROLES = {
    "retriever": ("--retriever", "(question, k)", "a list of {id, text, score}"),
    "generator": ("--generator", "(question, passages)", "a string or {answer, tokens_in, tokens_out, cost_usd}"),
    "system": ("--system", "(question, k)", "{passages: [...], answer: ...}"),
}


@dataclass(frozen=True)
class LoadedFunction:
    """A function of the system under test, with what messages call it (`retr.py:chercher`)."""

    function: Callable[..., Any]
    spec: str
    is_async: bool
    source: Path | None  # the file it was defined in, when known (for the git commit)

    async def __call__(self, *args: Any) -> Any:
        if self.is_async:
            return await self.function(*args)
        return await asyncio.to_thread(self.function, *args)


def _module_from_file(path: Path, spec: str, option: str) -> ModuleType:
    if not path.is_file():
        raise InputError(problem(option, None, spec, f"file not found: {path}"))
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = f"ragtui_system_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise InputError(problem(option, None, spec, f"cannot import {path} as Python"))
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_function(spec: str, role: str) -> LoadedFunction:
    """`FILE.py:name` or `package.module:name`, imported and its signature checked.

    Raises:
        InputError: the spec is malformed, the module does not import, the name is not a
            function, or it cannot be called with the role's two arguments.
    """
    option, parameters, _ = ROLES[role]
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise InputError(problem(option, None, spec, "expected FILE.py:function or package.module:function"))
    try:
        if where.endswith(".py") or "/" in where or "\\" in where:
            module = _module_from_file(Path(where), spec, option)
        else:
            module = importlib.import_module(where)
    except InputError:
        raise
    except SyntaxError as exc:
        raise InputError(problem(exc.filename or where, exc.lineno, spec, f"does not import: SyntaxError: {exc.msg}")) from None
    except BaseException as exc:  # whatever the module raises at import (SystemExit included)
        raise InputError(problem(option, None, spec, f"does not import: {type(exc).__name__}: {exc}")) from None
    function = getattr(module, name, None)
    if function is None:
        raise InputError(problem(option, None, spec, f"no function '{name}' in {where}"))
    if not callable(function):
        raise InputError(problem(option, None, spec, f"'{name}' is a {type(function).__name__}, not a function"))
    try:
        inspect.signature(function).bind(None, None)
    except TypeError:
        raise InputError(problem(option, None, spec, f"wrong signature: it is called as {name}{parameters}")) from None
    except ValueError:  # a builtin without a signature: trust it
        pass
    source = getattr(module, "__file__", None)
    is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(type(function).__call__)
    return LoadedFunction(function, spec, is_async, Path(source) if source else None)


def _failure(function: LoadedFunction, exc: BaseException) -> SystemFailure:
    return SystemFailure(f"{function.spec} raised {type(exc).__name__}: {exc}")


class CallableSystem:
    """The system under test as Python functions: one `system`, or a `retriever` and a `generator`."""

    def __init__(self, *, system: LoadedFunction | None = None, retriever: LoadedFunction | None = None, generator: LoadedFunction | None = None):
        if (system is None) == (retriever is None or generator is None):
            raise InputError(problem("command line", None, "--system", "give either --system, or both --retriever and --generator"))
        self.system = system
        self.retriever = retriever
        self.generator = generator
        self.retries = 0  # a function is called once a question: nothing is retried

    @property
    def description(self) -> str:
        if self.system is not None:
            return f"python {self.system.spec}"
        assert self.retriever is not None and self.generator is not None
        return f"python {self.retriever.spec} + {self.generator.spec}"

    @property
    def sources(self) -> list[Path]:
        functions = (self.system, self.retriever, self.generator)
        return [f.source for f in functions if f is not None and f.source is not None]

    async def __aenter__(self) -> CallableSystem:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def ask(self, question_id: str, question: str, k: int) -> SystemAnswer:
        """Answer one question. Raises SystemFailure (an exception in the code, a bad shape)."""
        if self.system is not None:
            return await self._ask_system(self.system, question, k)
        assert self.retriever is not None and self.generator is not None
        started = time.perf_counter()
        try:
            found = await self.retriever(question, k)
        except Exception as exc:
            raise _failure(self.retriever, exc) from None
        try:
            passages = passages_from(found, f"{self.retriever.spec} returned")
        except ShapeError as exc:
            raise SystemFailure(str(exc)) from None
        retrieved = time.perf_counter()
        try:
            generated = await self.generator(question, passages)
        except Exception as exc:
            raise _failure(self.generator, exc) from None
        try:
            answer, usage = generation_from(generated, f"{self.generator.spec} returned")
        except ShapeError as exc:
            raise SystemFailure(str(exc)) from None
        done = time.perf_counter()
        return SystemAnswer(passages, answer, usage, (retrieved - started) * 1000.0, (done - retrieved) * 1000.0)

    async def _ask_system(self, system: LoadedFunction, question: str, k: int) -> SystemAnswer:
        try:
            reply = await system(question, k)
        except Exception as exc:
            raise _failure(system, exc) from None
        try:
            return system_answer_from(reply, f"{system.spec} returned")
        except ShapeError as exc:
            raise SystemFailure(str(exc)) from None
