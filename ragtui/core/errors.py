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


def shown(value: object, limit: int = 40) -> str:
    """A value as a message quotes it: JSON-like, at most `limit` characters.

    Built piece by piece and stopped at the limit, so a value that holds itself, or
    stands for billions of values through YAML aliases, costs no more than its first
    `limit` characters (`json.dumps` of the whole value would expand all of it).
    """
    pieces: list[str] = []
    size = 0
    stack: list[object] = [value]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, dict):
            piece = "{"
            stack.append(_Text("}"))
            for index, (key, val) in reversed(list(enumerate(list(item.items())[:limit]))):
                stack += [val, _Text(": "), key] + ([_Text(", ")] if index else [])
        elif isinstance(item, list | tuple):
            piece = "["
            stack.append(_Text("]"))
            for index, element in reversed(list(enumerate(item[:limit]))):
                stack.append(element)
                if index:
                    stack.append(_Text(", "))
        else:
            piece = _scalar(item)
        pieces.append(piece)
        size += len(piece)
    text = "".join(pieces)
    return text if len(text) <= limit and not stack else text[: limit - 1] + "…"


class _Text:
    """Punctuation pushed among the values still to show."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 128:
        return f"<a number of {len(str(value)) if value.bit_length() < 10_000 else 'thousands of'} digits>"
    if isinstance(value, str):
        return '"' + value[:80].replace("\\", "\\\\").replace('"', '\\"') + ('…"' if len(value) > 80 else '"')
    return str(value)[:80]
