"""Reference distances computed once per (graph, source) and kept on disk, content-addressed: a
resumed sweep, every worker of a run and later sweeps of the same graph read them instead of
running scipy's Dijkstra again. Missing ones are computed on every CPU core.

Layout: `<directory>/<graph sha256>/<source>.npy` (int32, `INF` = 2**31 - 1 for unreachable, as the
GPU writes them; int64 and 2**63 - 1 on a graph whose distances need 64 bits, `distance_range.width_for`),
each written atomically, so concurrent writers of one entry are harmless.

On a large graph a sweep need not wait for the cores to go round twice: the CPU computes a few
sources of the sample (`cpu_share`, `CPU_CHECKED`: rmat22's 8 took 8.4 s on the H200 host's 16 cores,
its kernels building beside them: docs/notes/scale.md) and the GPU solves the rest, its rows kept only where it
also solved the CPU's sources and agreed with scipy's on every one (`ReferenceCache.ensure` with
`gpu_rows`).

Example:
    >>> import tempfile
    >>> from autotune.graphs import build_csr
    >>> g = build_csr("g", 3, np.array([0, 1]), np.array([1, 2]), np.array([4, 0]))
    >>> cache = ReferenceCache(tempfile.mkdtemp())
    >>> cache.distances(g, [0])[0].tolist()
    [0, 4, 4]
"""
from __future__ import annotations

import contextlib
import gc
import io
import mmap
import multiprocessing
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from autotune.files import atomic_write
from autotune.graphs.csr import CSRGraph
from autotune.reference.distance_range import NARROW, check_reference, surely_fits, width_for
from autotune.reference.oracle import load_for, reference_distances
from autotune.resources import usable_cores

INF = NARROW.inf  # unreachable in a 32-bit row (a 64-bit one's: `distance_range.WIDE.inf`)
PARALLEL_EDGES = 100_000  # above this, missing distances are computed in worker processes
NOTED_EDGES = 10_000_000  # from this, computing them is said on stderr, with its time
GPU_SHARE_EDGES = 50_000_000  # from this, the sample's references past `CPU_CHECKED` are solved on the GPU
CPU_CHECKED = 8  # the sources whose references the CPU computes there, to check the GPU's on

_graph_for_workers: CSRGraph | None = None


def worker_graph() -> CSRGraph:
    """The graph of the `forked_workers` pool this process was forked for."""
    assert _graph_for_workers is not None, "not a worker of forked_workers"
    return _graph_for_workers


