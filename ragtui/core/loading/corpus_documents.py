"""Which document each passage of a corpus belongs to: all the statistics need of `--corpus`.

A corpus is a folder of YAML files (or one file), each naming its `document` and listing its
`passages` by `id` — the layout of the sample's `corpus/`. Only that mapping is read here;
`passage_documents` is the one entry point, so a fuller corpus reader can take its place.
"""

from __future__ import annotations

from pathlib import Path

from ragtui.core.errors import InputError, Problem, problem


def _documents_of_file(path: Path, problems: list[Problem]) -> dict[str, str]:
    import yaml

    from ragtui.core.loading.records import read_bytes_utf8
    from ragtui.core.loading.yaml_safe import safe_load

    try:
        data = safe_load(read_bytes_utf8(path))
    except InputError as exc:
        problems.extend(exc.problems)
        return {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problems.append(problem(path, mark.line + 1 if mark is not None else None, None, f"malformed YAML: {getattr(exc, 'problem', exc)}"))
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("document"), str) or not isinstance(data.get("passages"), list):
        problems.append(problem(path, None, "document", "expected a mapping with `document` and a list of `passages`"))
        return {}
    document = data["document"]
    return {str(p["id"]): document for p in data["passages"] if isinstance(p, dict) and p.get("id") is not None}


def passage_documents(path: str | Path) -> dict[str, str]:
    """Passage id → document, over a corpus folder (every *.yaml / *.yml in it) or one file."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".yaml", ".yml"))
    elif path.is_file():
        files = [path]
    else:
        raise InputError(problem(path, None, None, "no such corpus file or folder"))
    problems: list[Problem] = []
    mapping: dict[str, str] = {}
    for file in files:
        mapping.update(_documents_of_file(file, problems))
    if problems:
        raise InputError(problems)
    return mapping
