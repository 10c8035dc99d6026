"""The terminal's view of a running sweep: a rich progress bar per graph.

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

from autotune.search.run.sweep import SweepProgress

NullProgress = SweepProgress  # the base class shows nothing


class RichProgress(SweepProgress):
    """A rich progress bar per graph; use as a context manager around the sweeps.

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

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._progress.stop()

    def start(self, graph: str, total: int, done: int) -> None:
        self._task = self._progress.add_task(escape(graph), total=total, completed=done, best="-")

    def advance(self, done: int, best_ms: float | None) -> None:
        if self._task is None:
            return
        task = self._progress.tasks[self._task]
        total = max(task.total or 0, done)
        best = f"{best_ms:.3f} ms" if best_ms is not None else "-"
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
