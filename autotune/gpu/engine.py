"""What every GPU engine shares: packed launches, CUDA events, the solve's result, and the `Solver`
interface the timer measures through (their GPU memory: `autotune.gpu.memory`).

An engine is an algorithm's `Algorithm.engine` ("module:Class"): a `Solver` subclass that runs
batched solves (CK instances at once) of one graph under varying launch configurations.
`open_solver` builds the one the registry names.
"""
from __future__ import annotations

import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from autotune.errors import LaunchRejected, WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu.device import driver
from autotune.gpu.memory import GraphOnDevice
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import width_for

POLL_DEPTH = 8  # iterations the host may run ahead of the status it has read
INIT_BLOCK = 256
INIT_GRID_LIMIT = 1024  # blocks per instance of an initialization kernel (it strides over the vertices)
MAX_ITERATIONS_FACTOR = 4  # a solve longer than factor x (n + 2) iterations is a bug, not a graph
KERNEL_INT_MAX = 2**31 - 1  # the kernels take the iteration cap as an int


class Overtime(Exception):
    """A solve stopped at its deadline (`solve(..., deadline_ms=...)`): its distances are
    incomplete. `elapsed_ms` is its CUDA-event time up to the stop, a lower bound of the whole."""

    def __init__(self, elapsed_ms: float) -> None:
        super().__init__(f"stopped at its deadline after {elapsed_ms:.1f} ms")
        self.elapsed_ms = elapsed_ms


def past(deadline_s: float | None) -> bool:
    """Whether the host clock (`time.perf_counter`) has passed `deadline_s` (never when None)."""
    return deadline_s is not None and time.perf_counter() > deadline_s


@dataclass
class SolveResult:
    """One batched solve: CK instances, timed with CUDA events. Its `distances` are copied from
    the GPU when first read (a batch's rows can take gigabytes, which a check on the GPU,
    `autotune.gpu.verify`, never needs on the host); read them before the solver's next solve and
    before it closes."""

    elapsed_ms: float  # CUDA events from the first launch to the detected end
    wall_ms: float  # host clock, same span
    launch_ms: float  # host time spent inside launch calls
    rows: np.ndarray | Callable[[], np.ndarray]  # the distances, or what copies them from the GPU
    iterations: np.ndarray  # per instance
    kernel_ms: dict[str, float] = field(default_factory=dict)  # summed over instances (profiled solves)

    @cached_property
    def distances(self) -> np.ndarray:
        """(CK, n) in the solver's width (`Solver.width`: int32, or int64 where the graph needs it),
        its `inf` for unreachable; valid until the solver's next solve or its close.

        Raises:
            RuntimeError: first read after the solver's next solve (which overwrote them) or its close.
        """
        return self.rows() if callable(self.rows) else self.rows

    @classmethod
    def timed(cls, span: Span, launch: Launcher, rows: np.ndarray | Callable[[], np.ndarray], iterations: np.ndarray,
              kernel_ms: dict[str, float]) -> SolveResult:
        """A solve's result, timed by its closed `span` and the host time its `launch` took."""
        return cls(span.elapsed_ms, span.wall_ms, launch.host_s * 1e3, rows, iterations, kernel_ms)


class PackedLaunch:
    """A kernel with its grid, block, dynamic shared memory and argument buffers packed once
    (one buffer per variant of the arguments, e.g. per iteration parity)."""

    def __init__(self, function, grid: tuple[int, int], block_size: int, arg_format: str,
                 args_per_variant: Sequence[tuple], shared_bytes: int = 0) -> None:
        from pycuda._pvt_struct import pack

        self.function = function
        self.grid = (int(grid[0]), int(grid[1]))
        self.block = (block_size, 1, 1)
        self.shared_bytes = int(shared_bytes)
        self.buffers = [pack(arg_format, *args) for args in args_per_variant]

    def __call__(self, stream, variant: int = 0) -> None:
        self.function._launch_kernel(self.grid, self.block, self.buffers[variant], self.shared_bytes, stream)


