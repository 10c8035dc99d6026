"""The engine of near-far Delta-stepping (`kernels/delta.cu`): apply a LaunchConfig and run
batched solves in one of its loop modes.

* `host`: per iteration, `advance` (the configuration's advance launch, B blocks per instance)
  and `finish` (the split launch, one block per instance); the instances' `done` flags are copied into a pinned ring and
  read a few iterations behind, as the thesis engine reads its thresholds.
* `persistent`: one launch; `solve_block` with one block per instance (its counters and the head
  of its queues in shared memory, and its duplicate stamps too as bitmaps when `bitmap_words`
  allows), `solve_grid` with B blocks per instance meeting at a barrier.
  A barrier needs every block of its instance resident: the grid is refused (INVALID) unless B x CK
  is at most the blocks the occupancy calculation (`autotune.model.occupancy`, with the compiled
  kernel's registers and shared memory and the launch's cache state) keeps resident on the GPU's
  SMs at once, the bound a cooperative launch checks. (Before run AC, one block per SM: the
  prototype's grids of two 512-thread blocks per SM had timed out at the barrier, but that kernel
  also had the split race fixed in 86c4fe0; docs/notes/delta-kernels.md, run AC.) The kernel's barrier
  gives up after a few seconds all the same, so no grid hangs the GPU.
* `shared`: `solve_shared`, solve_block with the graph and the instance's distances copied into
  the block's shared memory (`shared_graph_bytes`): refused (INVALID) when they do not fit beside
  the block's own arrays.

Every solve's iterations, splits and scanned edges are read back per instance; an instance that
reports an error (a barrier timeout, the iteration cap, a queue overflow) makes the solve WRONG.
A skewed graph of scattered ids is relaxed renumbered by in-degree (`autotune.graphs.order`: its hubs'
distances share cache lines), built on the GPU (`autotune.gpu.renumber`): sources and targets are
renamed, and every solve ends by writing its rows back in the graph's ids (timed with it).
A graph whose distances may pass 32 bits runs the 64-bit builds (`Solver.width`): dist of 8 bytes,
the fields that hold distances in 64-bit rows after the int ones (`state_bytes`), a tile's
distances in shared memory of 8 bytes a thread (`scratch_bytes_per_thread`).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta import DELTA
from autotune.algorithms.delta import (
    GRID_TILES,
    HOST,
    OFF,
    PERSISTENT,
    SHARED,
    delta_argument,
    shared_graph_bytes,
    threshold_argument,
)
from autotune.algorithms.delta.shared import QUEUE_CAPACITY, bitmap_words
from autotune.errors import LaunchRejected
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
    host_loop,
    init_blocks,
    raise_instance_errors,
    stop_writer,
    stopped_at_deadline,
    timed_span,
)
from autotune.gpu.memory import DeviceArrays
from autotune.gpu.renumber import RenumberedGraph
from autotune.graphs.order import hub_order
from autotune.launch import KernelLaunch, LaunchConfig
from autotune.model.occupancy import blocks_with_extra_shared
from autotune.reference.distance_range import NARROW, DistanceWidth

INT_ARRAYS = 6  # delta.cu's work arrays after dist (near queues, far piles, stamps): n ints each per instance


def scratch_bytes_per_thread(width: DistanceWidth = NARROW) -> int:
    """advance_tile's shared arrays a thread: a tile's begin and offset, and its distance
    (delta.cu's SCRATCH_INTS ints)."""
    return 8 + width.itemsize


def state_bytes(fields: int, columns: int, width: DistanceWidth = NARROW, wide_fields: int | None = None) -> int:
    """A state allocation of `fields` int rows of `columns` (an instance or a group each), and for
    the 64-bit builds, from the next 8-byte boundary, `wide_fields` rows (every field's by default:
    delta.cu's `Instance::dfield`) of 64-bit distances.

    Example:
        >>> from autotune.reference.distance_range import WIDE
        >>> state_bytes(17, 3), state_bytes(17, 3, WIDE, wide_fields=3), state_bytes(32, 1, WIDE)
        (204, 280, 384)
    """
    if not width.wide:
        return 4 * fields * columns
    ints = fields * columns + (fields * columns) % 2
    return 4 * ints + 8 * (fields if wide_fields is None else wide_fields) * columns


ERRORS = {1: "a barrier timed out (the instance's blocks were not all resident)",
          2: "the iteration cap was reached", 3: "a queue overflowed"}
STOPPED_ERROR = 4  # what the host writes into a persistent solve's error fields at its deadline (delta.cu)


def stops_early(config: LaunchConfig) -> bool:
    """Whether a source-target query with `config` runs delta.cu's TARGETED build (which stops once
    the target's distance is final) rather than the full solve. Not for a grid that defers vertices
    (`defer_work`): the TARGETED build defers nothing, and there the full solve is the faster way to
    the target's final distance (H100, rmat17's tuned one query: 0.384 ms to stop at the target
    against 0.300 for the full solve: suite `queries` at c08e594, the results committed in b7014c6;
    docs/notes/delta-kernels.md, run AF)."""
    return not (config.param("loop") == PERSISTENT and int(config.param("blocks")) > 1
                and config.param("defer_work", OFF) != OFF)


def state_fields(source: str) -> dict[str, int]:
    """The per-instance state fields of delta.cu's enum, by name (F_DONE = 0, ...), read from the
    source so that the two cannot disagree."""
    body = source[source.index("enum {"):source.index("};", source.index("enum {"))]
    fields: dict[str, int] = {}
    value = -1
    for line in body.splitlines():
        match = re.match(r"\s*(F_\w+|N_FIELDS)(?:\s*=\s*(F_\w+)\s*\+\s*(\d+)|\s*=\s*(\d+))?\s*,?", line)
        if not match:
            continue
        name, base, offset, literal = match.groups()
        if base is not None:
            value = fields[base] + int(offset)
        elif literal is not None:
            value = int(literal)
        else:
            value += 1
        fields[name] = value
    return fields


class Workspace(DeviceArrays):
    """The state, work arrays, hub chunks (none without a hub capacity: `hubs` is None) and sources
    of up to `capacity` instances."""

    def __init__(self, n: int, capacity: int, fields: int, hub_capacity: int, width: DistanceWidth = NARROW) -> None:
        self.capacity, self.hub_capacity = capacity, hub_capacity
        self.hubs = None
        self.barrier_zeroed_for: int | None = None  # the CK whose barrier counts are known zero (low bits)
        super().__init__(self.sizes(n, capacity, fields, hub_capacity, width), (POLL_DEPTH, capacity),
                         f"{capacity} concurrent instances", width.dtype)

    @staticmethod
    def sizes(n: int, capacity: int, fields: int, hub_capacity: int, width: DistanceWidth = NARROW) -> dict[str, int]:
        """Bytes of each allocation (without hubs, `Algorithm.bytes_per_vertex` and
        `bytes_per_instance` sum them, with the `wide_` ones for the 64-bit builds)."""
        sizes = {"state": state_bytes(fields, capacity, width),
                 "work": (4 * INT_ARRAYS + width.itemsize) * n * capacity, "sources": 8 * capacity}
        if hub_capacity:
            sizes["hubs"] = 8 * 2 * hub_capacity * capacity
        return sizes

    def fits(self, capacity: int, hub_capacity: int) -> bool:
        return self.capacity >= capacity and self.hub_capacity >= hub_capacity


class DeltaSolver(Solver):
    """Batched near-far Delta-stepping solves of one graph (see the module docstring)."""

    def __init__(self, graph: CSRGraph, algorithm: Algorithm = DELTA) -> None:
        super().__init__(graph, algorithm)
        self.fields = state_fields(self.algorithm.source_path.read_text())
        self._stream = self.cuda.Stream()
        self._hub_capacities: dict[int, int] = {}
        order = hub_order(graph)
        # the kernels' graph: renumbered by in-degree where its hubs' distances then share cache lines
        self.renumbered = None if order is None else RenumberedGraph(self.device_graph, order, self.width.wide)
        self._rows_at = None  # where the last solve's rows are, by the graph's ids

    def hub_capacity(self, block_threshold: int) -> int:
        """Hub chunks one iteration can produce: ceil(degree / threshold) summed over the vertices
        of degree >= threshold (each enters an iteration's near queue at most once)."""
        if block_threshold <= 0:
            return 0
        if block_threshold not in self._hub_capacities:
            degrees = self.graph.out_degrees
            big = degrees[degrees >= block_threshold].astype(np.int64)
            self._hub_capacities[block_threshold] = int(np.sum(-(-big // block_threshold))) + 1
        return self._hub_capacities[block_threshold]

    def _check_resident(self, function, launch: KernelLaunch, blocks: int, instances: int) -> None:
        """Refuse a persistent grid whose blocks could not all be resident (module docstring)."""
        from autotune.model.characterization import KernelResources
        from autotune.model.occupancy import occupancy

        cuda = self.cuda
        resources = KernelResources(function.num_regs, function.get_attribute(cuda.function_attribute.SHARED_SIZE_BYTES),
                                    scratch_bytes_per_thread(self.width))
        profile = self.device_profile
        fit = occupancy(profile, resources, launch.block_size, launch.cache)
        if fit.blocks_per_sm < 1:
            raise LaunchRejected(None, f"advance: a {launch.block_size}-thread block of solve_grid cannot launch "
                                       f"({fit.reason or 'no SM holds one'})")
        if blocks * instances > fit.blocks_per_sm * profile.sm_count:
            raise LaunchRejected(None, f"persistent grid of {blocks} blocks x CK {instances} = {blocks * instances} "
                                       f"blocks, more than the GPU keeps resident at once ({fit.blocks_per_sm} a SM x "
                                       f"{profile.sm_count} SMs): not every block is sure to be resident for the barrier")

    def device_distances(self):
        """The work arrays begin with every instance's distances, a row each (delta.cu's layout); on
        a renumbered graph the rows by the graph's ids follow them (`rows_at`)."""
        return None if self._workspace is None else self._rows_at

    def rows_at(self, workspace: Workspace, ck: int):
        """Where a solve of `ck` instances leaves their rows by the graph's ids: the work arrays'
        start, or on a renumbered graph the near queues after the distances (`renumbered`), which the
        rows put back in the graph's ids overwrite once the solve is done (the next solve's init
        queues its sources afresh)."""
        if self.renumbered is None:
            return workspace.work
        return np.uintp(int(workspace.work) + ck * self.graph.n_vertices * self.width.itemsize)  # a kernel argument

    def solve_to(self, config: LaunchConfig, sources: Sequence[int], targets: Sequence[int]) -> SolveResult:
        """`Solver.solve_to` with delta.cu's TARGETED build: an instance stops once nothing waiting
        can lower its target's distance (the source's header says when each loop mode checks); a
        deferring grid solves in full instead (`stops_early`)."""
        return self.solve(config, sources, targets=targets if stops_early(config) else None)

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None, targets: Sequence[int] | None = None) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once and return distances and timings.

        With `profile`, CUDA events surround every launch and `kernel_ms` sums their times per
        kernel (`advance`, `split` in host mode; `advance` for a persistent solve; `other`: init, and
        on a renumbered graph the rows put back in its ids).
        A solve stops at `deadline_ms` (host clock) and raises `Overtime`: a host-loop one launches
        no more, a persistent one is told to end (`stopped_at_deadline`: its error fields).

        Raises:
            LaunchRejected: the configuration cannot run on this GPU (resources, residency, memory).
            WrongResult: an instance reported an error (see `ERRORS`).
        """
        cuda = self.cuda
        config = self.checked(config, sources)
        ck = config.concurrent_kernels
        params = config.params
        loop, blocks = params["loop"], int(params["blocks"])
        delta = np.int32(delta_argument(params["delta"]))
        warp = np.int32(threshold_argument(params["warp_threshold"], self.graph.max_degree))
        hub_threshold = threshold_argument(params["block_threshold"], self.graph.max_degree)
        uses_hubs = (loop == HOST or blocks > 1) and hub_threshold > 0
        hub_capacity = self.hub_capacity(hub_threshold) if uses_hubs else 0
        with self.launch_errors(config):
            workspace = self.workspace(
                lambda w: w.fits(ck, hub_capacity),
                lambda: Workspace(self.graph.n_vertices, ck, self.fields["N_FIELDS"], hub_capacity, self.width))
            launches = self._launches(config, workspace, loop, blocks, delta, warp, np.int32(hub_threshold),
                                      targets is not None)
        ends = [-1] * ck if targets is None else list(targets)
        ids = [*sources, *ends] if self.renumbered is None else self.renumbered.renamed([*sources, *ends])
        cuda.memcpy_htod(workspace.sources, np.asarray(ids, dtype=np.int32))  # init reads both
        self._rows_at = self.rows_at(workspace, ck)
        if "init" not in launches and workspace.barrier_zeroed_for != ck:  # solve_grid's init keeps the barrier
            cuda.memset_d32(workspace.state, 0, self.fields["N_FIELDS"] * ck)
        workspace.barrier_zeroed_for = None
        stream = self._stream
        launch = Launcher(self, profile)
        done_row = int(workspace.state) + 4 * self.fields["F_DONE"] * ck
        with self.launch_errors(config), timed_span(self, stream, deadline_ms) as span:
            if "init" in launches:
                launch("other", launches["init"], stream)
            finished = True
            if loop in (PERSISTENT, SHARED):
                launch("advance", launches["solve"], stream)
                error_row = int(workspace.state) + 4 * self.fields["F_ERROR"] * ck
                finished = not stopped_at_deadline(self, stream, span.deadline_s,
                                                   stop_writer(self, error_row, ck, STOPPED_ERROR))
            else:
                steps = (("advance", launches["advance"]), ("split", launches["finish"]))
                finished = host_loop(self, launch, steps, workspace.ring, done_row, ck, stream, span.deadline_s)
            if finished and self.renumbered is not None:  # timed: part of what a solve's user waits for
                launch("other", self.renumbered.rows_in_graph_order(ck, workspace.work, self._rows_at), stream)
        kernel_ms = launch.kernel_ms()
        if not finished:
            raise Overtime(span.elapsed_ms)

        rows_at = self._rows_at

        def copy() -> np.ndarray:
            distances = workspace.rows(ck, self.graph.n_vertices)
            cuda.memcpy_dtoh(distances, int(rows_at))
            return distances

        rows = self.copier(copy)
        state = np.empty((self.fields["N_FIELDS"], ck), dtype=np.int32)
        cuda.memcpy_dtoh(state, workspace.state)  # field f of instance k at f x CK + k
        errors = state[self.fields["F_ERROR"]]
        # every barrier completed (or init reset it): the count's low bits are 0 in the state of this CK's layout
        workspace.barrier_zeroed_for = None if np.any(errors) else ck
        raise_instance_errors(errors, ERRORS)
        return SolveResult.timed(span, launch, rows, state[self.fields["F_ITERATIONS"]].copy(), kernel_ms)

    def init_launch(self, ck: int, workspace: Workspace, delta) -> PackedLaunch:
        """delta.cu's `init`: every instance's distances, stamps and fields reset, its source queued."""
        n, w = np.int32(self.graph.n_vertices), workspace
        function = kernel_function(self.algorithm, "init", wide=self.width.wide)
        return PackedLaunch(function, (init_blocks(int(n)), ck), INIT_BLOCK, "iiPPPi",
                            [(n, np.int32(ck), w.sources, w.state, w.work, delta)])

    def _launches(self, config: LaunchConfig, workspace: Workspace, loop: str, blocks: int, delta, warp,
                  hub_threshold, targeted: bool) -> dict[str, PackedLaunch]:
        algorithm = self.algorithm
        n, ck = np.int32(self.graph.n_vertices), np.int32(config.concurrent_kernels)
        g, w = self.renumbered or self.device_graph, workspace
        hubs = w.hubs if w.hubs is not None else 0
        hub_capacity = np.int32(w.hub_capacity)
        max_iterations = np.int32(self.max_iterations())
        advance = config.kernel("advance")
        wide = self.width.wide
        out: dict[str, PackedLaunch] = {}
        if not (loop == PERSISTENT and blocks > 1 and not targeted):  # solve_grid initializes its own (delta.cu)
            out["init"] = self.init_launch(int(ck), workspace, delta)
        scratch = scratch_bytes_per_thread(self.width) * advance.block_size
        if loop == SHARED or (loop == PERSISTENT and blocks == 1):
            function = launchable(algorithm, "solve_shared" if loop == SHARED else "solve_block", advance, "advance",
                                  targeted, wide)
            graph_bytes = shared_graph_bytes(self.graph.n_vertices, self.graph.n_edges, wide) if loop == SHARED else 0
            shared = scratch + 8 * QUEUE_CAPACITY
            static = function.get_attribute(self.cuda.function_attribute.SHARED_SIZE_BYTES)
            profile = self.device_profile
            free_bytes = profile.max_shared_memory_per_block - static - shared - graph_bytes
            if free_bytes < 0:
                raise LaunchRejected(None, f"loop shared: the graph and its distances take {graph_bytes:,} bytes of "
                                           f"shared memory; a block of {advance.block_size} threads has "
                                           f"{free_bytes + graph_bytes:,} left")
            resident = blocks_with_extra_shared(profile, function.num_regs, static + shared + graph_bytes,
                                                advance.block_size, advance.cache)
            words = bitmap_words(int(n), int(ck), profile.sm_count, free_bytes, resident)
            shared += 16 * words + graph_bytes
            # a block of more than 48 KiB of shared memory opts in (bitmap_words keeps it within the limit)
            function.set_attribute(self.cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, max(shared, 49152 - static))
            out["solve"] = PackedLaunch(function, (1, int(ck)), advance.block_size, "iiPPPPPiiiiii",
                                        [(n, ck, g.row_offsets, g.columns, g.weights, w.state, w.work, delta, warp,
                                          hub_threshold, max_iterations, np.int32(QUEUE_CAPACITY), np.int32(words))],
                                        shared)
        elif loop == PERSISTENT:
            function = launchable(algorithm, "solve_grid", advance, "advance", targeted, wide)
            self._check_resident(function, advance, blocks, int(ck))
            work = config.param("defer_work", OFF)
            defer = np.int32(0 if work == OFF else int(work))
            tiles = np.int32(config.param("tiles", GRID_TILES))
            out["solve"] = PackedLaunch(function, (blocks, int(ck)), advance.block_size, "iiPPPPPPiiiiiiiP",
                                        [(n, ck, g.row_offsets, g.columns, g.weights, w.state, w.work, hubs,
                                          hub_capacity, delta, warp, hub_threshold, max_iterations, defer, tiles,
                                          w.sources)],
                                        scratch)
        else:
            split = config.kernel("split")
            out["advance"] = PackedLaunch(launchable(algorithm, "advance", advance, targeted=targeted, wide=wide),
                                          (blocks, int(ck)), advance.block_size, "iiPPPPPPiii",
                                          [(n, ck, g.row_offsets, g.columns, g.weights, w.state, w.work, hubs,
                                            hub_capacity, warp, hub_threshold)], scratch)
            # one block per instance: its blocks must agree on whether to split (delta.cu, finish)
            out["finish"] = PackedLaunch(launchable(algorithm, "finish", split, "split", targeted, wide), (1, int(ck)),
                                         split.block_size, "iiPPii", [(n, ck, w.state, w.work, delta, max_iterations)])
        return out


__all__ = ["DeltaSolver", "QUEUE_CAPACITY", "bitmap_words", "state_fields"]
