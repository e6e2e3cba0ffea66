"""The headline figures of `make bench`, gathered in one table printed at its end.

Each bench script prints its own detail, and also hands its headline figures to this
module (`record`, `record_rounds`), which appends them as JSON lines to the file named by
RAGTUI_BENCH_HEADLINES. `make bench` sets that variable, starts the file afresh before
its first script (`python bench/headlines.py start`: the machine and the load average)
and prints the table after its last (`python bench/headlines.py table`). A script run by
itself, without the variable, hands nothing over and writes nothing.

HEADLINES lists every figure of the table, in its order: what it is, its reference (the
floor or peer measured in the same run), its goal and the sizes `make bench` measures it
at. The code compares the ratio (figure ÷ reference), or for some goals the figure
itself, with the goal; a figure no script handed over in this run says "not measured".
"""

from __future__ import annotations

import json
import math
import operator
import os
import platform
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIABLE = "RAGTUI_BENCH_HEADLINES"

_COMPARE: dict[str, Callable[[float, float], bool]] = {"<": operator.lt, "≤": operator.le, ">": operator.gt, "≥": operator.ge}
_FORMATS: dict[str, Callable[[float], str]] = {
    "s": lambda value: f"{value:.2f} s" if abs(value) >= 0.1 else f"{value:.2g} s",
    "ms": lambda value: f"{value:,.0f} ms" if abs(value) >= 100 else f"{value:.1f} ms" if abs(value) >= 1 else f"{value:.2g} ms",
    "MB": lambda value: f"{value:,.0f} MB",
    "%": lambda value: f"{value:.1%}",
    "requests": lambda value: f"{value:,.0f} requests",
}
_BOUNDS: dict[str, Callable[[float], str]] = {
    "s": lambda bound: f"{bound:g} s",
    "ms": lambda bound: f"{bound:g} ms",
    "MB": lambda bound: f"{bound:,.0f} MB",
    "%": lambda bound: f"{bound * 100:g} %",
    "requests": lambda bound: f"{bound:g} requests",
}

MET, NOT_MET, NOT_MEASURED, NO_VALUE, NO_GOAL = "met", "**not met**", "not measured", "no value", "no goal"


@dataclass(frozen=True)
class Goal:
    """A bound on the ratio (figure ÷ reference), or with `on_figure` on the figure itself."""

    sign: str  # one of <, ≤, >, ≥
    bound: float
    on_figure: bool = False

    def met(self, value: float) -> bool:
        return _COMPARE[self.sign](value, self.bound)


@dataclass(frozen=True)
class Headline:
    """One figure of the table: what it is (`{size}` stands for the size measured), what it
    is measured against, its unit (a key of _FORMATS), its goal, and the sizes `make bench`
    measures it at (None: it has no size)."""

    key: str
    what: str
    reference: str | None  # None: no reference is measured for it
    unit: str
    goal: Goal | None
    sizes: tuple[int | None, ...] = (None,)
    percent: bool = False  # the ratio shown as a percentage
    ratio: bool = True  # False: figure ÷ reference means nothing (the figure is a count or a difference)
    larger_goals: tuple[tuple[int, Goal], ...] = ()  # (from this size on, this goal instead)

    def goal_at(self, size: int | None) -> Goal | None:
        goal = self.goal
        for smallest, larger in self.larger_goals:
            if size is not None and size >= smallest:
                goal = larger
        return goal

    def ratio_text(self, ratio: float) -> str:
        return f"{ratio:.0%}" if self.percent else f"{ratio:.2f}×"

    def goal_text(self, goal: Goal) -> str:
        if goal.on_figure:
            return f"{goal.sign} {_BOUNDS[self.unit](goal.bound)}"
        return f"{goal.sign} {goal.bound * 100:g} %" if self.percent else f"{goal.sign} {goal.bound:.1f}×"


@dataclass(frozen=True)
class Measured:
    """A figure one script measured, as it handed it over."""

    key: str
    script: str
    size: int | None
    figure: float | None
    reference: float | None
    ratio: float | None
    detail: str = ""


