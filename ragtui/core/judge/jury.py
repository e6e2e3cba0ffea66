"""A jury: the same run judged by two models (`ragtui judge --jury M1,M2`).

The first model's verdicts are the run's `judge`, as with one judge, so every view reads
them as before; each further model's whole judge object is kept beside it, per record, in
`jury` (a list of judge objects, each naming its `model`). The verdict inspector shows the
jurors side by side; `ragtui agreement` compares two judged files (`--jury` writes each
further juror's run as its own file too, `OUT.jury-2.jsonl`, to compare with OUT).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JURY_FIELD = "jury"


def jury_models(text: str) -> tuple[str, ...]:
    """`M1,M2` → ("M1", "M2"); at least two distinct names, else ValueError (the CLI says why)."""
    models = tuple(part.strip() for part in text.split(",") if part.strip())
    if len(models) < 2 or len(set(models)) != len(models):
        raise ValueError(f"expected two or more distinct models, M1,M2, found {text!r}")
    return models


def juror_path(out: Path, position: int) -> Path:
    """Where juror `position` (2, 3, …) is written as a run of its own: OUT.jury-2.jsonl."""
    return out.with_name(f"{out.stem}.jury-{position}{out.suffix}")


def with_jury(records: list[dict[str, Any]], jurors: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The first judge's records, each carrying the further jurors' judge objects in `jury`."""
    out = []
    for index, record in enumerate(records):
        verdicts = [juror[index].get("judge") for juror in jurors]
        out.append({**record, JURY_FIELD: [v for v in verdicts if isinstance(v, dict)]})
    return out


@dataclass(frozen=True)
class JurorVerdict:
    """One juror's verdicts on one answer, as the inspector shows them."""

    model: str
    attested: tuple[bool | None, ...]
    utility: float | None
    error: str | None


def jurors_of(extra: str | None) -> list[JurorVerdict]:
    """The further jurors' verdicts kept in a record's unknown fields (`Run`'s `extra` JSON)."""
    if not extra:
        return []
    try:
        found = json.loads(extra).get(JURY_FIELD)
    except (ValueError, AttributeError):
        return []
    out = []
    for verdict in found if isinstance(found, list) else []:
        if not isinstance(verdict, dict):
            continue
        sentences = (verdict.get("faithfulness") or {}).get("sentences") or []
        attested = tuple(s.get("attested") if isinstance(s, dict) and isinstance(s.get("attested"), bool) else None for s in sentences)
        score = (verdict.get("utility") or {}).get("score")
        out.append(JurorVerdict(
            model=str(verdict.get("model") or "unnamed"),
            attested=attested,
            utility=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
            error=str(verdict["error"]) if verdict.get("error") else None,
        ))
    return out
