"""The terminal's view of a multi-GPU sweep: a bar for the run and a line per worker, with the
measurements each has taken (rendering only; `--quiet` and `--json` show nothing)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from autotune.search.runplan import RunPlan
from autotune.search.workqueue import TERMINAL_STATES, this_host


class FleetProgress:
    """Call it with the workers' records; use as a context manager around the run.

    Args:
        plan: the run (its name and planned measurements).
        console: where to draw (stderr by default).
        host: this host's name (workers elsewhere are labelled with their host).
    """

    def __init__(self, plan: RunPlan, console: Console | None = None, host: str | None = None) -> None:
        self.plan = plan
        self.host = host or this_host()
        self._progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("measurements"), TimeElapsedColumn(),
                                  console=console or Console(stderr=True), transient=False)
        self._total = self._progress.add_task(f"run {escape(plan.name)}", total=plan.planned_trials())
        self._rows: dict[str, TaskID] = {}

    def __enter__(self) -> FleetProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._progress.stop()

    def _label(self, record: Mapping[str, Any]) -> str:
        label = f"  gpu{record.get('device_index', '?')}"
        if record.get("host") != self.host:
            label = f"  {record.get('host')} gpu{record.get('device_index', '?')}"
        state = record.get("state")
        return escape(label) + (f" [yellow]({escape(str(state))})" if state in TERMINAL_STATES and state != "finished" else "")

    def __call__(self, records: Mapping[str, Mapping[str, Any]]) -> None:
        total = 0
        for worker, record in sorted(records.items()):
            measured = int(record.get("measured", 0))
            total += measured
            if worker not in self._rows:
                self._rows[worker] = self._progress.add_task(self._label(record), total=None)
            self._progress.update(self._rows[worker], completed=measured, description=self._label(record))
        task = self._progress.tasks[self._total]
        self._progress.update(self._total, completed=total, total=max(task.total or 0, total))