def _at_most(bound: float) -> Goal:
    return Goal("≤", bound)


_RUN_READ = "polars' bare read of both runs"
_FIRST_OPEN = "its first open (writes the run cache)"
_THREE_SENTENCES = "the same key on a 3-sentence answer"
_KEY_GOAL = Goal("<", 100, on_figure=True)

HEADLINES: tuple[Headline, ...] = (
    Headline("retrieval", "retrieval metrics (success, recall, P, nDCG at 5 and 10, MRR), {size} questions",
             "pytrec_eval's `evaluate()`", "s", _at_most(0.2), sizes=(100_000,)),
    Headline("sample_values", "the sample's dashboard with its values, first open, nothing cached",
             "the import floor (polars, textual, yaml, numpy)", "s", _at_most(1.5)),
    Headline("sample_intervals", "the same with its intervals filled in", "the import floor", "s", _at_most(2.5)),
    Headline("next_failure", "`n` to the next failure, {size} questions, 80×24", "the same key on the bundled sample",
             "ms", Goal("<", 50, on_figure=True), sizes=(100_000,)),
    Headline("long_j", "`j` on a 5,000-sentence answer, 80×24", _THREE_SENTENCES, "ms", _KEY_GOAL),
    Headline("long_d", "`d` on a 5,000-sentence answer B rewrote throughout, 80×24 (the diff or its progress)",
             _THREE_SENTENCES, "ms", _KEY_GOAL),
    Headline("long_n", "`n` onto a 5,000-sentence question not read yet, 80×24 (its texts or their progress)",
             "the same key onto a 3-sentence question", "ms", _KEY_GOAL),
    Headline("list_keys", "`y`, `o`, `e` on the failure list, the cursor on a 5,000-sentence question not read yet, "
             "80×24 (the slowest key)", "the same keys on a 3-sentence question", "ms", _KEY_GOAL),
    Headline("keys_during_diff", "`Esc`, `j`, `k` while a word diff runs in the worker, 80×24", None, "ms", _KEY_GOAL),
    Headline("gold", "gold set read (`load_gold`, JSONL), {size} questions", "polars' `read_ndjson` of the gold file",
             "s", _at_most(1.5), sizes=(100_000,)),
    Headline("both_runs", "both runs loaded side by side (two threads), 2 × {size}", "each run loaded alone, summed",
             "s", _at_most(0.7), sizes=(100_000,)),
    Headline("both_processes", "both runs loaded in two processes (`run_process.py`), 2 × {size}",
             "each run loaded alone, summed", "s", _at_most(0.7), sizes=(100_000,)),
    Headline("open_no_cache", "comparison opened with `--gold`, no cache, no intervals, 2 × {size}", _RUN_READ,
             "s", _at_most(1.3), sizes=(100_000,)),
    Headline("open_cached", "the same reopened from the run cache, 2 × {size}", _FIRST_OPEN, "s", _at_most(0.25),
             sizes=(100_000,), percent=True),
    Headline("report_no_cache", "`report --gold --no-cache`, 2 × {size}", _RUN_READ, "s", _at_most(1.3),
             sizes=(100_000, 1_000_000), larger_goals=((1_000_000, _at_most(1.0)),)),
    Headline("report_memory", "`report --gold --no-cache`, its peak memory, 2 × {size}", "polars' bare read's", "MB",
             _at_most(0.5), sizes=(100_000, 1_000_000)),
    Headline("report", "`report --gold` reopened from the run cache, 2 × {size}", _FIRST_OPEN, "s", _at_most(0.25),
             sizes=(100_000, 1_000_000), percent=True),
    Headline("app_memory", "the app's peak memory, first open with `--gold` (texts on demand), 2 × {size}",
             "the report's, first open", "MB", _at_most(1.5), sizes=(100_000,)),
    Headline("app_reopen_memory", "the app reopened from the run cache with `--gold`, its peak memory, 2 × {size}",
             "the reopened report's", "MB", Goal("<", 6000, on_figure=True), sizes=(100_000, 1_000_000)),
    Headline("judge", "judge, {size} answers, share of the ideal rate", "bare httpx, same server", "%",
             Goal("≥", 0.9, on_figure=True), sizes=(1000,)),
    Headline("judge_warm_requests", "the judge rerun warm, {size} answers: requests sent", "the cold run's",
             "requests", Goal("≤", 0, on_figure=True), sizes=(1000,), ratio=False),
    Headline("judge_warm_time", "the judge rerun warm, {size} answers", "the cold run", "s",
             Goal("<", 2, on_figure=True), sizes=(1000,)),
    Headline("run_endpoint", "`ragtui run --endpoint`, {size} questions, share of the ideal rate",
             "a minimal asyncio client, same server", "%", Goal("≥", 0.9, on_figure=True), sizes=(1000,)),
    Headline("run_system", "`ragtui run --system`, {size} questions, overhead per question",
             "a bare loop calling the same function, per question", "ms", Goal("≤", 1, on_figure=True), sizes=(1000,),
             ratio=False),
    Headline("detector", "the judge-directed detector, one run of {size} questions", "a literal search of the same texts",
             "s", None, sizes=(10_000, 100_000)),
    Headline("power_binary", "achieved power at the printed `n_needed`, 0/1 metric", "the nominal power", "%", None),
    Headline("power_faithfulness", "achieved power at the printed `n_needed`, faithfulness", "the nominal power", "%", None),
)
_BY_KEY = {headline.key: headline for headline in HEADLINES}


