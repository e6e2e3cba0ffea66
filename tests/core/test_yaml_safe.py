"""The C YAML loader (used where PyYAML has it) reads the project's files as the Python one does."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ragtui.core.loading.yaml_safe import SAFE_LOADER, safe_load, safe_load_with_node

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*REPO.glob("themes/*.yaml"), *REPO.glob("sample_data/*.yaml"), *REPO.glob("ragtui/**/*.yaml")])


def test_the_c_loader_is_the_one_used_where_pyyaml_has_it():
    assert SAFE_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_yaml_file_reads_the_same_with_either_loader(path):
    text = path.read_text(encoding="utf-8")
    assert safe_load(text) == yaml.safe_load(text)  # PyYAML's own: the Python safe loader


def test_a_documents_node_keeps_each_values_line():
    node, data = safe_load_with_node("a: 1\nb:\n  - x\n  - y\n")
    assert data == {"a": 1, "b": ["x", "y"]}
    (_, first), (_, second) = node.value
    assert (first.start_mark.line, second.start_mark.line) == (0, 2)


def test_a_malformed_file_names_the_same_line_with_either_loader():
    text = "a: 1\nb: [2, 3\nc: 4\n"
    lines = []
    for load in (safe_load, yaml.safe_load):
        with pytest.raises(yaml.MarkedYAMLError) as raised:
            load(text)
        lines.append(raised.value.problem_mark.line)
    assert lines[0] == lines[1] == 2


def test_python_objects_are_refused_as_by_the_python_safe_loader():
    with pytest.raises(yaml.constructor.ConstructorError):
        safe_load("!!python/object/apply:os.system ['true']")
