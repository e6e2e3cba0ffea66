"""What the hostile-input bounds cost on ordinary files: each bounded reader beside the
unbounded one it replaces, measured in the same run (best of `--repeat`).

- `bounded_json.loads` against `json.loads`, on every line of the sample run (the exact
  JSONL path reads a run line by line) and on one JSON document of all of them;
- the same on a whole run read by the exact path (`check_run`: every record validated),
  where the JSON decode is one part of the work;
- `yaml_safe.safe_load` (the composed document checked before it is built) against
  PyYAML's own safe load, on the sample gold set repeated into a large document.

Prints figures; asserts nothing. Name the machine when quoting them.

Usage: python bench/bench_bounds.py [--copies 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from ragtui.core.loading import bounded_json  # noqa: E402
from ragtui.core.loading.runs import check_run  # noqa: E402
from ragtui.core.loading.yaml_safe import SAFE_LOADER, safe_load  # noqa: E402


def pair(bounded: Callable[[], object], peer: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best time of each, the two run in turn (a shared machine's load falls on both alike)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, found in ((bounded, times[0]), (peer, times[1])):
            started = time.perf_counter()
            action()
            found.append(time.perf_counter() - started)
    return min(times[0]), min(times[1])


def row(what: str, figures: tuple[float, float]) -> None:
    bounded, peer = figures
    print(f"{what:<44} {bounded * 1000:9.1f} ms   {peer * 1000:9.1f} ms   ×{bounded / peer:5.2f}")


def main(copies: int, repeat: int) -> None:
    lines = (REPO / "sample_data" / "baseline.jsonl").read_text(encoding="utf-8").splitlines()[1:] * copies
    document = "[" + ",".join(lines) + "]"
    gold = (REPO / "sample_data" / "gold.yaml").read_text(encoding="utf-8")
    big_gold = gold * copies  # a list of records, repeated: one longer list
    print(f"{platform.node()} · Python {platform.python_version()} · {copies} copies of the sample, best of {repeat}")
    print(f"{'':<44} {'bounded':>12}   {'unbounded':>12}")
    row(f"JSON, {len(lines):,} run lines one by one", pair(lambda: [bounded_json.loads(line) for line in lines], lambda: [json.loads(line) for line in lines], repeat))
    row(f"JSON, one document of {len(document) / 1e6:.1f} MB", pair(lambda: bounded_json.loads(document), lambda: json.loads(document), repeat))
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run.jsonl"
        run.write_text("\n".join(lines) + "\n", encoding="utf-8")
        bounded_loads = bounded_json.loads

        def unbounded() -> None:
            bounded_json.loads = json.loads
            try:
                check_run(run)
            finally:
                bounded_json.loads = bounded_loads

        row(f"a run of {len(lines):,} questions, check_run", pair(lambda: check_run(run), unbounded, repeat))
    row(f"YAML, a gold set of {len(big_gold) / 1e6:.1f} MB", pair(lambda: safe_load(big_gold), lambda: yaml.load(big_gold, Loader=SAFE_LOADER), repeat))  # noqa: S506 - the safe loader


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    main(arguments.copies, arguments.repeat)