def destination() -> Path | None:
    """The file `make bench` collects the headline figures in; None when a script runs by itself."""
    named = os.environ.get(VARIABLE)
    return Path(named) if named else None


def _append(entry: dict[str, object], path: Path | None) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def record(key: str, *, size: int | None = None, figure: float | None, reference: float | None = None,
           ratio: float | None = None, detail: str = "", script: str | None = None, path: Path | None = None) -> Measured:
    """Hand one figure over to the table. `ratio` defaults to figure ÷ reference; a figure or a
    reference not measured is None. Returns what was handed over."""
    if key not in _BY_KEY:
        raise KeyError(f"{key!r} is not a headline figure of bench/headlines.py")
    if ratio is None and figure is not None and reference and _BY_KEY[key].ratio:
        ratio = figure / reference
    measured = Measured(key, script or Path(sys.argv[0]).name, size, figure, reference, ratio, detail)
    _append({"measured": asdict(measured)}, path or destination())
    return measured


def record_rounds(key: str, *, size: int | None, figures: Sequence[float], references: Sequence[float],
                  cpu_figures: Sequence[float] = (), cpu_references: Sequence[float] = (), detail: str = "",
                  script: str | None = None, path: Path | None = None) -> Measured:
    """Hand over a figure measured in rounds interleaved with its reference: the medians of
    both, and the median of each round's own ratio, with their range and the CPU seconds' ratio."""
    headline = _BY_KEY[key]
    ratios = [figure / reference for figure, reference in zip(figures, references, strict=True)]
    notes = [f"rounds {headline.ratio_text(min(ratios))}–{headline.ratio_text(max(ratios))}"] if len(ratios) > 1 else []
    if cpu_figures:
        cpu = [figure / reference for figure, reference in zip(cpu_figures, cpu_references, strict=True)]
        notes.append(f"CPU {headline.ratio_text(statistics.median(cpu))}")
    return record(key, size=size, figure=statistics.median(figures), reference=statistics.median(references),
                  ratio=statistics.median(ratios), detail="; ".join([*notes, *([detail] if detail else [])]),
                  script=script, path=path)


def hardware() -> str:
    """The CPU, cores, memory and the versions that the figures depend on."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    import polars
    import textual

    return (f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GB, Python {platform.python_version()}, polars {polars.__version__}, "
            f"textual {textual.__version__}")


def machine() -> str:
    """The machine, the load average now and the checkout measured: figures mean little without them."""
    return f"{hardware()}; load average {os.getloadavg()[0]:.1f} at start; ragtui from {REPO}"


def start(path: Path) -> None:
    """Start the file afresh: the machine and the load average before the first script."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"start": {"machine": hardware(), "load": os.getloadavg()}}, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def read(path: Path) -> tuple[dict[str, object], list[Measured]]:
    """The start entry and the figures handed over, in their order."""
    begun: dict[str, object] = {}
    measured: list[Measured] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if "start" in entry:
            begun = entry["start"]
        else:
            measured.append(Measured(**entry["measured"]))
    return begun, measured


