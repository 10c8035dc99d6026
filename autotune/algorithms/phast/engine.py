"""The engine of PHAST (`kernels/phast.cu`): the graph's contraction hierarchy (kept on disk,
`autotune.hierarchy.store`) uploaded once, then per solve one launch of the sweep, a block per
instance (`phast_global`, or `phast_shared` with the distances in shared memory; `_levels` where
the upward phase steps through the levels instead of searching), and, where
the configuration sends the big bottom levels to the whole GPU (`gpu_levels`), a `pull_level`
launch for each of them and a `scatter_out` that writes the distances by the graph's ids. A
source-target query (`solve_to`) is one launch of `phast_target`: the two upward searches of a
contraction hierarchy's query over the vertices they reach (their own workspace, `Searches`, filled
once and left clean by every launch; `phast_target_shared` keeps them in shared memory), which
write the target's distance alone.

No block waits for another, so no residency check is needed. A graph that gets no hierarchy (hubs,
or shortcuts past the contraction's bound) has every configuration refused (INVALID), with why. A
graph whose distances may pass 32 bits runs the 64-bit builds (`Solver.width`): its distances and
its hierarchy's weights (a shortcut is a path) in 64 bits.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from autotune.algorithms.base import Algorithm
from autotune.algorithms.phast import PHAST
from autotune.algorithms.delta import OFF
from autotune.algorithms.phast import NONE, ON, SEARCH, SHARED, SHARED_ARCS
from autotune.errors import LaunchRejected
from autotune.graphs.csr import CSRGraph
from autotune.gpu.compile import launchable
from autotune.gpu.device import driver
from autotune.gpu.engine import Launcher, PackedLaunch, SolveResult, Solver, blocks_for, timed_span
from autotune.gpu.memory import DeviceArrays
from autotune.hierarchy import Hierarchy, HierarchyStore, Unsuited, default_directory
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import NARROW, DistanceWidth

PULL_GRID_LIMIT = 1056  # blocks of a GPU-wide level per instance, at most (8 per SM of an H100; they stride)
INT32_MAX = 2**31 - 1
ARRAYS = ("level_start", "level_of", "new_of", "up_offsets", "up_heads", "up_weights", "down_offsets", "down_tails",
          "down_weights", "old_of")
WEIGHTS = ("up_weights", "down_weights")  # in the distances' width (`weight_t` in kernels/phast.cu)


def block_levels(level_start: np.ndarray, gpu_levels: int | str) -> int:
    """How many levels from the top the block sweeps downward: those above the first level of more
    than `gpu_levels` vertices (every level when it is off or no level is that large).

    Example:
        >>> block_levels(np.array([0, 1, 3, 40, 100]), 16), block_levels(np.array([0, 1, 3, 40]), "off")
        (2, 3)
    """
    sizes = np.diff(level_start)
    over = np.flatnonzero(sizes > int(gpu_levels)) if gpu_levels != OFF else []
    return int(over[0]) if len(over) else len(sizes)


def quads(count: int) -> int:
    """`count` ints rounded up to a multiple of 4 (16 bytes: phast.cu's `quad`).

    Example:
        >>> quads(5), quads(8)
        (8, 8)
    """
    return -(-count // 4) * 4


def staged_bytes(n: int, down_arcs: int, width: DistanceWidth = NARROW) -> int:
    """The shared memory of a sweep with the downward arcs staged beside the distances (`stage` in
    kernels/phast.cu): n distances, n + 1 offsets, the tails and the weights, each from 16 bytes.

    Example:
        >>> from autotune.reference.distance_range import WIDE
        >>> staged_bytes(5, 6), staged_bytes(5, 6, WIDE)
        (128, 192)
    """
    return width.itemsize * quads(n) + 4 * (quads(n + 1) + quads(down_arcs)) + width.itemsize * quads(down_arcs)


class Workspace(DeviceArrays):
    """The distances by level (`dist`) and by the graph's ids (`out`), in the solver's `width`, the
    upward search's due rounds and list of reached vertices (`work`, zero here, and every launch
    leaves the rounds so), the sources, the targets and the steps of up to `capacity` instances of n
    vertices."""

    def __init__(self, capacity: int, n: int, width: DistanceWidth = NARROW) -> None:
        self.capacity = capacity
        rows = width.itemsize * n * capacity
        super().__init__({"dist": rows, "out": rows, "work": 8 * n * capacity, "sources": 4 * capacity,
                          "targets": 4 * capacity, "steps": 4 * capacity}, (1, capacity),
                         f"{capacity} concurrent instances", width.dtype)
        driver().memset_d32(self.work, 0, 2 * n * capacity)


def search_bytes(n: int, width: DistanceWidth = NARROW) -> int:
    """What `phast_target` keeps of one source-target query (kernels/phast.cu's SEARCH_WORDS ints a
    vertex): both searches' distances, then their due rounds and lists of reached vertices.

    Example:
        >>> from autotune.reference.distance_range import WIDE
        >>> search_bytes(10), search_bytes(10, WIDE)
        (240, 320)
    """
    return (2 * width.itemsize + 16) * n


class Searches(DeviceArrays):
    """What `phast_target` keeps of up to `capacity` source-target queries of n vertices
    (`search`: per instance, both sides' distances INF, then the due rounds 0 and the lists of
    reached vertices), filled once here; every launch leaves it as it found it."""

    def __init__(self, capacity: int, n: int, width: DistanceWidth = NARROW) -> None:
        self.capacity = capacity
        each = search_bytes(n, width)
        super().__init__({"search": each * capacity}, (1, capacity),
                         f"the searches of {capacity} source-target queries")
        cuda = driver()
        unreached = np.full(2 * n, width.inf, width.dtype)
        for instance in range(capacity):
            base = int(self.search) + each * instance
            cuda.memcpy_htod(base, unreached)
            cuda.memset_d32(base + unreached.nbytes, 0, 4 * n)


class PhastSolver(Solver):
    """Batched PHAST solves of one graph (see the module docstring)."""

    def __init__(self, graph: CSRGraph, algorithm: Algorithm = PHAST, store: HierarchyStore | None = None) -> None:
        super().__init__(graph, algorithm)
        self._stream = self.cuda.Stream()
        self._searches: Searches | None = None
        try:
            self.hierarchy: Hierarchy | None = (store or HierarchyStore(default_directory())).hierarchy(graph)
        except Unsuited as why:
            self.hierarchy, self.unsuited = None, f"no contraction hierarchy: {why}"
            return
        heaviest = max((int(self._host_array(name).max()) for name in WEIGHTS), default=0)
        if heaviest > INT32_MAX and not self.width.wide:  # a 32-bit build's shortcut past 2^31 - 1 would wrap
            self.hierarchy, self.unsuited = None, (f"no contraction hierarchy for 32-bit distances: a shortcut weighs "
                                                   f"{heaviest:,}, past 2^31 - 1")
            return
        self.arrays = {name: self.device_graph.upload(self.cuda, self._host_array(name),
                                                      self.width.dtype if name in WEIGHTS else np.dtype(np.int32))
                       for name in ARRAYS}

    def _host_array(self, name: str) -> np.ndarray:
        h = self.hierarchy
        array = h.level_of() if name == "level_of" else getattr(h, name)
        return array if len(array) else np.zeros(1, np.int32)

    def device_distances(self):
        return None if self._workspace is None else self._workspace.out  # after `solve`: every distance

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once (a few launches: `deadline_ms` does
        not stop them).

        Raises:
            LaunchRejected: no hierarchy, or the configuration cannot run on this GPU (block size,
                shared memory, memory).
        """
        cuda = self.cuda
        config = self.checked(config, sources)
        if self.hierarchy is None:
            raise LaunchRejected(config, self.unsuited)
        h, n, ck = self.hierarchy, self.graph.n_vertices, config.concurrent_kernels
        shared = config.param("distances") == SHARED
        down = h.levels if shared else block_levels(h.level_start, config.param("gpu_levels"))
        sweep, pull = config.kernel("sweep"), config.kernel("pull")
        width, wide = self.width, self.width.wide
        with self.launch_errors(config):
            workspace = self.workspace(lambda w: w.capacity >= ck, lambda: Workspace(ck, n, width))
            name = ("phast_shared" if shared else "phast_global") + \
                ("" if config.param("upward", SEARCH) == SEARCH else "_levels")
            function = launchable(self.algorithm, name, sweep, "sweep", wide=wide)
            staged = SHARED_ARCS.index(config.param("shared_arcs", NONE)) if shared else 0
            shared_bytes = 0 if not shared else width.itemsize * n if not staged else \
                staged_bytes(n, len(h.down_tails), width)
            if shared:
                self._opt_in(function, shared_bytes, config)
            a = self.arrays
            warps = np.int32(config.param("warp_levels", ON) == ON)
            launches = [("sweep", PackedLaunch(function, (1, ck), sweep.block_size, "iiiPPPPPPPPPPPiiPPPP", [(
                np.int32(n), np.int32(h.levels), np.int32(down), *(a[k] for k in ARRAYS), workspace.sources,
                np.int32(staged), warps, workspace.work, workspace.dist, workspace.out, workspace.steps)],
                shared_bytes))]
            if down < h.levels:
                pull_level = launchable(self.algorithm, "pull_level", pull, "pull", wide=wide)
                for level in range(down, h.levels):
                    lo, hi = int(h.level_start[level]), int(h.level_start[level + 1])
                    grid = (min(blocks_for(hi - lo, pull.block_size), PULL_GRID_LIMIT), ck)
                    launches.append(("pull", PackedLaunch(pull_level, grid, pull.block_size, "iiiPPPP", [(
                        np.int32(n), np.int32(lo), np.int32(hi), a["down_offsets"], a["down_tails"],
                        a["down_weights"], workspace.dist)])))
                scatter = launchable(self.algorithm, "scatter_out", pull, "pull", wide=wide)
                grid = (min(blocks_for(n, pull.block_size), PULL_GRID_LIMIT), ck)
                launches.append(("pull", PackedLaunch(scatter, grid, pull.block_size, "iPPP", [(
                    np.int32(n), a["old_of"], workspace.dist, workspace.out)])))
        cuda.memcpy_htod(workspace.sources, np.asarray(sources, dtype=np.int32))
        stream = self._stream
        launch = Launcher(self, profile)
        with self.launch_errors(config), timed_span(self, stream) as span:
            for name, packed in launches:
                launch(name, packed, stream)
        return self._result(workspace, ck, span, launch, h.levels - down, launch.kernel_ms())

    def solve_to(self, config: LaunchConfig, sources: Sequence[int], targets: Sequence[int]) -> SolveResult:
        """Each instance's source-target query: `kernels/phast.cu`'s `phast_target`, one launch of
        the sweep's block size; with `distances` shared, `phast_target_shared` where the searches
        fit the block's shared memory (`gpu_levels` and `shared_arcs` do not apply). Only the
        targets' distances are written; a target of -1 (none) makes it a full solve. The steps are
        rounds.

        Raises:
            LaunchRejected: as `solve`.
        """
        if any(int(t) < 0 for t in targets):
            return self.solve(config, sources)
        cuda = self.cuda
        config = self.checked(config, sources)
        if self.hierarchy is None:
            raise LaunchRejected(config, self.unsuited)
        n, ck = self.graph.n_vertices, config.concurrent_kernels
        sweep, width = config.kernel("sweep"), self.width
        with self.launch_errors(config):
            workspace = self.workspace(lambda w: w.capacity >= ck, lambda: Workspace(ck, n, width))
            shared_bytes = search_bytes(n, width)
            shared = config.param("distances") == SHARED and self._fits(shared_bytes, "phast_target_shared", sweep)
            if not shared and (self._searches is None or self._searches.capacity < ck):
                self._free_searches()
                self._searches = Searches(ck, n, width)
            function = launchable(self.algorithm, "phast_target_shared" if shared else "phast_target", sweep,
                                  "sweep", wide=width.wide)
            if shared:
                self._opt_in(function, shared_bytes, config)
            a = self.arrays
            searches = workspace.out if shared else self._searches.search  # (the shared kernel reads none)
            run = PackedLaunch(function, (1, ck), sweep.block_size, "iPPPPPPPPPPPP", [(
                np.int32(n), a["new_of"], *(a[k] for k in ARRAYS[3:9]), workspace.sources, workspace.targets,
                searches, workspace.out, workspace.steps)], shared_bytes if shared else 0)
        cuda.memcpy_htod(workspace.sources, np.asarray(sources, dtype=np.int32))
        cuda.memcpy_htod(workspace.targets, np.asarray(targets, dtype=np.int32))
        launch = Launcher(self, False)
        with self.launch_errors(config), timed_span(self, self._stream) as span:
            launch("sweep", run, self._stream)
        return self._result(workspace, ck, span, launch, 0, {})

    def _result(self, workspace: Workspace, ck: int, span, launch: Launcher, more_steps: int,
                kernel_ms: dict[str, float]) -> SolveResult:
        """The solve just timed: its distances by the graph's ids (`out`, copied when first read)
        and each instance's steps, plus `more_steps` (the GPU-wide levels, a step each)."""
        cuda, n = self.cuda, self.graph.n_vertices

        def copy() -> np.ndarray:
            distances = workspace.rows(ck, n)
            cuda.memcpy_dtoh(distances, workspace.out)
            return distances

        rows = self.copier(copy)
        steps = np.empty(ck, dtype=np.int32)
        cuda.memcpy_dtoh(steps, workspace.steps)
        return SolveResult.timed(span, launch, rows, steps + more_steps, kernel_ms)

    def _fits(self, shared_bytes: int, function_name: str, launch) -> bool:
        """Whether `shared_bytes` of dynamic shared memory fit beside the function's own."""
        cuda = self.cuda
        function = launchable(self.algorithm, function_name, launch, wide=self.width.wide)
        limit = cuda.Context.get_device().get_attribute(cuda.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        return shared_bytes + function.get_attribute(cuda.function_attribute.SHARED_SIZE_BYTES) <= limit

    def _free_searches(self) -> None:
        if self._searches is not None:
            self._searches.free()
            self._searches = None

    def close(self) -> None:
        self._free_searches()
        super().close()

    def _opt_in(self, function, shared_bytes: int, config: LaunchConfig) -> None:
        """Let `function` take `shared_bytes` of dynamic shared memory.

        Raises:
            LaunchRejected: this GPU gives a block less.
        """
        cuda = self.cuda
        device = cuda.Context.get_device()
        limit = device.get_attribute(cuda.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        static = function.get_attribute(cuda.function_attribute.SHARED_SIZE_BYTES)
        if shared_bytes + static > limit:
            raise LaunchRejected(config, f"distances of {self.graph.n_vertices} vertices (with the downward arcs "
                                         f"where staged) need {shared_bytes} bytes of shared memory; a block may "
                                         f"have {limit - static}")
        function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes)


__all__ = ["PhastSolver", "block_levels"]
