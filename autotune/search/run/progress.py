"""The terminal's view of a running sweep: a rich progress bar per study (graph, algorithm, CK values).

Each bar shows the trials done of those planned, the best verified ms per SSSP so far and the time
left (rich's estimate from the pace so far). `NullProgress` (`--quiet`, `--json`) shows nothing.
"""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from autotune.search.run.local import SweepProgress

NullProgress = SweepProgress  # the base class shows nothing


class RichProgress(SweepProgress):
    """A rich progress bar per study; use as a context manager around the sweeps.

    Args:
        console: where to draw (stderr by default, so `--json` output on stdout stays clean).

    Example:
        >>> with RichProgress() as progress:                                 # doctest: +SKIP
        ...     sweep_graph(timer, space, strategy, handle, ..., progress=progress)
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("trials"),
            TextColumn("best [cyan]{task.fields[best]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._task: TaskID | None = None
        self._tasks: dict[str, TaskID] = {}
        self._best: dict[TaskID, float] = {}

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._progress.stop()

    def start(self, label: str, total: int, done: int) -> None:
        """A bar for the study `label` names; a study seen before (held after its ends, then taken
        up again) goes on in its own bar, its best kept."""
        known = self._tasks.get(label)
        if known is None:
            self._task = self._tasks[label] = self._progress.add_task(escape(label), total=total, completed=done,
                                                                      best="-")
        else:
            self._task = known
            self._progress.update(known, total=max(total, done), completed=done)

    def advance(self, done: int, best_ms: float | None) -> None:
        if self._task is None:
            return
        task = self._progress.tasks[self._task]
        total = max(task.total or 0, done)
        if best_ms is not None and best_ms < self._best.get(self._task, float("inf")):
            self._best[self._task] = best_ms
        best = f"{self._best[self._task]:.3f} ms" if self._task in self._best else "-"
        self._progress.update(self._task, completed=done, total=total, best=best)

    def grow(self, total: int) -> None:
        if self._task is not None:
            self._progress.update(self._task, total=total)

    def finish(self, partial: bool) -> None:
        if self._task is None:
            return
        task = self._progress.tasks[self._task]
        if partial:
            self._progress.update(self._task, description=f"{task.description} [yellow](interrupted)")
        else:
            self._progress.update(self._task, total=task.completed)
        self._task = None