def _cell(text: str) -> str:
    """Our own texts only; a `|` would still end a cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _shown(value: float | None, show: Callable[[float], str]) -> str:
    if value is None:
        return NOT_MEASURED
    return show(value) if math.isfinite(value) else "no value"


def status(headline: Headline, measured: Measured | None) -> str:
    """Whether the goal is met, as the code reads the figures: never met on what was not measured."""
    goal = headline.goal_at(measured.size if measured else None)
    if measured is None or measured.figure is None:
        return NOT_MEASURED
    if goal is None:
        return NO_GOAL
    value = measured.figure if goal.on_figure else measured.ratio
    if value is None:
        return NOT_MEASURED
    if not math.isfinite(value):
        return NO_VALUE
    return MET if goal.met(value) else NOT_MET


def row(headline: Headline, measured: Measured | None, size: int | None) -> list[str]:
    """The cells of one line of the table: script, what, measured, reference, ratio, goal, status."""
    figure = _FORMATS[headline.unit]
    what = headline.what.format(size=f"{size:,}") if size is not None else headline.what
    reference = "none measured"
    if headline.reference is not None:
        reference = f"{headline.reference}: {_shown(measured.reference if measured else None, figure)}"
    ratio = "—"
    if measured is not None and measured.ratio is not None:
        ratio = _shown(measured.ratio, headline.ratio_text)
    if measured is not None and measured.detail:
        ratio = f"{ratio} ({measured.detail})"
    goal = headline.goal_at(size)
    return [
        f"`{measured.script}`" if measured else "",
        what,
        _shown(measured.figure if measured else None, figure),
        reference,
        ratio,
        headline.goal_text(goal) if goal else "—",
        status(headline, measured),
    ]


def lines(measured: Sequence[Measured]) -> list[list[str]]:
    """Every line of the table, in HEADLINES' order: each figure handed over, and each size
    `make bench` measures that none was handed over for, as not measured."""
    out: list[list[str]] = []
    for headline in HEADLINES:
        own = [(m.size, index, m) for index, m in enumerate(measured) if m.key == headline.key]
        sizes = {size for size, _, _ in own}
        missing = [(size, len(measured), None) for size in headline.sizes if size not in sizes]
        for size, _, figure in sorted([*own, *missing], key=lambda item: (item[0] or 0, item[1])):
            out.append(row(headline, figure, size))
    return out


def table(begun: dict[str, object], measured: Sequence[Measured], load_after: Sequence[float]) -> str:
    """The markdown table, the machine above it and the load average at the start and the end."""
    load_before = begun.get("load") or [math.nan] * 3
    header = ["script", "what", "measured", "reference", "ratio", "goal", "goal met"]
    body = [header, ["---"] * len(header), *lines(measured)]
    return "\n".join([
        f"Machine: {begun.get('machine', 'not recorded')}.",
        "Load average (1, 5, 15 min): " + " ".join(f"{value:.1f}" for value in load_before) + " at the start, "
        + " ".join(f"{value:.1f}" for value in load_after) + " at the end.",
        "",
        *("| " + " | ".join(_cell(cell) for cell in cells) + " |" for cells in body),
    ])


def main() -> None:
    path = destination()
    if len(sys.argv) != 2 or sys.argv[1] not in ("start", "table") or path is None:
        raise SystemExit(f"usage: {VARIABLE}=FILE python bench/headlines.py start|table")
    if sys.argv[1] == "start":
        start(path)
        return
    if not path.exists():
        raise SystemExit(f"{path}: no headline figures (`python bench/headlines.py start` makes the file)")
    begun, measured = read(path)
    print(f"\nHeadline figures of this run ({path}):\n")
    print(table(begun, measured, os.getloadavg()))


if __name__ == "__main__":
    main()
