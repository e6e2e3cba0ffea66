"""YAML read with a safe loader: libyaml's C one where PyYAML has it.

The C loader is about ten times faster than PyYAML's Python one (a large gold set; the
themes and settings every app start reads). Both build plain data only, and both raise
`yaml.MarkedYAMLError` with the line of a malformed file.

A safe loader still builds what a hostile file asks for: PyYAML raises ValueError for an
impossible date (`2024-02-30`) or an integer of thousands of digits, a double-quoted
`"\ud800"` is a lone surrogate no UTF-8 stream can write, a recursive alias
(`&x [*x]`) builds a list that holds itself, and a few aliases of aliases ("billion
laughs") stand for billions of values that any walk over them (a message, a JSON copy)
expands. The composed document is checked first, so each of these is a
`YAMLLimitError` — a `MarkedYAMLError` naming the line — and every caller's one
`except yaml.MarkedYAMLError` reports it like any malformed file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ragtui.core.errors import InputError, Problem, problem
from ragtui.core.loading.bounded_json import MAX_DEPTH, MAX_INT_DIGITS, has_lone_surrogate

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# How many values aliases may add to a document once expanded (beyond its own nodes, which
# a large run has millions of): a few shared lists are far under, a billion laughs a billion.
MAX_EXPANDED_NODES = 10_000_000

_INT_TAG = "tag:yaml.org,2002:int"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class YAMLLimitError(yaml.MarkedYAMLError):
    """A well-formed document ragtui refuses to build (see the module's docstring)."""

    def __init__(self, message: str, node: yaml.Node):
        super().__init__(problem=message, problem_mark=node.start_mark)


def yaml_problem(path: Path | str, exc: yaml.YAMLError) -> Problem:
    """The one message for a YAML document that cannot be loaded, at its line when known."""
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    reason = getattr(exc, "problem", None) or str(exc)
    return problem(path, line, None, f"malformed YAML: {reason}")


def load_yaml_file(path: Path | str, text: str | bytes) -> tuple[yaml.Node | None, Any]:
    """`safe_load_with_node` for a file's text; anything refused is an InputError naming it."""
    try:
        return safe_load_with_node(text)
    except yaml.YAMLError as exc:
        raise InputError(yaml_problem(path, exc)) from None


def safe_load(text: str | bytes) -> Any:
    """The data of one YAML document."""
    return safe_load_with_node(text)[1]


def safe_load_with_node(text: str | bytes) -> tuple[yaml.Node | None, Any]:
    """The document's node (which knows each value's line) and its data, from one parse.

    Raises `yaml.MarkedYAMLError` (a `YAMLLimitError` for what the checks refuse).
    """
    loader = SAFE_LOADER(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the Python composer on a document nested thousands deep
            raise yaml.MarkedYAMLError(problem="nested too deep") from None
        if node is None:
            return None, None
        _check(node, loader)
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def _check(root: yaml.Node, loader: Any) -> None:
    """Refuse cycles, alias bombs, deep nesting, over-long integers and impossible dates, walking the
    node graph once without recursion (a shared node is counted, not walked, again)."""
    expanded: dict[int, int] = {}  # id(node) -> how many values it stands for
    on_path: set[int] = set()
    first_too_large: yaml.Node | None = None  # the smallest value past the bound: the bomb's anchor
    stack: list[tuple[yaml.Node, bool, int]] = [(root, False, 0)]
    while stack:
        node, children_done, depth = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)] for child in _children(node))
            if first_too_large is None and expanded[key] > MAX_EXPANDED_NODES:
                first_too_large = node
            continue
        if key in expanded:
            continue
        if key in on_path:
            raise YAMLLimitError("a recursive alias: the value contains itself", node)
        if isinstance(node, yaml.ScalarNode):
            _check_scalar(node, loader)
            expanded[key] = 1
            continue
        if depth >= MAX_DEPTH:
            raise YAMLLimitError(f"nested more than {MAX_DEPTH} levels deep", node)
        on_path.add(key)
        stack.append((node, True, depth))
        for child in _children(node):
            if id(child) in on_path:
                raise YAMLLimitError("a recursive alias: the value contains itself", child)
            if id(child) not in expanded:
                stack.append((child, False, depth + 1))
    if expanded[id(root)] - len(expanded) > MAX_EXPANDED_NODES:
        raise YAMLLimitError(f"aliases expand to more than {MAX_EXPANDED_NODES:,} values", first_too_large or root)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_scalar(node: yaml.ScalarNode, loader: Any) -> None:
    if node.tag == _INT_TAG and len(node.value.replace("_", "")) > MAX_INT_DIGITS + 2:  # a sign, a 0x
        raise YAMLLimitError(f"an integer of more than {MAX_INT_DIGITS} digits", node)
    if has_lone_surrogate(node.value):  # `"\ud800"` in a double-quoted scalar: no UTF-8 text
        raise YAMLLimitError("a lone surrogate (\\ud800–\\udfff): not UTF-8 text", node)
    if node.tag == _TIMESTAMP_TAG:
        try:
            loader.construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:
            raise YAMLLimitError(f"an impossible date {node.value[:40]!r} ({exc})", node) from None
