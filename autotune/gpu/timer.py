"""CudaEventTimer: the `Timer` that measures on the GPU, verifying every solve against the CPU's
distances (on the GPU for a large batch: `autotune.gpu.verify`)."""
from __future__ import annotations

import os
import statistics
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Mapping, Sequence

import numpy as np

from autotune.errors import LaunchRejected, WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu.engine import Overtime, SolveResult, Solver
from autotune.gpu.verify import DEVICE_CHECK_BYTES, DeviceCheck
from autotune.launch import LaunchConfig
from autotune.measure import (Ask, Measurement, Protocol, Status, StopAsk, batches, long_batches,
                              time_left_ms)
from autotune.reference.cache import ReferenceCache


COMPARE_CHUNK = 1 << 20  # distances one thread compares at a time


@cache
def _comparers() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1), thread_name_prefix="autotune-check")


def differing(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The indices where `got` and `expected` differ, a row of more than two `COMPARE_CHUNK`s compared
    in chunks on threads (numpy lets go of the GIL): one thread took 3.7-5.3 ms for a row of grid22's
    4.2M vertices on the H200's host, most of the 6-8 ms a CK-1 batch of a graph that size spends
    outside its solve (18-29 ms at 16.8M, whose row of 64 MiB is checked here too; suite `large`'s
    records). On this project's 2-core VM: 2.40 -> 1.34 ms at 4.2M, 14.4 -> 8.6 ms at 16.8M; on the H200's
    host (16 cores; equal random int32 rows, median of 15 after one, against `np.flatnonzero(a != b)`, at
    ac608fe): 1.91 -> 0.73 ms at 4.2M, 12.7 -> 2.1 ms at 16.8M."""
    if len(got) <= 2 * COMPARE_CHUNK:
        return np.flatnonzero(got != expected)
    starts = range(0, len(got), COMPARE_CHUNK)
    return np.concatenate(list(_comparers().map(
        lambda lo: lo + np.flatnonzero(got[lo:lo + COMPARE_CHUNK] != expected[lo:lo + COMPARE_CHUNK]), starts)))


def distance_error(source: int, got: np.ndarray, expected: np.ndarray) -> str | None:
    """Why the GPU's distances `got` from `source` are wrong against the CPU's `expected` (how many
    differ, and the first), or None when they agree."""
    differ = differing(got, expected)
    if not len(differ):
        return None
    v = int(differ[0])
    return (f"source {source}: {len(differ)} distances differ from the CPU reference "
            f"(vertex {v}: GPU {int(got[v])}, CPU {int(expected[v])})")


class CudaEventTimer:
    """Measures launch configurations of one algorithm on one graph (any engine's `Solver`), by
    the protocol of `autotune.measure`: a warm-up batch (stopped at `limit_ms` when given), timed
    repetitions over the whole sample (adaptive between the protocol's bounds), and one profiled
    batch with CUDA events around every kernel (unless `profile` is off, or the batches are long:
    `Protocol.for_long_batches`). Every solve's distances
    are compared with scipy's Dijkstra; any difference makes the measurement WRONG.

    Args:
        solver: the engine's `Solver` for the graph (`engine.open_solver`; its GPU memory is the
            caller's to release).
        sample: the graph's sample of sources (`measure.choose_sources`).
        protocol: repetitions and noise bound (the sample size is the sample's).
        expected: the sample's reference distances (`ReferenceCache.distances`), if already known.
        references: where to read and keep reference distances (None: computed, not kept).
    """

    def __init__(self, solver: Solver, sample: Sequence[int], protocol: Protocol = Protocol(),
                 expected: Mapping[int, np.ndarray] | None = None, references: ReferenceCache | None = None) -> None:
        if not sample:
            raise ValueError("at least one source is needed")
        self.solver = solver
        self.graph: CSRGraph = solver.graph
        self.sample = tuple(sample)
        self.protocol = protocol
        self.expected = dict(expected) if expected is not None else \
            (references or ReferenceCache(None)).distances(self.graph, self.sample)
        self._on_device: DeviceCheck | bool | None = None  # made at the first batch that needs it

    def _device_check(self, ck: int) -> DeviceCheck | None:
        """The check on the GPU for a batch of `ck` rows too large to copy cheaply, made once; None
        for a smaller batch, or where the GPU has no room for the sample's reference rows."""
        if ck * self.graph.n_vertices * self.solver.width.itemsize <= DEVICE_CHECK_BYTES:
            return None
        if self._on_device is None:
            try:
                self._on_device = DeviceCheck(self.solver, self.expected, self.sample)
            except self.solver.cuda.MemoryError:
                self._on_device = False
        return self._on_device or None

    def _wrong_instances(self, sources: Sequence[int], result: SolveResult) -> str | None:
        """What differs from the CPU's distances in the first instance that does, or None."""
        check = self._device_check(len(sources))
        differs = check.first_differences(sources) if check is not None else None
        if differs is not None:
            wrong = np.flatnonzero(differs >= 0)
            if not len(wrong):
                return None
            k = int(wrong[0])
            return distance_error(sources[k], result.distances[k], self.expected[sources[k]])
        distances = result.distances
        return next((error for k, source in enumerate(sources)
                     if (error := distance_error(source, distances[k], self.expected[source]))), None)

    def _batch(self, config: LaunchConfig, sources: list[int], profile: bool = False, deadline_ms: float | None = None):
        result = self.solver.solve(config, sources, profile=profile, deadline_ms=deadline_ms)
        wrong = self._wrong_instances(sources, result)
        if wrong:
            raise WrongResult(wrong)
        return result

    def measure(self, config: LaunchConfig, stop: StopAsk | None = None, *, limit_ms: float | None = None,
                profile: bool = True) -> Measurement:
        ck = config.concurrent_kernels
        edges = self.graph.n_edges
        plan = batches(list(self.sample), ck)
        partial_warm_up = ck < len(self.sample)  # a warm-up of CK >= the sample solves all of it
        times: list[float] = []
        launch_shares: list[float] = []
        iterations: list[float] = []
        warm_ms: float | None = None

        def pruned(times_ms: Sequence[float], reason: str) -> Measurement:
            return Measurement(config, Status.PRUNED, times_ms=tuple(times_ms), edges=edges, reason=reason,
                               warm_up_ms=warm_ms)

        def budget_ended(times_ms: Sequence[float], where: str) -> Measurement:
            return pruned(times_ms, f"the sweep's budget ended it {where}")

        try:
            pruning_ms = None if limit_ms is None else limit_ms * ck * (2.0 if partial_warm_up else 1.0)
            left_ms = time_left_ms(stop)
            deadline_ms = min((d for d in (pruning_ms, left_ms) if d is not None), default=None)
            try:
                warm_ms = self._batch(config, plan[0], deadline_ms=deadline_ms).elapsed_ms / ck
            except Overtime as overtime:
                warm_ms = overtime.elapsed_ms / ck
                if pruning_ms is None or (left_ms is not None and left_ms < pruning_ms):
                    return budget_ended((warm_ms,), "in its warm-up")
                if stop is not None:
                    stop([warm_ms], partial_warm_up)  # reported like any warm-up; pruned whatever it says
                return pruned((warm_ms,), f"pruned during the warm-up: its batch ran past {deadline_ms:.1f} ms")
            if stop is not None and stop([warm_ms], partial_warm_up) is Ask.PRUNE:
                return pruned((warm_ms,), "pruned after the warm-up")
            protocol = self.protocol
            if long_batches(warm_ms, ck, len(self.sample)):
                protocol, profile = protocol.for_long_batches(), False
            while not protocol.settled(times):
                elapsed = wall = launch = 0.0
                for index, sources in enumerate(plan):
                    try:
                        result = self._batch(config, sources, deadline_ms=time_left_ms(stop))
                    except Overtime:  # only the budget's end stops a timed batch
                        if not times:
                            return budget_ended((), "in its first repetition")
                        break
                    elapsed, wall, launch = elapsed + result.elapsed_ms, wall + result.wall_ms, launch + result.launch_ms
                    iterations.extend(result.iterations.tolist())
                    partial = elapsed / ((index + 1) * ck)
                    if stop is not None and index + 1 < len(plan) and stop([*times, partial], False) is Ask.PRUNE:
                        return pruned((*times, partial), f"pruned after {len(times)} repetitions and {index + 1} batches")
                else:
                    times.append(elapsed / (len(plan) * ck))
                    launch_shares.append(launch / wall if wall else 0.0)
                    answer = stop(times, False) if stop is not None and not protocol.settled(times) else Ask.GO_ON
                    if answer is Ask.PRUNE:
                        return pruned(times, f"pruned after {len(times)} repetitions")
                    if answer is Ask.ENOUGH:
                        break
                    continue
                profile = False  # a batch the budget stopped: the repetitions before it are the measurement
                break
            try:
                profiled = self._batch(config, plan[0], profile=True, deadline_ms=time_left_ms(stop)) if profile \
                    else None
            except Overtime:
                profiled = None
        except LaunchRejected as rejected:
            return Measurement(config, Status.INVALID, edges=edges, reason=rejected.reason)
        except WrongResult as wrong:
            return Measurement(config, Status.WRONG, edges=edges, reason=str(wrong))
        return Measurement(
            config,
            Status.OK,
            times_ms=tuple(times),
            kernel_ms={name: ms / ck for name, ms in profiled.kernel_ms.items()} if profiled else {},
            iterations=float(np.mean(iterations)) if iterations else 0.0,
            edges=edges,
            launch_share=statistics.median(launch_shares),
            warm_up_ms=warm_ms,
        )
