"""The engine of asynchronous Delta-stepping (`kernels/adds.cu`): one launch per batch, `blocks`
blocks per instance whose warps take work from the instance's Delta-bucket rings.

A solve sets the instances' state to 0 and their work arrays to EMPTY (two memsets, which the
solve's time includes), places each source with `adds_init`, and launches `adds_solve`. No block
waits for another (there is no barrier), so no residency check is needed; a worker that idles
past the kernel's timeout, or a ring that fills, sets the instance's error flag, and the solve is
WRONG. A graph whose distances may pass 32 bits runs the 64-bit builds (`Solver.width`): dist and
expanded of 8 bytes, the distances set to INF by `adds_fill` after the memset.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from autotune.algorithms.base import Algorithm
from autotune.algorithms.adds import ADDS
from autotune.algorithms.adds import delta_shift, ring_size, shift_bounds
from autotune.algorithms.delta import threshold_argument
from autotune.errors import LaunchRejected
from autotune.graphs.csr import CSRGraph
from autotune.gpu.compile import kernel_function, launchable
from autotune.algorithms.delta.engine import state_fields
from autotune.gpu.engine import (
    INIT_BLOCK,
    POLL_DEPTH,
    Launcher,
    PackedLaunch,
    SolveResult,
    Solver,
    raise_instance_errors,
    init_blocks,
    timed_span,
)
from autotune.gpu.memory import DeviceArrays
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import NARROW, DistanceWidth

FIELD_STRIDE = 8  # adds.cu: ints between two fields of an instance's state
EMPTY = 0x7FFFFFFF  # adds.cu: a free slot, an INF distance (32-bit builds), a vertex expanded at no distance
ERRORS = {1: "a worker idled past the kernel's timeout", 3: "a ring overflowed"}
MAX_RINGS = 64  # adds.cu's state has room for 64 rings
PUSH_BUFFER_BYTES = 128 * 8 + 4  # adds.cu: a warp's push buffer of (vertex, ring) and its count


def hub_ring_size(degrees: np.ndarray, threshold: int) -> int:
    """Entries of the hub ring: a power of two of at least 4 x the chunks of every vertex of at
    least `threshold` edges (a hub may be queued again before its chunks are all taken); 0 without
    hubs.

    Example:
        >>> hub_ring_size(np.array([1, 5000, 3000]), 1024), hub_ring_size(np.array([1, 2]), 1024)
        (32, 0)
    """
    if threshold <= 0:
        return 0
    big = degrees[degrees >= threshold].astype(np.int64)
    chunks = int(np.sum(-(-big // threshold)))
    return 0 if chunks == 0 else 1 << max(5, int(np.ceil(np.log2(4 * chunks))))


def ints_per_instance(n: int, buckets: int, rings: int, hub_size: int, width: DistanceWidth = NARROW) -> int:
    """adds.cu's work arrays of one instance, in ints: dist and expanded (in the distances' width),
    the rings, the hub ring.

    Example:
        >>> from autotune.reference.distance_range import WIDE
        >>> ints_per_instance(10, 8, 1024, 32), ints_per_instance(10, 8, 1024, 32, WIDE)
        (8276, 8296)
    """
    return 2 * n * (width.itemsize // 4) + buckets * rings + 2 * hub_size


class Workspace(DeviceArrays):
    """The state, work arrays and sources of up to `capacity` instances of `ints` work ints each,
    their distances (the work arrays' first rows) in `width`."""

    def __init__(self, capacity: int, ints: int, fields: int, width: DistanceWidth = NARROW) -> None:
        self.capacity, self.ints = capacity, ints
        sizes = {"state": 4 * fields * FIELD_STRIDE * capacity, "work": 4 * ints * capacity, "sources": 4 * capacity}
        super().__init__(sizes, (POLL_DEPTH, capacity), f"{capacity} concurrent instances", width.dtype)

    def fits(self, capacity: int, ints: int) -> bool:
        return self.capacity * self.ints >= capacity * ints and self.capacity >= capacity


class AddsSolver(Solver):
    """Batched asynchronous Delta-stepping solves of one graph (see the module docstring)."""

    def __init__(self, graph: CSRGraph, algorithm: Algorithm = ADDS) -> None:
        super().__init__(graph, algorithm)
        self.fields = state_fields(self.algorithm.source_path.read_text())
        self._stream = self.cuda.Stream()

    def device_distances(self):
        """The work arrays begin with every instance's distances, a row each."""
        return None if self._workspace is None else self._workspace.work

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once (one launch: `deadline_ms` does
        not stop it; the kernel's idle timeout bounds it).

        Raises:
            LaunchRejected: the configuration cannot run on this GPU (block size, memory).
            WrongResult: an instance reported an error (see `ERRORS`).
        """
        cuda = self.cuda
        config = self.checked(config, sources)
        ck = config.concurrent_kernels
        params = config.params
        n = self.graph.n_vertices
        buckets = int(params["buckets"])
        if buckets > MAX_RINGS:
            raise LaunchRejected(config, f"{buckets} rings: adds.cu has room for {MAX_RINGS}")
        shift = delta_shift(params["delta"])
        low, high = shift_bounds(params["delta"], int(params["adapt"]))
        hub = threshold_argument(params["hub_threshold"], self.graph.max_degree)
        rings = ring_size(n)
        hubs = hub_ring_size(self.graph.out_degrees, hub)
        width, wide = self.width, self.width.wide
        ints = ints_per_instance(n, buckets, rings, hubs, width)
        fields = self.fields["N_FIELDS"]
        solve = config.kernel("solve")
        with self.launch_errors(config):
            workspace = self.workspace(lambda w: w.fits(ck, ints), lambda: Workspace(ck, ints, fields, width))
            fill = PackedLaunch(kernel_function(self.algorithm, "adds_fill", wide=wide), (init_blocks(n * ck), 1),
                                INIT_BLOCK, "qP", [(np.int64(n * ck), workspace.work)]) if wide else None
            init = PackedLaunch(kernel_function(self.algorithm, "adds_init", wide=wide), (1, ck), 32, "iPPPiiii",
                                [(np.int32(n), workspace.sources, workspace.state, workspace.work, np.int32(buckets),
                                  np.int32(rings), np.int32(hubs), np.int32(shift))])
            g = self.device_graph
            run = PackedLaunch(launchable(self.algorithm, "adds_solve", solve, "solve", wide=wide),
                               (int(params["blocks"]), ck), solve.block_size, "iPPPPPiiiiiii",
                               [(np.int32(n), g.row_offsets, g.columns, g.weights, workspace.state, workspace.work,
                                 np.int32(buckets), np.int32(rings), np.int32(hubs), np.int32(params["chunk"]),
                                 np.int32(hub), np.int32(low), np.int32(high))],
                               PUSH_BUFFER_BYTES * (solve.block_size // 32))
        cuda.memcpy_htod(workspace.sources, np.asarray(sources, dtype=np.int32))
        stream = self._stream
        launch = Launcher(self, profile)
        with self.launch_errors(config), timed_span(self, stream) as span:
            cuda.memset_d32_async(workspace.state, 0, fields * FIELD_STRIDE * ck, stream)
            cuda.memset_d32_async(workspace.work, EMPTY, ints * ck, stream)
            if fill is not None:
                launch("other", fill, stream)
            launch("other", init, stream)
            launch("solve", run, stream)

        def copy() -> np.ndarray:
            distances = workspace.rows(ck, n)
            cuda.memcpy_dtoh(distances, workspace.work)  # every instance's dist first (adds.cu's layout)
            return distances

        rows = self.copier(copy)
        state = np.empty((ck, fields, FIELD_STRIDE), dtype=np.int32)
        cuda.memcpy_dtoh(state, workspace.state)
        errors = state[:, self.fields["F_ERROR"], 0]
        raise_instance_errors(errors, ERRORS)
        iterations = state[:, self.fields["F_ADVANCES"], 0] + 1  # the buckets the window visited
        return SolveResult.timed(span, launch, rows, iterations, launch.kernel_ms())


__all__ = ["AddsSolver", "hub_ring_size", "ints_per_instance"]
