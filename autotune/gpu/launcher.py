"""Apply a LaunchConfig on the GPU and run batched SSSP solves: the one narrow seam to CUDA.

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from autotune.errors import GpuUnavailable, LaunchRejected, WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu import kernels as compiled
from autotune.space import KernelLaunch, LaunchConfig

INF = 0x7FFFFFFF
LAUNCH_MODES = ("batched", "streams")
POLL_DEPTH = 8  # iterations the host may run ahead of the thresholds it has read
INIT_BLOCK = 256
MAX_ITERATIONS_FACTOR = 4  # a solve longer than factor x (n + 2) iterations is a bug, not a graph


def _driver():
    try:
        import pycuda.driver as driver
    except ImportError as error:
        raise GpuUnavailable(f"PyCUDA is not installed ({error}); install with: pip install -e \".[cuda]\"") from None
    try:
        driver.init()
        if driver.Device.count() == 0:
            raise GpuUnavailable("no CUDA device found")
    except driver.Error as error:
        raise GpuUnavailable(f"no CUDA device responds: {error}") from None
    return driver


@contextmanager
def gpu_session(device_index: int = 0) -> Iterator[object]:
    """Make the device's primary context current for the block; yields the PyCUDA Device.

    Raises:
        GpuUnavailable: no PyCUDA, no device, or no device with that index.
    """
    driver = _driver()
    if not 0 <= device_index < driver.Device.count():
        raise GpuUnavailable(f"no CUDA device {device_index} (this machine has {driver.Device.count()})")
    device = driver.Device(device_index)
    context = device.retain_primary_context()
    context.push()
    try:
        yield device
    finally:
        driver.Context.synchronize()
        driver.Context.pop()


def device_description(device) -> dict[str, object]:
    """What a table records about the GPU it was measured on."""
    driver = _driver()
    attribute = driver.device_attribute
    major, minor = device.compute_capability()
    version = driver.get_driver_version()
    return {
        "name": device.name(),
        "compute_capability": f"{major}.{minor}",
        "sm_count": device.get_attribute(attribute.MULTIPROCESSOR_COUNT),
        "cuda_driver_version": f"{version // 1000}.{version % 1000 // 10}",
    }


@dataclass
class SolveResult:
    """One batched solve: CK instances, timed with CUDA events."""

    elapsed_ms: float  # CUDA events from the first launch to the detected end
    wall_ms: float  # host clock, same span
    launch_ms: float  # host time spent inside launch calls
    distances: np.ndarray  # int32, (CK, n), INF for unreachable
    iterations: np.ndarray  # per instance
    kernel_ms: dict[str, float] = field(default_factory=dict)  # summed over instances (profiled solves)


class GraphOnDevice:
    """The CSR arrays and Crauser's out-values (omega) in GPU memory, for the life of the object."""

    def __init__(self, graph: CSRGraph) -> None:
        driver = _driver()
        self.graph = graph
        self.n = graph.n_vertices
        self._allocations = []
        self.row_offsets = self._upload(driver, graph.row_offsets)
        self.columns = self._upload(driver, graph.columns if graph.n_edges else np.zeros(1, np.int32))
        self.weights = self._upload(driver, graph.weights if graph.n_edges else np.zeros(1, np.int32))
        self.omega = self._alloc(driver, max(self.n, 1) * 4)
        out_weight = compiled.kernel_function("crauser", "out_weight")
        grid = (max(1, -(-self.n // INIT_BLOCK)), 1)
        out_weight(np.int32(self.n), self.row_offsets, self.weights, self.omega,
                   block=(INIT_BLOCK, 1, 1), grid=grid)
        driver.Context.synchronize()

    def _alloc(self, driver, nbytes: int):
        allocation = driver.mem_alloc(max(nbytes, 4))
        self._allocations.append(allocation)
        return allocation

    def _upload(self, driver, array: np.ndarray):
        array = np.ascontiguousarray(array, dtype=np.int32)
        allocation = self._alloc(driver, array.nbytes)
        driver.memcpy_htod(allocation, array)
        return allocation

    def free(self) -> None:
        for allocation in self._allocations:
            allocation.free()
        self._allocations.clear()


class Workspace:
    """Per-instance state for up to `capacity` instances: dist, unsettled, frontier, thresholds."""

    def __init__(self, n: int, capacity: int) -> None:
        driver = _driver()
        bytes_per_instance = n * (4 + 1 + 1) + 2 * 4 + 4 + 4
        free_bytes, _total = driver.mem_get_info()
        needed = bytes_per_instance * capacity
        if needed > 0.9 * free_bytes:
            raise LaunchRejected(
                None,
                f"{capacity} concurrent instances need {needed / 2**30:.2f} GiB of GPU memory; "
                f"{free_bytes / 2**30:.2f} GiB are free",
            )
        self.n, self.capacity = n, capacity
        sizes = {"dist": 4 * n * capacity, "unsettled": n * capacity, "frontier": n * capacity,
                 "delta": 2 * 4 * capacity, "iterations": 4 * capacity, "sources": 4 * capacity}
        self._allocated: list[str] = []
        try:
            for name, nbytes in sizes.items():
                setattr(self, name, driver.mem_alloc(max(nbytes, 4)))
                self._allocated.append(name)
            self.ring = driver.pagelocked_empty((POLL_DEPTH, 2 * capacity), np.int32)
        except driver.MemoryError as error:  # another process took the memory since mem_get_info
            self.free()
            raise LaunchRejected(None, f"{capacity} concurrent instances: out of GPU memory ({error})") from None

    def free(self) -> None:
        for name in self._allocated:
            getattr(self, name).free()
        self._allocated.clear()


def _function_for(algorithm: str, kernel: str, launch: KernelLaunch):
    """The compiled function for a kernel launch, with its cache preference applied."""
    driver = _driver()
    function = compiled.kernel_function(algorithm, kernel, launch.cache)
    limit = function.get_attribute(driver.function_attribute.MAX_THREADS_PER_BLOCK)
    if launch.block_size > limit:
        raise LaunchRejected(
            None, f"{kernel}: block size {launch.block_size} exceeds what the compiled kernel allows ({limit})"
        )
    carveout = compiled.CARVEOUT_PERCENT[launch.cache]
    function.set_attribute(driver.function_attribute.PREFERRED_SHARED_MEMORY_CARVEOUT, carveout)
    return function


class _Launch:
    """A kernel with its grid, block and argument buffers packed once (one per parity)."""

    def __init__(self, function, grid: tuple[int, int], block_size: int, arg_format: str,
                 args_for_parity: Sequence[tuple]) -> None:
        from pycuda._pvt_struct import pack

        self.function = function
        self.grid = (int(grid[0]), int(grid[1]))
        self.block = (block_size, 1, 1)
        self.buffers = [pack(arg_format, *args) for args in args_for_parity]

    def __call__(self, stream, parity: int = 0) -> None:
        self.function._launch_kernel(self.grid, self.block, self.buffers[parity], 0, stream)


def _blocks(threads: int, block_size: int) -> int:
    return max(1, -(-threads // block_size))


class Solver:
    """Runs batched solves of one graph and one algorithm under varying launch configurations.

    Use as a context manager inside `gpu_session()`; GPU memory is released on exit.
    """

    def __init__(self, graph: CSRGraph, algorithm: str = "crauser", launch_mode: str = "batched") -> None:
        if algorithm not in compiled.ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        if launch_mode not in LAUNCH_MODES:
            raise ValueError(f"unknown launch mode {launch_mode!r}")
        self.graph = graph
        self.algorithm = algorithm
        self.launch_mode = launch_mode
        self._driver = _driver()
        self._device_graph = GraphOnDevice(graph)
        self._workspace: Workspace | None = None
        self._streams: list = []
        self._events: deque = deque()

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        if self._workspace is not None:
            self._workspace.free()
            self._workspace = None
        self._device_graph.free()

    def _workspace_for(self, instances: int) -> Workspace:
        if self._workspace is None or self._workspace.capacity < instances:
            if self._workspace is not None:
                self._workspace.free()
                self._workspace = None
            self._workspace = Workspace(self.graph.n_vertices, instances)
        return self._workspace

    def _streams_for(self, count: int) -> list:
        while len(self._streams) < count:
            self._streams.append(self._driver.Stream())
        return self._streams[:count]

    def _event(self):
        return self._events.popleft() if self._events else self._driver.Event()

    def _groups(self, config: LaunchConfig, workspace: Workspace):
        """(stream, first_instance, instances) of each launch group, and its per-kernel launches."""
        ck = config.concurrent_kernels
        if self.launch_mode == "batched":
            layout = [(self._streams_for(1)[0], 0, ck)]
        else:
            layout = [(stream, k, 1) for k, stream in enumerate(self._streams_for(ck))]
        n = np.int32(self.graph.n_vertices)
        g, w = self._device_graph, workspace
        functions = {name: _function_for(self.algorithm, name, launch) for name, launch in config.kernels.items()}
        init_function = compiled.kernel_function(self.algorithm, "init")
        lanes_log2 = config.lanes.bit_length() - 1
        groups = []
        for stream, first, count in layout:
            first32 = np.int32(first)
            parities = (np.int32(0), np.int32(1))
            relax_block = config.relax.block_size
            launches = {
                "init": _Launch(init_function, (_blocks(n, INIT_BLOCK), count), INIT_BLOCK, "iiPPPPPP",
                                [(n, first32, w.sources, w.dist, w.unsettled, w.frontier, w.delta, w.iterations)]),
                "relax": _Launch(functions["relax"], (_blocks(int(n) * config.lanes, relax_block), count),
                                 relax_block, "iiPPPPPPii",
                                 [(n, first32, g.row_offsets, g.columns, g.weights, w.dist, w.frontier, w.delta,
                                   p, np.int32(lanes_log2)) for p in parities]),
                "minimum": _Launch(functions["minimum"], (_blocks(int(n), 2 * config.minimum.block_size), count),
                                   config.minimum.block_size, "iiPPPPi",
                                   [(n, first32, w.dist, w.unsettled, g.omega, w.delta, p) for p in parities]),
                "update": _Launch(functions["update"], (_blocks(int(n), config.update.block_size), count),
                                  config.update.block_size, "iiPPPPiP",
                                  [(n, first32, w.dist, w.unsettled, w.frontier, w.delta, p, w.iterations)
                                   for p in parities]),
            }
            groups.append((stream, first, count, launches))
        return groups

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False) -> SolveResult:
        """Solve SSSP from `len(sources) == CK` sources at once and return distances and timings.

        With `profile`, CUDA events surround every kernel launch and `kernel_ms` sums their times
        per kernel ("relax", "minimum", "update", "other" = init); this perturbs the total, so the
        timed repetitions run without it.

        Raises:
            LaunchRejected: the configuration cannot run on this GPU (resources, block size, memory).
        """
        driver = self._driver
        ck = config.concurrent_kernels
        if len(sources) != ck:
            raise ValueError(f"{ck} concurrent instances need {ck} sources, got {len(sources)}")
        workspace = self._workspace_for(ck)
        try:
            groups = self._groups(config, workspace)
        except LaunchRejected as rejected:
            raise LaunchRejected(config, rejected.reason) from None
        driver.memcpy_htod(workspace.sources, np.asarray(sources, dtype=np.int32))
        main_stream = groups[0][0]
        max_iterations = MAX_ITERATIONS_FACTOR * (self.graph.n_vertices + 2)
        kernel_events: list[tuple[str, object, object]] = []
        launch_s = 0.0

        def launch(name: str, launch_obj: _Launch, stream, parity: int = 0) -> None:
            nonlocal launch_s
            t0 = time.perf_counter()
            if profile:
                before = self._event()
                before.record(stream)
                launch_obj(stream, parity)
                after = self._event()
                after.record(stream)
                kernel_events.append(("other" if name == "init" else name, before, after))
            else:
                launch_obj(stream, parity)
            launch_s += time.perf_counter() - t0

        try:
            start, end = self._event(), self._event()
            wall_start = time.perf_counter()
            start.record(main_stream)
            for stream, _first, _count, launches in groups:
                if stream is not main_stream:
                    stream.wait_for_event(start)
                launch("init", launches["init"], stream)
            # Per group: the iteration whose thresholds the host reads next, and its pending copies.
            pending = {index: deque() for index in range(len(groups))}
            active = set(range(len(groups)))
            iteration = 0
            while active:
                if iteration >= max_iterations:  # a kernel bug, never a slow configuration
                    raise WrongResult(f"no convergence after {iteration} iterations")
                parity = iteration & 1
                slot = iteration % POLL_DEPTH
                for index in sorted(active):
                    stream, first, count, launches = groups[index]
                    launch("relax", launches["relax"], stream, parity)
                    launch("minimum", launches["minimum"], stream, parity)
                    launch("update", launches["update"], stream, parity)
                    ring = workspace.ring[slot, 2 * first: 2 * (first + count)]
                    t0 = time.perf_counter()
                    driver.memcpy_dtoh_async(ring, int(workspace.delta) + 8 * first, stream)
                    done_event = self._event()
                    done_event.record(stream)
                    launch_s += time.perf_counter() - t0
                    pending[index].append((ring, done_event))
                iteration += 1
                for index in sorted(active):
                    queue = pending[index]
                    # Read every copy that has landed; wait only when the ring is full.
                    while queue and (len(queue) >= POLL_DEPTH or queue[0][1].query()):
                        ring, done_event = queue.popleft()
                        done_event.synchronize()
                        self._events.append(done_event)
                        if np.all(ring == INF):
                            active.discard(index)
                            for _ring, event in queue:
                                self._events.append(event)
                            queue.clear()
                            break
            for stream, _first, _count, _launches in groups:
                if stream is not main_stream:
                    marker = self._event()
                    marker.record(stream)
                    main_stream.wait_for_event(marker)
                    self._events.append(marker)
            end.record(main_stream)
            end.synchronize()
            wall_ms = (time.perf_counter() - wall_start) * 1e3
            elapsed_ms = end.time_since(start)
        except driver.LaunchError as error:
            raise LaunchRejected(config, f"launch failed: {error}") from None
        except driver.LogicError as error:
            raise LaunchRejected(config, f"launch refused: {error}") from None

        kernel_ms: dict[str, float] = {}
        for name, before, after in kernel_events:
            kernel_ms[name] = kernel_ms.get(name, 0.0) + after.time_since(before)
            self._events.extend((before, after))
        self._events.extend((start, end))
        distances = np.empty((ck, self.graph.n_vertices), dtype=np.int32)
        driver.memcpy_dtoh(distances, workspace.dist)
        iterations = np.empty(workspace.capacity, dtype=np.int32)
        driver.memcpy_dtoh(iterations, workspace.iterations)
        return SolveResult(
            elapsed_ms=elapsed_ms,
            wall_ms=wall_ms,
            launch_ms=launch_s * 1e3,
            distances=distances,
            iterations=iterations[:ck].copy(),
            kernel_ms=kernel_ms,
        )
