"""Problems found in input files, and the one exception type loaders raise."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as the format allows.

    `line` is the 1-based line for line-oriented files (JSONL, YAML, CSV) or the
    1-based record index where lines do not apply (Parquet, JSON arrays); None when the
    problem concerns the whole file.
    """

    file: str
    line: int | None
    field: str | None
    message: str
    # "error" makes an input unusable; a "warning" is shown but the input loads.
    severity: str = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        field = self.field or "-"
        prefix = "" if self.is_error else "warning: "
        return f"{where}: {field}: {prefix}{self.message}"


class InputError(Exception):
    """An input cannot be used. The CLI prints every problem and exits with code 2."""

    def __init__(self, problems: Problem | list[Problem]):
        self.problems: list[Problem] = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def problem(file: object, line: int | None, field: str | None, message: str) -> Problem:
    """Shorthand that accepts a Path or str for the file."""
    return Problem(str(file), line, field, message)


def warning(file: object, line: int | None, field: str | None, message: str) -> Problem:
    """A problem that is shown but does not stop the input from loading."""
    return Problem(str(file), line, field, message, "warning")
