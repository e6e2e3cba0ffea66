"""What to load for a comparison. Kept free of heavy imports: the app names its inputs
before polars and numpy are imported, so loading can start in a thread at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragtui.core.loading.own_files import GOLD_EDITS_SUFFIX, LABELS_SUFFIX, sidecar_path

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.loading.remote import RemoteLocation


CONFIG_FILE_NAME = "ragtui.yaml"


def default_config_path(search_dir: Path | None = None) -> Path:
    """`./ragtui.yaml`, read when no config is given and the file is there."""
    return (search_dir or Path.cwd()) / CONFIG_FILE_NAME


def default_gold_edits_path(gold_path: Path) -> Path:
    """`data/gold.yaml` → `data/gold.edits.jsonl`: the gold edits made in triage, beside the gold
    set (for the bundled sample, in the user's data folder: `own_files.sidecar_path`)."""
    return sidecar_path(gold_path, GOLD_EDITS_SUFFIX)


def default_labels_path(run_path: Path | RemoteLocation) -> Path:
    """`RUN.labels.jsonl` beside the run file (for the bundled sample, in the user's data
    folder: `own_files.sidecar_path`); for a run at an address (nothing can be written
    beside it), in the current folder."""
    if not isinstance(run_path, Path):
        return Path(run_path.stem + LABELS_SUFFIX)
    return sidecar_path(run_path, LABELS_SUFFIX)


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
    # The gold edits made in triage (--gold-edits); None: `GOLD.edits.jsonl` beside the gold set, when there.
    gold_edits: Path | None = None
    # The corpus (--corpus): the question view shows the text of a gold passage not retrieved,
    # and the statistics cluster the questions by their first gold passage's document.
    corpus: Path | None = None
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
        gold = (self.gold, self.gold_edits_path()) if self.gold is not None else ()
        corpus: tuple[Path, ...] = ()
        if self.corpus is not None:  # a folder's state is that of each of its files
            corpus = tuple(sorted(self.corpus.iterdir())) if self.corpus.is_dir() else (self.corpus,)
        return (*runs, *gold, config, *labels, *corpus)

    def gold_edits_path(self) -> Path | None:
        """The edits log replayed over the gold set: --gold-edits, else `GOLD.edits.jsonl` beside it."""
        if self.gold_edits is not None:
            return self.gold_edits
        return default_gold_edits_path(self.gold) if self.gold is not None else None

    @property
    def runs(self) -> tuple[Path, ...]:
        """Every run, the reference first."""
        return (self.a, *((self.b,) if self.b is not None else ()), *self.others)
