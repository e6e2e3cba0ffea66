"""Regenerate ragtui's bundled sample evaluation (sample_data/), byte for byte.

    python tools/make_sample_data.py [--out DIR]

Reads the hand-written corpus (sample_data/corpus/) and questions
(tools/sample_data_gen/questions_*.yaml), runs both retrieval pipelines for real,
synthesises the answers and verdicts, and writes gold.yaml, baseline.jsonl,
candidate.jsonl and ragtui.yaml. No clock, no network, fixed seeds: the same inputs give
the same bytes. Only the standard library and PyYAML.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script, this file's folder is on sys.path, and with it the generator package.
from sample_data_gen.build import DEFAULT_OUT, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
