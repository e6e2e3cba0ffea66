"""The `ragtui` command line: argument parsing and dispatch, nothing heavy at import.

Each command lives in its own module exposing `add_arguments(parser)` and
`run(args) -> int`; that module is imported only when its command runs, so
`ragtui report` never loads textual and `ragtui validate` never loads httpx.
Exit codes (docs/cli.md): 0 ok, 1 a check failed, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from ragtui.cli.messages import say
from ragtui.version import __version__

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "compare": ("ragtui.cli.tui", "open the TUI on two runs: A (reference) and B (candidate)"),
    "open": ("ragtui.cli.tui", "open the TUI on a single run"),
    "report": ("ragtui.cli.report", "the same numbers without a screen: text, markdown, json, or junit, github and html for CI"),
    "validate": ("ragtui.cli.validate", "check gold sets, run files and configs; list every problem"),
    "run": ("ragtui.cli.run", "ask your RAG system every gold question and write the run (resumable)"),
    "gold": ("ragtui.cli.gold", "check a gold set (composition, power, findings) or apply the edits made in triage"),
    "judge": ("ragtui.cli.judge", "fill in judge verdicts by calling an LLM over HTTP"),
    "agreement": ("ragtui.cli.agreement", "the same answers judged twice: agreement, κ, α and the difference of two judges"),
    "convert": ("ragtui.cli.convert", "write a peer tool's file (RAGAS, promptfoo, …) as a ragtui run"),
    "cache": ("ragtui.cli.cache", "where the cache of parsed runs and gold sets lives and what it holds; `ragtui cache clear` empties it"),
}

EPILOG = """\
With no command, `ragtui` opens the bundled sample comparison, and `ragtui A B`
is `ragtui compare A B`. Exit codes: 0 ok, 1 a check failed, 2 usage or unreadable input.
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; `command`'s arguments only when one is given: the other
    commands are listed with their help, their modules not imported (`ragtui A B` starts
    the app without importing the judge's, the report's or the runner's)."""
    parser = argparse.ArgumentParser(
        prog="ragtui",
        description="Tell whether a change to a RAG system helped or hurt, and show which questions broke and why.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ragtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if command is None or name == command:
            importlib.import_module(module_name).add_arguments(command_parser, name)
        command_parser.set_defaults(_module=module_name)
    return parser


def parse_arguments(args_list: list[str]) -> argparse.Namespace:
    """`args_list` (as `_normalise_argv` leaves it) parsed; only the command given has its
    module imported. Raises SystemExit as argparse does (usage errors, --help)."""
    command = args_list[0] if args_list and args_list[0] in COMMANDS else None
    return build_parser(command).parse_args(args_list)


def _normalise_argv(argv: list[str]) -> list[str]:
    """`ragtui` alone opens the sample; `ragtui A B` means `ragtui compare A B`."""
    if not argv:
        return ["compare"]
    first = argv[0]
    if first in COMMANDS or first in ("-h", "--help", "--version"):
        return argv
    return ["compare", *argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    from ragtui.cli.output import abandon_stdout, speak_utf8

    speak_utf8()
    args_list = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    try:
        return _dispatch(args_list)
    except BrokenPipeError:
        # The reader left (`| head -n0`, `| true`): stop without a word, as `git log | head`
        # does; 141 is what a shell shows for a process ended by SIGPIPE.
        abandon_stdout()
        return 141


# The commands that leave nothing for the interpreter's shutdown once `main` returns: every
# file they write is closed by then, every thread they start joined (`run_and_exit`).
_NOTHING_LEFT_AT_EXIT = frozenset({"report"})


def run_and_exit() -> NoReturn:
    """The `ragtui` command and `python -m ragtui`: `main`, then the process ends with its code.

    A load or interval thread still running when the app quits (q pressed early) would be
    stopped by the interpreter's shutdown inside numpy or polars, and that aborts the
    process (see `ragtui.ui.loader`). The app has nothing left to write by then, so the
    process ends without that shutdown, its output flushed. Only here, where ragtui is
    the whole process: `main` itself returns, for tests and the Python API.

    A report ends the same way: once its output is written and flushed, nothing is left
    for the shutdown to do but take apart the modules and frames one by one (0.1–0.2 s,
    a twentieth of a report reopened from the run cache).
    """
    code = main()
    loader = sys.modules.get("ragtui.ui.loader")
    if (loader is not None and loader.busy()) or _normalise_argv(sys.argv[1:])[0] in _NOTHING_LEFT_AT_EXIT:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:  # the terminal or the pipe is gone: nothing more can reach it
                pass
        os._exit(code)
    sys.exit(code)


def _dispatch(args_list: list[str]) -> int:
    try:
        args = parse_arguments(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    module = importlib.import_module(args._module)
    from ragtui.cli.output import flush_stdout
    from ragtui.core.errors import InputError

    try:
        code = int(module.run(args) or 0)
        flush_stdout()  # a full disk must be reported before exit, not as an ignored exception
        return code
    except InputError as exc:
        for item in exc.problems:
            say(f"ragtui: {item}")
        return 2
    except KeyboardInterrupt:
        say("ragtui: interrupted")
        return 130
