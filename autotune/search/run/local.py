"""A study measured and advanced in this one process (`sweep_graph`: `sweep.GraphSweep`'s `work` and
`advance` in turn), and what it tells a progress display as it goes."""
from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, Mapping

from autotune.launch import LaunchConfig
from autotune.measure import Measurement, Timer
from autotune.search.results import GraphResult
from autotune.search.run.interrupts import quiet_optuna, stop_on_sigterm
from autotune.search.run.plan import Budget, GraphPlan
from autotune.search.run.stages import ATTR_ELAPSED, HELD
from autotune.search.run.storage import StudyHandle
from autotune.search.run.sweep import GraphSweep


class SweepProgress:
    """What a sweep tells a progress display; this base class shows nothing."""

    def start(self, label: str, total: int, done: int) -> None: ...

    def advance(self, done: int, best_ms: float | None) -> None: ...

    def grow(self, total: int) -> None: ...

    def finish(self, partial: bool) -> None: ...


def study_label(plan: GraphPlan) -> str:
    """What a progress bar calls a study: its graph, algorithm and CK values ("rmat17 delta CK 1-1024")."""
    low, high = min(plan.space.concurrent_kernels), max(plan.space.concurrent_kernels)
    return f"{plan.graph.name} {plan.algorithm} CK {low}" + (f"-{high}" if high != low else "")


def sweep_graph(timer: Timer, plan: GraphPlan, handle: StudyHandle, device: Mapping[str, Any],
                progress: SweepProgress | None = None, clock: Callable[[], float] = time.perf_counter,
                best_elsewhere: Callable[[], float | None] | None = None, budget: Budget | None = None,
                siblings: Callable[[], list[LaunchConfig]] | None = None,
                rivals: Callable[[], Mapping[int, float]] | None = None, hold: bool = False) -> GraphResult:
    """Tune one graph in this process: the study's stages, measured and advanced in turn.

    Args:
        timer: measures configurations (`CudaEventTimer` on a GPU, `ReplayTimer` from records).
        plan: the graph, its space, the strategy, the specials and the settings.
        handle: the study to keep the trials in (`storage.open_study`); a resumed study's
            measurements are re-used, not measured again.
        device: what the result names as the GPU.
        progress: a progress display.
        clock, best_elsewhere, budget (None: unbounded), siblings, rivals: as `GraphSweep`'s.
        hold: return once the study is `held` (its ends measured; a later call goes on from there).

    Returns:
        The result (a held study's: its measurements so far, not partial); `partial` when Ctrl-C or
        SIGTERM stopped it.
    """
    started = clock()
    progress = progress or SweepProgress()
    best_ms: list[float] = []
    done = [0]

    def on_trial(measurement: Measurement, cached: bool) -> None:
        if measurement.ok and (not best_ms or measurement.ms_per_sssp < best_ms[0]):
            best_ms[:] = [measurement.ms_per_sssp]
        done[0] += 1
        progress.advance(done[0], best_ms[0] if best_ms else None)

    sweep = GraphSweep(plan, handle, timer, on_trial, clock, best_elsewhere, budget, siblings, rivals)

    def finished() -> bool:
        return sweep.done or (hold and sweep.stage == HELD)

    partial = False
    with quiet_optuna(), stop_on_sigterm():
        done[0] = sweep.trials.counts()["trials"]
        progress.start(study_label(plan), max(sweep.planned(), done[0]), done[0])
        try:
            sweep.prepare()
            while not finished():
                if not sweep.work() and not sweep.advance():
                    break  # nothing to measure, nothing to advance: a stage another process holds
                progress.grow(max(sweep.planned(), done[0]))
        except KeyboardInterrupt:
            partial = True
        finally:
            elapsed = float(handle.study.user_attrs.get(ATTR_ELAPSED, 0.0)) + clock() - started
            with contextlib.suppress(Exception):
                handle.study.set_user_attr(ATTR_ELAPSED, elapsed)
    partial = partial or not finished()
    progress.finish(partial)
    return sweep.result(elapsed, partial, device)


__all__ = ["SweepProgress", "study_label", "sweep_graph"]
