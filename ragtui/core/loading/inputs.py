"""What to load for a comparison. Kept free of heavy imports: the app names its inputs
before polars and numpy are imported, so loading can start in a thread at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.remote import RemoteLocation


CONFIG_FILE_NAME = "ragtui.yaml"
LABELS_SUFFIX = ".labels.jsonl"


def default_config_path(search_dir: Path | None = None) -> Path:
    """`./ragtui.yaml`, read when no config is given and the file is there."""
    return (search_dir or Path.cwd()) / CONFIG_FILE_NAME


def default_labels_path(run_path: Path | RemoteLocation) -> Path:
    """`RUN.labels.jsonl` beside the run file; for a run at an address (nothing can be
    written beside it), in the current folder."""
    if not isinstance(run_path, Path):
        return Path(run_path.stem + LABELS_SUFFIX)
    return run_path.with_name(run_path.stem + LABELS_SUFFIX)


@dataclass(frozen=True)
class Inputs:
    """Run A (reference), optionally run B (candidate) and more candidates, the gold set and the config."""

    a: Path | RemoteLocation  # a run is a local file or an https:// / s3:// Parquet address
    b: Path | RemoteLocation | None = None
    gold: Path | None = None
    config: Path | None = None
    k: int | None = None
    fmt: str | None = None
    # False for headless reports: passage and sentence texts are not kept (see without_detail).
    detail: bool = True
    # Which system of a multi-system file (promptfoo prompt × provider, inspect epoch), for A and B.
    variants: tuple[int | None, int | None] = (None, None)
    # Whose verdicts make a question pass: "ragtui", "tool", "both"; None decides (tool_scores).
    status_from: str | None = None
    # The calibration labels file (--labels); None: `RUN.labels.jsonl` beside each run.
    labels: Path | None = None
    # Further candidates after B (`ragtui A B1 B2 …`): each compared with A for the trade-off view.
    others: tuple[Path, ...] = ()
    # Reopen runs from (and save them to) the run cache (loading/run_cache.py); --no-cache: False.
    cache: bool = True
    # With TREC qrels as the gold set: average retrieval over every judged topic, as trec_eval does.
    trec_denominator: bool = False

    def __post_init__(self) -> None:
        # `--variant 1,2` with one file names two of its systems: B is the same file's other system.
        if self.b is None and None not in self.variants and self.variants[0] != self.variants[1]:
            object.__setattr__(self, "b", self.a)

    def local_files(self) -> tuple[Path, ...] | None:
        """Every file the comparison of A and B is read from, there or not: the runs, the gold
        set, the config (`./ragtui.yaml` when none is given) and the labels files. None when a
        run is at an address, whose state cannot be told without reading it."""
        runs = tuple(run for run in (self.a, self.b) if isinstance(run, Path))
        if len(runs) != (1 if self.b is None else 2):
            return None
        labels = (self.labels,) if self.labels is not None else tuple(default_labels_path(run) for run in runs)
        config = self.config if self.config is not None else default_config_path()
        return (*runs, *((self.gold,) if self.gold is not None else ()), config, *labels)

    @property
    def runs(self) -> tuple[Path, ...]:
        """Every run, the reference first."""
        return (self.a, *((self.b,) if self.b is not None else ()), *self.others)