@contextlib.contextmanager
def forked_workers(graph: CSRGraph, workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` processes forked with `graph` in reach (`worker_graph`): the graph is not
    copied, and they never touch CUDA, which is what makes fork safe. scipy's Dijkstra and the
    graph's scipy array are loaded before the fork (`oracle.load_for`): the workers import nothing,
    which another thread of this process could have left locked at the fork."""
    global _graph_for_workers
    load_for(graph)
    _graph_for_workers = graph
    # Garbage the parent leaves (a PyCUDA stream or event in a reference cycle) would be collected
    # in a child, whose CUDA calls then kill it (a BrokenProcessPool after the GPU tests of
    # `sssp --paths`): collect it here, and freeze what is left out of the children's collections.
    gc.collect()
    gc.freeze()
    try:
        with warnings.catch_warnings():
            # A process with a CUDA context has the driver's threads, and Python warns at fork().
            warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                yield pool
    finally:
        gc.unfreeze()
        _graph_for_workers = None


_rows_for_workers: np.ndarray | None = None  # the rows `compute`'s workers write into (shared with them)


def _solve_into(task: tuple[int, int]) -> None:
    index, source = task
    row = reference_distances(worker_graph(), [source])[0]
    assert _rows_for_workers is not None, "not a worker of compute"
    _rows_for_workers[index] = as_kept_row(worker_graph(), source, row)


def as_kept_row(graph: CSRGraph, source: int, row: np.ndarray) -> np.ndarray:
    """A reference row as kept: in the graph's width (`width_for`), its `inf` unreachable; a 32-bit
    row checked to fit before the cast."""
    width = width_for(graph)
    if not width.wide:
        check_reference(graph, source, row)  # before the int32 cast below could wrap a distance
    return np.where(row < 0, width.inf, row).astype(width.dtype)


class Computation:
    """Reference rows being computed, begun when made: `result()` waits for them. Past
    `PARALLEL_EDGES` arcs, by forked workers, one source each, every worker checking its row and
    writing it into memory shared with this process (no row is sent back through a pipe: rmat23's
    32 rows would be 2 GB of int64); the workers are forked when it starts, so a sweep starts them
    before it opens the GPU or builds its kernels in threads (`cli.sweep_request`). From
    `NOTED_EDGES` arcs, what it computes and how long it took are said on stderr (a large graph's
    sweep waits for its references before its first measurement; two scipy Dijkstras of rmat22 a
    core take seconds)."""

    def __init__(self, graph: CSRGraph, sources: Sequence[int]) -> None:
        global _rows_for_workers
        self.graph = graph
        self.sources = list(dict.fromkeys(int(s) for s in sources))
        self.started = time.perf_counter()
        self.finished: float | None = None
        self._rows: dict[int, np.ndarray] | None = None
        self._running: tuple[contextlib.ExitStack, ProcessPoolExecutor, list[Any], np.ndarray] | None = None
        workers = min(len(self.sources), usable_cores())  # the cores this process may run on (taskset)
        if graph.n_edges >= NOTED_EDGES:
            from autotune.files import note

            note(f"{graph.name}: the CPU references (scipy's Dijkstra) of {len(self.sources)} sources on {workers} "
                 f"core{'s' if workers > 1 else ''} ...")
        if graph.n_edges < PARALLEL_EDGES or workers < 2:
            return  # computed in `result`, in this process
        width = width_for(graph)  # found here, before the fork: the workers inherit it
        shared = mmap.mmap(-1, len(self.sources) * graph.n_vertices * width.itemsize)  # shared with the children
        rows = np.frombuffer(shared, dtype=width.dtype).reshape(len(self.sources), graph.n_vertices)
        _rows_for_workers = rows  # the workers, forked at the first submit, keep it
        stack = contextlib.ExitStack()
        pool = stack.enter_context(forked_workers(graph, workers))
        try:
            futures = [pool.submit(_solve_into, (i, s)) for i, s in enumerate(self.sources)]
        except BaseException:
            stack.close()
            raise
        for future in futures:  # when the last row came (`result` may wait for it later)
            future.add_done_callback(self._row_done)
        self._running = (stack, pool, futures, rows)

    def abandon(self) -> None:
        """Stop the workers now and keep nothing (the sweep that started it failed or was
        interrupted before it waited for the rows: exiting would otherwise wait for them)."""
        if self._running is None:
            return
        stack, pool, _, _ = self._running
        self._running = None
        # the workers terminated: the pool, broken, fails what is left (a future cancelled here would
        # make Python 3.11's pool raise in its own thread when it fails it)
        for process in list((getattr(pool, "_processes", None) or {}).values()):  # the standard pool's own
            process.terminate()
        stack.close()

    def _row_done(self, _: Any) -> None:
        self.finished = max(self.finished or 0.0, time.perf_counter())

    def result(self) -> dict[int, np.ndarray]:
        """Each source's row (waited for once).

        Raises:
            InputError: a distance does not fit the kernels' 32 bits (`distance_range.check_reference`).
        """
        global _rows_for_workers
        if self._rows is None:
            if self._running is None:
                rows = reference_distances(self.graph, self.sources) if self.sources else []
                self._rows = {s: as_kept_row(self.graph, s, row) for s, row in zip(self.sources, rows)}
            else:
                stack, _, futures, shared = self._running
                with stack:  # the pool shut down, its workers gone, whatever happens
                    for future in futures:
                        future.result()
                self._running = None
                self._rows = {s: shared[i] for i, s in enumerate(self.sources)}
                if _rows_for_workers is shared:
                    _rows_for_workers = None
            if self.graph.n_edges >= NOTED_EDGES:
                from autotune.files import note

                finished = self.finished or time.perf_counter()
                note(f"{self.graph.name}: the CPU references of {len(self.sources)} sources: "
                     f"{finished - self.started:.1f} s")
        return self._rows


def compute(graph: CSRGraph, sources: Sequence[int]) -> dict[int, np.ndarray]:
    """scipy Dijkstra's distances from each source as kept rows (`as_kept_row`), on every core for
    a large graph (`Computation`).

    Raises:
        InputError: a distance does not fit the kernels' 32 bits (`distance_range.check_reference`).
    """
    return Computation(graph, sources).result()


def gpu_may_share(graph: CSRGraph) -> bool:
    """Whether a GPU solve may give some of the graph's reference rows (see the module's doc): at
    least `GPU_SHARE_EDGES` arcs, and distances that surely fit the kernels' 32 bits (a wrapped GPU
    row could pass for a right one where only a source the CPU did not solve passes them)."""
    return graph.n_edges >= GPU_SHARE_EDGES and surely_fits(graph)


def cpu_share(graph: CSRGraph, sources: Sequence[int], checked: int | None = None) -> list[int]:
    """The sources whose rows the CPU computes where a GPU solve may take the rest: the first
    `checked` (`CPU_CHECKED`) where `gpu_may_share`, else every source."""
    sources = list(dict.fromkeys(int(s) for s in sources))
    return sources[:CPU_CHECKED if checked is None else checked] if gpu_may_share(graph) else sources


class ReferenceCache:
    """Reference distances on disk (see the module docstring); `directory` None keeps nothing."""

    def __init__(self, directory: str | os.PathLike[str] | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.computed = 0  # sources solved by this object (the rest were read)
        self._started: dict[str, Computation] = {}  # by graph sha256: computations `start` began
        self._held: tuple[str, dict[int, np.ndarray]] = ("", {})  # one graph's rows kept or read (`_hold`)

    def start(self, graph: CSRGraph, sources: Sequence[int], gpu_share: bool = False) -> None:
        """Begin computing the distances of the sources not kept yet (their workers forked now),
        for a later `ensure` or `distances` of the graph to wait for; with `gpu_share`, only the
        CPU's share of them (`cpu_share`), for an `ensure` with `gpu_rows` to finish. Without a
        directory, nothing."""
        missing = self._missing(graph, sources)
        if gpu_share:
            missing = cpu_share(graph, missing)
        if self.directory is not None and missing and graph.sha256 not in self._started:
            self._started[graph.sha256] = Computation(graph, missing)

    def abandon(self) -> None:
        """Stop what `start` began and was not waited for (`Computation.abandon`)."""
        while self._started:
            self._started.popitem()[1].abandon()

    def _missing(self, graph: CSRGraph, sources: Sequence[int]) -> list[int]:
        if self.directory is None:
            return []
        return [s for s in dict.fromkeys(int(s) for s in sources) if not self._path(graph, s).is_file()]

    def _path(self, graph: CSRGraph, source: int) -> Path:
        assert self.directory is not None
        return self.directory / graph.sha256 / f"{source}.npy"

    def _hold(self, graph: CSRGraph, rows: Mapping[int, np.ndarray]) -> None:
        """Hold rows of the graph in memory, read-only, those of the last graph only: a sweep opens a
        timer per algorithm, each reading the sample's rows (rmat22's 32 took 0.4 s from the page cache
        on the H200's host), the first just after they were kept."""
        if self._held[0] != graph.sha256:
            self._held = (graph.sha256, {})
        for source, row in rows.items():
            row.setflags(write=False)
            self._held[1][source] = row

    def _read(self, graph: CSRGraph, source: int) -> np.ndarray | None:
        if self.directory is None:
            return None
        if self._held[0] == graph.sha256 and source in self._held[1]:
            return self._held[1][source]
        try:
            row = np.load(self._path(graph, source), allow_pickle=False)
        except (OSError, ValueError):
            return None
        if row.shape != (graph.n_vertices,) or row.dtype != width_for(graph).dtype:
            return None
        self._hold(graph, {source: row})
        return row

    def ensure(self, graph: CSRGraph, sources: Sequence[int],
               gpu_rows: Callable[[list[int]], np.ndarray] | None = None) -> int:
        """Compute and keep the distances of the sources not kept yet, without reading the kept
        ones (what a process that only prepares them needs); returns how many were computed.
        `gpu_rows` (sources -> their rows, solved on the GPU) may take those the CPU's share
        left (`start`, `_solved_on_gpu`). Without a directory nothing is kept, and nothing computed."""
        if self.directory is None:
            return 0
        computed = self._finish_started(graph)
        missing = self._missing(graph, sources)
        if missing and gpu_rows is not None:
            computed += self._solved_on_gpu(graph, sources, missing, gpu_rows)
            missing = self._missing(graph, missing)
        return computed + (len(self.distances(graph, missing)) if missing else 0)

    def _solved_on_gpu(self, graph: CSRGraph, sources: Sequence[int], missing: Sequence[int],
                       gpu_rows: Callable[[list[int]], np.ndarray]) -> int:
        """Keep `gpu_rows`' rows of the missing sources where it solved the kept ones too and every
        one equals scipy's (where one differs or the solve fails, nothing of it is kept and it is said);
        how many were kept. Only where `gpu_may_share`, and with a kept row to check."""
        from autotune.files import note

        checks = [s for s in dict.fromkeys(int(s) for s in sources) if s not in set(missing)]
        if not checks or not gpu_may_share(graph):
            return 0
        started = time.perf_counter()
        try:
            rows = gpu_rows([*checks, *missing])
        except Exception as failed:  # noqa: BLE001 - a speed-up that failed: the CPU computes them, as without it
            note(f"{graph.name}: the GPU's reference solve failed ({failed}): the CPU computes the {len(missing)} "
                 "sources left")
            return 0
        for row, source in zip(rows, checks):
            if not np.array_equal(row, self._read(graph, source)):
                note(f"{graph.name}: the GPU's reference solve differs from the kept (scipy's) row of source {source}: "
                     f"the CPU computes the {len(missing)} sources left")
                return 0
        self._keep(graph, {s: np.asarray(row, dtype=width_for(graph).dtype) for s, row in zip(missing, rows[len(checks):])})
        note(f"{graph.name}: the references of {len(missing)} more sources solved on the GPU in "
             f"{time.perf_counter() - started:.1f} s, its rows of the {len(checks)} kept ones equal to theirs")
        return len(missing)

    def _finish_started(self, graph: CSRGraph) -> int:
        """Wait for what `start` began for the graph, and keep it; how many rows it computed."""
        started = self._started.pop(graph.sha256, None)
        if started is None:
            return 0
        computed = started.result()
        self._keep(graph, computed)
        return len(computed)

    def _keep(self, graph: CSRGraph, computed: Mapping[int, np.ndarray]) -> None:
        self.computed += len(computed)
        if self.directory is not None:
            for source, row in computed.items():
                buffer = io.BytesIO()
                np.save(buffer, row, allow_pickle=False)
                atomic_write(self._path(graph, source), buffer.getvalue(), "reference distances")
            self._hold(graph, computed)

    def distances(self, graph: CSRGraph, sources: Sequence[int]) -> dict[int, np.ndarray]:
        """Each source's distances: read where kept, computed (and kept) where not."""
        self._finish_started(graph)
        found: dict[int, np.ndarray] = {}
        missing = []
        for source in dict.fromkeys(int(s) for s in sources):
            row = self._read(graph, source)
            if row is None:
                missing.append(source)
            else:
                found[source] = row
        if missing:
            computed = compute(graph, missing)
            self._keep(graph, computed)
            found.update(computed)
        return found
