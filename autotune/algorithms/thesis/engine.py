"""The engine of GPU Crauser and GPU Martín (`kernels/sssp.cu`): apply a LaunchConfig and run
batched solves.

A solve runs CK instances at once. In the default `batched` launch mode every kernel launch serves
all CK instances in one grid (gridDim.y = CK), so one iteration costs three launches whatever CK is;
the `streams` mode launches each instance on its own stream (the thesis's concurrent kernels, CK
times the launches) and is kept for comparison. Launches are PyCUDA prepared calls whose argument
buffers are packed once per solve. The host never waits for an iteration: each iteration copies
the instances' thresholds into a pinned ring buffer, and the host polls those copies a few
iterations behind to learn when every instance has finished.
"""
from __future__ import annotations

import time
from collections import deque
from typing import Sequence

import numpy as np

from autotune.algorithms.base import Algorithm
from autotune.algorithms.thesis import CRAUSER
from autotune.errors import WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu.compile import kernel_function, launchable
from autotune.gpu.engine import (
    INIT_BLOCK,
    POLL_DEPTH,
    Launcher,
    Overtime,
    PackedLaunch,
    SolveResult,
    Solver,
    blocks_for,
    past,
    timed_span,
)
from autotune.gpu.memory import DeviceArrays
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import NARROW, DistanceWidth

LAUNCH_MODES = ("batched", "streams")


class Workspace(DeviceArrays):
    """Per-instance state for up to `capacity` instances: dist, unsettled, frontier, thresholds
    (distances and thresholds in the solver's `width`)."""

    def __init__(self, n: int, capacity: int, width: DistanceWidth = NARROW) -> None:
        self.n, self.capacity = n, capacity
        super().__init__(self.sizes(n, capacity, width.itemsize), (POLL_DEPTH, 2 * capacity),
                         f"{capacity} concurrent instances", width.dtype, width.dtype)

    @staticmethod
    def sizes(n: int, capacity: int, distance_bytes: int = 4) -> dict[str, int]:
        """Bytes of each allocation (`Algorithm.bytes_per_vertex` and `bytes_per_instance` sum them,
        at 32 bits)."""
        return {"dist": distance_bytes * n * capacity, "unsettled": n * capacity, "frontier": n * capacity,
                "delta": 2 * distance_bytes * capacity, "iterations": 4 * capacity, "sources": 4 * capacity}


