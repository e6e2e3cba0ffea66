"""YAML read with a safe loader: libyaml's C one where PyYAML has it.

The C loader is about ten times faster than PyYAML's Python one (a large gold set; the
themes and settings every app start reads). Both build plain data only, and both raise
`yaml.MarkedYAMLError` with the line of a malformed file.
"""

from __future__ import annotations

from typing import Any

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str | bytes) -> Any:
    """The data of one YAML document."""
    return safe_load_with_node(text)[1]


def safe_load_with_node(text: str | bytes) -> tuple[yaml.Node | None, Any]:
    """The document's node (which knows each value's line) and its data, from one parse."""
    loader = SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        return node, loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