def blocks_for(threads: int, block_size: int) -> int:
    return max(1, -(-threads // block_size))


def init_blocks(threads: int) -> int:
    """Blocks of `INIT_BLOCK` threads for an initialization kernel over `threads` items per
    instance: enough for one item each, at most `INIT_GRID_LIMIT` (the kernel strides)."""
    return min(INIT_GRID_LIMIT, blocks_for(threads, INIT_BLOCK))


class Launcher:
    """Launches a solve's packed kernels: counts the host time spent in launch calls and, when
    profiling, records CUDA events around each launch (per kernel name)."""

    def __init__(self, solver: Solver, profile: bool) -> None:
        self.solver = solver
        self.profile = profile
        self.events: list[tuple[str, object, object]] = []
        self.host_s = 0.0

    def __call__(self, name: str, packed: PackedLaunch, stream, variant: int = 0) -> None:
        t0 = time.perf_counter()
        if self.profile:
            before, after = self.solver.event(), self.solver.event()
            before.record(stream)
            packed(stream, variant)
            after.record(stream)
            self.events.append((name, before, after))
        else:
            packed(stream, variant)
        self.host_s += time.perf_counter() - t0

    def kernel_ms(self) -> dict[str, float]:
        """Milliseconds per kernel name over the recorded launches (their events go back to the pool)."""
        times: dict[str, float] = {}
        for name, before, after in self.events:
            times[name] = times.get(name, 0.0) + after.time_since(before)
            self.solver.recycle(before, after)
        self.events.clear()
        return times


@dataclass
class Span:
    """A solve's span on one stream (`timed_span`): its `start` event (other streams of the solve wait on it),
    `deadline_s` on the host clock, once closed `elapsed_ms` (CUDA events) and `wall_ms` (host clock)."""

    start: Any
    deadline_s: float | None = None
    elapsed_ms: float = 0.0
    wall_ms: float = 0.0


@contextmanager
def timed_span(solver: Solver, stream, deadline_ms: float | None = None) -> Iterator[Span]:
    """CUDA events on `stream` and the host clock around the launches of the block, which end
    synchronized (work on other streams must be joined to `stream` inside the block);
    `deadline_ms` after the start becomes the span's `deadline_s`."""
    start, end = solver.event(), solver.event()
    wall_start = time.perf_counter()
    span = Span(start, None if deadline_ms is None else wall_start + deadline_ms / 1e3)
    start.record(stream)
    yield span
    end.record(stream)
    end.synchronize()
    span.wall_ms = (time.perf_counter() - wall_start) * 1e3
    span.elapsed_ms = end.time_since(start)
    solver.recycle(start, end)


SPIN_S, STOP_POLL_S = 0.01, 0.001  # `stopped_at_deadline` spins so long, then looks this often


def stopped_at_deadline(solver: Solver, stream, deadline_s: float | None, stop: Callable[[], None]) -> bool:
    """Wait on the host clock for what is queued on `stream` to end (spinning `SPIN_S` first: a sleep would add to
    each of a sweep's short batches); where `deadline_s` passes first, call `stop` (which asks the running launch to
    end, `stop_writer`: a persistent kernel is one launch) and return True. No deadline: False at once."""
    if deadline_s is None:
        return False
    marker = solver.event()
    marker.record(stream)
    spin_until = time.perf_counter() + SPIN_S
    while not (ended := marker.query()) and not past(deadline_s):
        if time.perf_counter() > spin_until:
            time.sleep(STOP_POLL_S)
    solver.recycle(marker)
    if not ended:
        stop()
    return not ended


def stop_writer(solver: Solver, address: int, count: int, value: int) -> Callable[[], None]:
    """`stopped_at_deadline`'s `stop` for kernels whose instances end once their error field says so:
    `value` copied into the `count` ints at device `address` on a stream of its own, by the copy
    engine (a kernel, a memset among them, would wait for the running one's SMs)."""
    def stop() -> None:
        values, side = solver.cuda.pagelocked_empty(count, np.int32), solver.cuda.Stream()
        values[:] = value
        solver.cuda.memcpy_htod_async(address, values, side)
        side.synchronize()

    return stop


def host_loop(solver: Solver, launch: Launcher, steps: Sequence[tuple[str, PackedLaunch]], ring: np.ndarray,
              done_row: int, count: int, stream, deadline_s: float | None = None) -> bool:
    """Launch `steps` (kernel name, launch) once per iteration until all `count` done flags at device address
    `done_row` read 1, copying them into a row of the pinned `ring` after every iteration and reading them up to
    `POLL_DEPTH` iterations behind; False if the host clock passed `deadline_s` first, the done flags then set by
    the copy engine (`stop_writer`) so that the iterations queued return at once (a done instance's kernels do
    nothing: delta_lanes' batch at CK 1,024 on urand24 had run 45 s past the budget's end).

    Raises:
        WrongResult: more iterations than the solver's cap (the kernels cap themselves: a bug).
    """
    cuda = solver.cuda
    pending: deque[tuple[int, object]] = deque()
    limit = solver.max_iterations() + POLL_DEPTH
    for iteration in range(limit):
        if past(deadline_s):
            stop_writer(solver, done_row, count, 1)()
            solver.recycle(*(event for _slot, event in pending))
            return False
        for name, packed in steps:
            launch(name, packed, stream)
        slot = iteration % POLL_DEPTH
        cuda.memcpy_dtoh_async(ring[slot, :count], done_row, stream)
        marker = solver.event()
        marker.record(stream)
        pending.append((slot, marker))
        while pending and (len(pending) >= POLL_DEPTH or pending[0][1].query()):
            slot_read, event = pending.popleft()
            event.synchronize()
            solver.recycle(event)
            if np.all(ring[slot_read, :count] == 1):
                solver.recycle(*(rest for _slot, rest in pending))
                return True
    raise WrongResult(f"the iteration cap was reached on the host ({limit} iterations)")


class Solver:
    """Runs batched solves of one graph and one algorithm; use inside `gpu_session()` as a context
    manager (GPU memory is released on exit).

    Subclasses implement `solve(config, sources, profile=False, deadline_ms=None) -> SolveResult`;
    a solve still running `deadline_ms` after its first launch (host clock) stops launching and
    raises `Overtime` (a host-loop solve checks between iterations; Δ-stepping's persistent kernels
    are told to end, `stopped_at_deadline`; a launch that cannot be, ADDS' or PHAST's, runs to its end).
    """

    def __init__(self, graph: CSRGraph, algorithm: Any) -> None:
        """Raises:
            InputError: the graph's distances may pass 32 bits and the algorithm has no 64-bit build
                (`Algorithm.require_width`).
        """
        algorithm.require_width(graph)
        self.graph = graph
        self.algorithm = algorithm  # the registered `autotune.algorithms.Algorithm` this engine runs
        self.width = width_for(graph)  # the distances' (and its kernels' builds')
        self.cuda = driver()
        self.device_graph = GraphOnDevice(graph)
        self._events: deque = deque()
        self._workspace = None
        self._solves = 0  # counted by `copier`
        self._closed = False  # `copier`'s rows refuse to copy from freed memory

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True
        if self._workspace is not None:
            self._workspace.free()
            self._workspace = None
        self.device_graph.free()
        self._release_handles()

    def _release_handles(self) -> None:
        """Let go of the engine's streams and events here, in the thread whose context made them: an
        engine kept alive by a reference cycle is collected later in whichever thread the collector
        runs (a progress bar's), where PyCUDA cannot release them ("stream in out-of-thread context
        could not be cleaned up", and the handle leaks)."""
        handles = (self.cuda.Stream, self.cuda.Event)
        self._events.clear()
        for name, value in list(vars(self).items()):
            if isinstance(value, handles):
                setattr(self, name, None)
            elif isinstance(value, list) and value and all(isinstance(item, handles) for item in value):
                value.clear()

    def workspace(self, fits: Callable[[Any], bool], build: Callable[[], Any]) -> Any:
        """The engine's workspace if `fits` it, else a new one from `build` (the old one freed
        first, so that the two never hold GPU memory at once)."""
        if self._workspace is None or not fits(self._workspace):
            if self._workspace is not None:
                self._workspace.free()
                self._workspace = None
            self._workspace = build()
        return self._workspace

    @cached_property
    def device_profile(self):  # -> autotune.model.device.DeviceProfile of the current device
        from autotune.model.device import gpu_facts, profile_from_attributes

        return profile_from_attributes(*gpu_facts(self.cuda.Context.get_device()))

    def event(self):
        """A CUDA event from the pool (give it back with `recycle`)."""
        return self._events.popleft() if self._events else self.cuda.Event()

    def recycle(self, *events) -> None:
        self._events.extend(events)

    @contextmanager
    def launch_errors(self, config: LaunchConfig) -> Iterator[None]:
        """`LaunchRejected` naming `config` for what cannot run it: a launch the driver refuses or
        that fails, and a rejection raised without a configuration (workspace, residency)."""
        cuda = self.cuda
        try:
            yield
        except LaunchRejected as rejected:
            if rejected.config is not None:
                raise
            raise LaunchRejected(config, rejected.reason) from None
        except cuda.LaunchError as error:
            raise LaunchRejected(config, f"launch failed: {error}") from None
        except cuda.LogicError as error:
            raise LaunchRejected(config, f"launch refused: {error}") from None

    iterations_per_vertex = MAX_ITERATIONS_FACTOR  # an engine whose solves take more says so

    def max_iterations(self) -> int:
        """The iterations past which a solve is a bug: `iterations_per_vertex` x (n + 2), at most what
        the kernels' int holds (rmat24's 16.8M vertices x delta_lanes' 128 passed it)."""
        return min(self.iterations_per_vertex * (self.graph.n_vertices + 2), KERNEL_INT_MAX)

    def checked(self, config: LaunchConfig, sources: Sequence[int]) -> LaunchConfig:
        """`config` in its algorithm's canonical form, with one source per concurrent instance.

        Raises:
            InputError: not a configuration of this solver's algorithm.
            ValueError: as many sources as CK were not given.
        """
        config = self.algorithm.validate(config)
        ck = config.concurrent_kernels
        if len(sources) != ck:
            raise ValueError(f"{ck} concurrent instances need {ck} sources, got {len(sources)}")
        return config

    def solve(self, config: LaunchConfig, sources: Sequence[int], profile: bool = False,
              deadline_ms: float | None = None) -> SolveResult:
        raise NotImplementedError

    def solve_to(self, config: LaunchConfig, sources: Sequence[int], targets: Sequence[int]) -> SolveResult:
        """A solve from `sources` (one per instance) that may stop once each instance's target
        (`targets[k]`, or -1 for none) has its final distance: then only the targets' distances
        are sure to be final (Delta-stepping's: and those below them; PHAST's: only they are
        written). An engine without an early stop solves everything, which answers the query too
        (what this default does)."""
        return self.solve(config, sources)

    def device_distances(self):  # -> a device pointer, or None
        """Where the last solve's distances are in GPU memory as (CK, n) rows (`width`), or None when
        the engine keeps them otherwise (the shortest-path pass, `autotune.gpu.paths`, then copies
        the returned distances up)."""
        return None

    def device_row_blocks(self, ck: int) -> Iterator[tuple[Any, int, int]] | None:
        """The last solve's distances in GPU memory as blocks of consecutive instances' rows:
        (device pointer, first instance, instances), each block valid until the next is taken;
        None when they are nowhere on the GPU as rows (then only `SolveResult.distances` has them).
        This default: the one block of `device_distances`."""
        rows = self.device_distances()
        return None if rows is None else iter([(rows, 0, ck)])

    def copier(self, copy: Callable[[], np.ndarray]) -> Callable[[], np.ndarray]:
        """`copy` (what brings the last solve's distances to the host) as a `SolveResult.rows`
        that refuses to run after the next solve began, whose distances it would return instead, or
        after the solver closed, which freed them."""
        self._solves += 1
        solve = self._solves

        def rows() -> np.ndarray:
            if self._closed:
                raise RuntimeError("a solve's distances were read after its solver closed (read them inside its with)")
            if solve != self._solves:
                raise RuntimeError("a solve's distances were read after the solver's next solve overwrote them")
            return copy()

        return rows


def raise_instance_errors(errors: np.ndarray, messages: Mapping[int, str]) -> None:
    """WrongResult naming the first instance whose error flag (`errors`, one per instance) is set,
    with its message (`messages` by flag value); nothing when none is.

    Raises:
        WrongResult: an instance reported an error.
    """
    if np.any(errors):
        k = int(np.flatnonzero(errors)[0])
        raise WrongResult(f"instance {k}: {messages.get(int(errors[k]), f'error {int(errors[k])}')}")