class ThesisSolver(Solver):
    """Runs batched solves of one graph with GPU Crauser or GPU Martín.

    Use as a context manager inside `gpu_session()`; GPU memory is released on exit.
    """

    def __init__(self, graph: CSRGraph, algorithm: Algorithm = CRAUSER, launch_mode: str = "batched") -> None:
        if launch_mode not in LAUNCH_MODES:
            raise ValueError(f"unknown launch mode {launch_mode!r}")
        super().__init__(graph, algorithm)
        self.launch_mode = launch_mode
        self.omega = self.device_graph.alloc(self.cuda, max(graph.n_vertices, 1) * 4)
        out_weight = kernel_function(self.algorithm, "out_weight", wide=self.width.wide)
        grid = (max(1, -(-graph.n_vertices // INIT_BLOCK)), 1)
        out_weight(np.int32(graph.n_vertices), self.device_graph.row_offsets, self.device_graph.weights,
                   self.omega, block=(INIT_BLOCK, 1, 1), grid=grid)
        self.cuda.Context.synchronize()
        self._streams: list = []

    def _streams_for(self, count: int) -> list:
        while len(self._streams) < count:
            self._streams.append(self.cuda.Stream())
        return self._streams[:count]

    def _groups(self, config: LaunchConfig, workspace: Workspace):
        """(stream, first_instance, instances) of each launch group, and its per-kernel launches."""
        ck = config.concurrent_kernels
        if self.launch_mode == "batched":
            layout = [(self._streams_for(1)[0], 0, ck)]
        else:
            layout = [(stream, k, 1) for k, stream in enumerate(self._streams_for(ck))]
        n = np.int32(self.graph.n_vertices)
        g, w = self.device_graph, workspace
        wide = self.width.wide
        functions = {name: launchable(self.algorithm, name, launch, wide=wide) for name, launch in config.kernels.items()}
        init_function = kernel_function(self.algorithm, "init", wide=wide)
        lanes_log2 = config.lanes.bit_length() - 1
        groups = []
        for stream, first, count in layout:
            first32 = np.int32(first)
            parities = (np.int32(0), np.int32(1))
            relax_block = config.relax.block_size
            launches = {
                "init": PackedLaunch(init_function, (blocks_for(n, INIT_BLOCK), count), INIT_BLOCK, "iiPPPPPP",
                                [(n, first32, w.sources, w.dist, w.unsettled, w.frontier, w.delta, w.iterations)]),
                "relax": PackedLaunch(functions["relax"], (blocks_for(int(n) * config.lanes, relax_block), count),
                                 relax_block, "iiPPPPPPii",
                                 [(n, first32, g.row_offsets, g.columns, g.weights, w.dist, w.frontier, w.delta,
                                   p, np.int32(lanes_log2)) for p in parities]),
                "minimum": PackedLaunch(functions["minimum"], (blocks_for(int(n), 2 * config.minimum.block_size), count),
                                   config.minimum.block_size, "iiPPPPi",
                                   [(n, first32, w.dist, w.unsettled, self.omega, w.delta, p) for p in parities]),
                "update": PackedLaunch(functions["update"], (blocks_for(int(n), config.update.block_size), count),
                                  config.update.block_size, "iiPPPPiP",
                                  [(n, first32, w.dist, w.unsettled, w.frontier, w.delta, p, w.iterations)
                                   for p in parities]),
            }
            groups.append((stream, first, count, launches))
        return groups

    def device_distances(self):
        """The workspace's `dist` holds every instance's distances, a row each."""
        return None if self._workspace is None else self._workspace.dist

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once and return distances and timings.

        With `profile`, CUDA events surround every kernel launch and `kernel_ms` sums their times
        per kernel ("relax", "minimum", "update", "other" = init); this perturbs the total, so the
        timed repetitions run without it.

        Raises:
            LaunchRejected: the configuration cannot run on this GPU (resources, block size, memory).
            Overtime: still running `deadline_ms` after the first launch (checked every iteration).
        """
        driver = self.cuda
        ck = config.concurrent_kernels
        if len(sources) != ck:
            raise ValueError(f"{ck} concurrent instances need {ck} sources, got {len(sources)}")
        with self.launch_errors(config):
            workspace = self.workspace(lambda w: w.capacity >= ck,
                                       lambda: Workspace(self.graph.n_vertices, ck, self.width))
            groups = self._groups(config, workspace)
        driver.memcpy_htod(workspace.sources, np.asarray(sources, dtype=np.int32))
        main_stream = groups[0][0]
        max_iterations = self.max_iterations()
        launch = Launcher(self, profile)

        with self.launch_errors(config), timed_span(self, main_stream, deadline_ms) as span:
            overtime = False
            for stream, _first, _count, launches in groups:
                if stream is not main_stream:
                    stream.wait_for_event(span.start)
                launch("other", launches["init"], stream)
            # Per group: the iteration whose thresholds the host reads next, and its pending copies.
            pending = {index: deque() for index in range(len(groups))}
            active = set(range(len(groups)))
            iteration = 0
            while active:
                if iteration >= max_iterations:  # a kernel bug, never a slow configuration
                    raise WrongResult(f"no convergence after {iteration} iterations")
                if past(span.deadline_s):
                    overtime = True
                    for queue in pending.values():
                        self.recycle(*(event for _ring, event in queue))
                    break
                parity = iteration & 1
                slot = iteration % POLL_DEPTH
                for index in sorted(active):
                    stream, first, count, launches = groups[index]
                    launch("relax", launches["relax"], stream, parity)
                    launch("minimum", launches["minimum"], stream, parity)
                    launch("update", launches["update"], stream, parity)
                    ring = workspace.ring[slot, 2 * first: 2 * (first + count)]
                    t0 = time.perf_counter()
                    driver.memcpy_dtoh_async(ring, int(workspace.delta) + 2 * self.width.itemsize * first, stream)
                    done_event = self.event()
                    done_event.record(stream)
                    launch.host_s += time.perf_counter() - t0
                    pending[index].append((ring, done_event))
                iteration += 1
                for index in sorted(active):
                    queue = pending[index]
                    # Read every copy that has landed; wait only when the ring is full.
                    while queue and (len(queue) >= POLL_DEPTH or queue[0][1].query()):
                        ring, done_event = queue.popleft()
                        done_event.synchronize()
                        self.recycle(done_event)
                        if np.all(ring == self.width.inf):
                            active.discard(index)
                            for _ring, event in queue:
                                self.recycle(event)
                            queue.clear()
                            break
            for stream, _first, _count, _launches in groups:
                if stream is not main_stream:
                    marker = self.event()
                    marker.record(stream)
                    main_stream.wait_for_event(marker)
                    self.recycle(marker)
        kernel_ms = launch.kernel_ms()
        if overtime:
            raise Overtime(span.elapsed_ms)

        def copy() -> np.ndarray:
            distances = workspace.rows(ck, self.graph.n_vertices)
            driver.memcpy_dtoh(distances, workspace.dist)
            return distances

        rows = self.copier(copy)
        iterations = np.empty(workspace.capacity, dtype=np.int32)
        driver.memcpy_dtoh(iterations, workspace.iterations)
        return SolveResult.timed(span, launch, rows, iterations[:ck].copy(), kernel_ms)
