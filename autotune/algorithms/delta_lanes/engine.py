"""The engine of lane-interleaved Delta-stepping (`kernels/lanes.cu`): CK instances run as groups
of 32, one instance per warp lane, in the host loop (per iteration `lanes_advance`, the
configuration's advance launch with `blocks_per_sm` x SMs blocks shared by the groups, and
`lanes_finish`, its split launch with one block per group); the groups' done flags are read a few
iterations behind. A group's distances, 32 to a vertex, are unpacked on the GPU into a row per
instance (`lanes_unpack`) and copied out group by group; an instance whose group reports an error
makes the solve WRONG. A graph whose distances may pass 32 bits runs the 64-bit builds
(`Solver.width`): wider distances, and the threshold and far minima in a tail of the state.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta_lanes import DELTA_LANES
from autotune.algorithms.delta import delta_argument
from autotune.algorithms.delta_lanes import LANES, blocks_per_group, groups_of
from autotune.errors import WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu.compile import kernel_function, launchable
from autotune.algorithms.delta.engine import state_bytes, state_fields
from autotune.gpu.engine import (
    INIT_BLOCK,
    MAX_ITERATIONS_FACTOR,
    POLL_DEPTH,
    Launcher,
    Overtime,
    PackedLaunch,
    SolveResult,
    Solver,
    host_loop,
    init_blocks,
    timed_span,
)
from autotune.gpu.memory import DeviceArrays
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import NARROW, DistanceWidth

SCRATCH_BYTES_PER_THREAD = 16  # lanes_advance's shared arrays: a tile's begin, offset, vertex and lanes
ERRORS = {2: "the iteration cap was reached", 3: "a queue overflowed"}


WIDE_STATE_FIELDS = 3  # the 64-bit builds' distance fields (T, two far minima), after the int fields


class Workspace(DeviceArrays):
    """The state, distances (in the solver's `width`), masks, queues and sources of up to `groups`
    groups, and `unpacked`, one group's distances a row per lane."""

    def __init__(self, n: int, groups: int, fields: int, width: DistanceWidth = NARROW) -> None:
        self.groups = groups
        size = width.itemsize
        sizes = {"state": state_bytes(fields, groups, width, WIDE_STATE_FIELDS), "dist": size * LANES * n * groups,
                 "masks": 4 * 4 * n * groups, "queues": 4 * 4 * n * groups, "sources": 4 * LANES * groups,
                 "unpacked": size * LANES * n}
        super().__init__(sizes, (POLL_DEPTH, groups), f"{groups} groups of {LANES} instances", width.dtype)


class LanesSolver(Solver):
    """Batched lane-interleaved Delta-stepping solves of one graph (see the module docstring)."""

    def __init__(self, graph: CSRGraph, algorithm: Algorithm = DELTA_LANES) -> None:
        super().__init__(graph, algorithm)
        self.fields = state_fields(self.algorithm.source_path.read_text())
        self._stream = self.cuda.Stream()

    # A group's iterations are bounded by the distinct buckets of all its lanes, not one's: 32 times
    # the cap of one instance (at Delta = 1 on rome99, 4 x (n + 2) was too few).
    iterations_per_vertex = LANES * MAX_ITERATIONS_FACTOR

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once and return distances and timings.

        With `profile`, CUDA events surround every launch (`kernel_ms`: `advance`, `split`, and
        `other` for the initialization). The solve stops at `deadline_ms` (host clock) and raises
        `Overtime`.

        Raises:
            LaunchRejected: what the GPU cannot run (memory, resources).
            WrongResult: a group reported an error (see `ERRORS`).
        """
        config = self.checked(config, sources)
        ck = config.concurrent_kernels
        n, groups = self.graph.n_vertices, groups_of(ck)
        with self.launch_errors(config):
            workspace = self.workspace(lambda w: w.groups >= groups,
                                       lambda: Workspace(n, groups, self.fields["N_FIELDS"], self.width))
            launches = self._launches(config, workspace, groups)
        padded = np.full(groups * LANES, -1, dtype=np.int32)
        padded[:ck] = sources
        self.cuda.memcpy_htod(workspace.sources, padded)
        stream = self._stream
        launch = Launcher(self, profile)
        done_row = int(workspace.state) + 4 * self.fields["F_DONE"] * groups
        with self.launch_errors(config), timed_span(self, stream, deadline_ms) as span:
            launch("other", launches["init"], stream)
            launch("other", launches["seed"], stream)
            steps = (("advance", launches["advance"]), ("split", launches["finish"]))
            finished = host_loop(self, launch, steps, workspace.ring, done_row, groups, stream, span.deadline_s)
        kernel_ms = launch.kernel_ms()
        if not finished:
            raise Overtime(span.elapsed_ms)
        state = np.empty((self.fields["N_FIELDS"], groups), dtype=np.int32)
        self.cuda.memcpy_dtoh(state, workspace.state)  # field f of group g at f x groups + g
        errors = state[self.fields["F_ERROR"]]
        if np.any(errors):
            g = int(np.flatnonzero(errors)[0])
            raise WrongResult(f"group {g} (instances {g * LANES} to {min(ck, (g + 1) * LANES) - 1}): "
                              f"{ERRORS.get(int(errors[g]), f'error {int(errors[g])}')}")
        iterations = np.repeat(state[self.fields["F_ITERATIONS"]], LANES)[:ck]
        return SolveResult.timed(span, launch, self.copier(lambda: self._distances(workspace, ck, groups)),
                                 iterations, kernel_ms)

    def _distances(self, workspace: Workspace, ck: int, groups: int) -> np.ndarray:
        """One row per instance: each group's distances (32 lanes a vertex) unpacked on the GPU
        into a row per lane, then copied out."""
        rows = workspace.rows(ck, self.graph.n_vertices)
        for pointer, first, count in self._unpacked(workspace, ck, groups):
            self.cuda.memcpy_dtoh_async(rows[first:first + count], pointer, self._stream)
        self._stream.synchronize()
        return rows

    def _unpacked(self, workspace: Workspace, ck: int, groups: int) -> Iterator[tuple[Any, int, int]]:
        """Each group's distances unpacked on the GPU into a row per lane (the same buffer for
        every group: a block is valid until the next is taken), queued on the solver's stream."""
        n = self.graph.n_vertices
        unpack = kernel_function(self.algorithm, "lanes_unpack", wide=self.width.wide)
        grid = (init_blocks(n * LANES), 1)
        for group in range(groups):
            unpack(np.int32(n), np.int32(group), workspace.dist, workspace.unpacked, grid=grid,
                   block=(INIT_BLOCK, 1, 1), stream=self._stream)
            first = group * LANES
            yield workspace.unpacked, first, min(ck, first + LANES) - first

    def device_row_blocks(self, ck: int) -> Iterator[tuple[Any, int, int]] | None:
        """`Solver.device_row_blocks`: a group's rows at a time, unpacked (`_unpacked`) and finished
        before the block is handed out."""
        workspace = self._workspace
        if workspace is None:
            return None

        def blocks() -> Iterator[tuple[Any, int, int]]:
            for block in self._unpacked(workspace, ck, groups_of(ck)):
                self._stream.synchronize()
                yield block

        return blocks()

    def _launches(self, config: LaunchConfig, workspace: Workspace, groups: int) -> dict[str, PackedLaunch]:
        algorithm = self.algorithm
        n, g_count = np.int32(self.graph.n_vertices), np.int32(groups)
        g, w = self.device_graph, workspace
        delta = np.int32(delta_argument(config.param("delta")))
        advance, split = config.kernel("advance"), config.kernel("split")
        blocks = blocks_per_group(int(config.param("blocks_per_sm")), self.device_profile.sm_count, groups)
        wide = self.width.wide
        init_grid = (init_blocks(int(n) * LANES), groups)
        return {
            "init": PackedLaunch(kernel_function(algorithm, "lanes_init", wide=wide), init_grid, INIT_BLOCK, "iiPPPPi",
                                 [(n, g_count, w.state, w.dist, w.masks, w.queues, delta)]),
            "seed": PackedLaunch(kernel_function(algorithm, "lanes_seed", wide=wide), (1, groups), LANES, "iiPPPPP",
                                 [(n, g_count, w.sources, w.state, w.dist, w.masks, w.queues)]),
            "advance": PackedLaunch(launchable(algorithm, "lanes_advance", advance, "advance", wide=wide),
                                    (blocks, groups), advance.block_size, "iiPPPPPPP",
                                    [(n, g_count, g.row_offsets, g.columns, g.weights, w.state, w.dist, w.masks,
                                      w.queues)], SCRATCH_BYTES_PER_THREAD * advance.block_size),
            "finish": PackedLaunch(launchable(algorithm, "lanes_finish", split, "split", wide=wide), (1, groups),
                                   split.block_size, "iiPPPPii",
                                   [(n, g_count, w.state, w.dist, w.masks, w.queues, delta,
                                     np.int32(self.max_iterations()))]),
        }


__all__ = ["LanesSolver"]
