"""CudaEventTimer: the `Timer` that measures on the GPU, verifying every solve against the CPU."""
from __future__ import annotations

import os
import statistics
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Mapping, Sequence

import numpy as np

from autotune.errors import LaunchRejected, WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.gpu.launcher import INF, Solver
from autotune.measure import Measurement, Status, sources_for_repetition
from autotune.reference import reference_distances
from autotune.space import LaunchConfig

DEFAULT_REPETITIONS = 5
PARALLEL_REFERENCE_EDGES = 100_000  # above this, reference solves are spread over processes

_graph_for_workers: CSRGraph | None = None


def _reference_chunk(sources: list[int]) -> np.ndarray:
    return reference_distances(_graph_for_workers, sources)


def expected_distances(graph: CSRGraph, sources: Sequence[int]) -> dict[int, np.ndarray]:
    """scipy Dijkstra's distances from each source, int32 with the GPU's INF for unreachable.

    Large graphs are solved in worker processes (forked, so the graph is not copied).
    """
    global _graph_for_workers
    sources = list(dict.fromkeys(sources))
    workers = min(len(sources), os.cpu_count() or 1)
    if graph.n_edges < PARALLEL_REFERENCE_EDGES or workers < 2:
        rows = reference_distances(graph, sources)
    else:
        import multiprocessing

        _graph_for_workers = graph
        chunks = [sources[i::workers] for i in range(workers)]
        try:
            with warnings.catch_warnings():
                # A process with a CUDA context has the driver's threads, and Python warns at fork();
                # the children run scipy alone and never touch CUDA, which is what makes fork safe.
                warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
                with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                    results = list(pool.map(_reference_chunk, chunks))
        finally:
            _graph_for_workers = None
        by_source = {s: row for chunk, result in zip(chunks, results) for s, row in zip(chunk, result)}
        rows = [by_source[s] for s in sources]
    return {s: np.where(row < 0, INF, row).astype(np.int32) for s, row in zip(sources, rows)}


class CudaEventTimer:
    """Measures launch configurations of one algorithm on one graph.

    Each measurement: one warm-up solve, `repetitions` timed solves and one profiled solve with
    CUDA events around every kernel for the per-kernel times; each solve takes the next CK sources
    of the pool, round robin, so no two solves of a measurement share a source when the pool holds
    `pool_size(repetitions, CK)` of them. Every solve's distances are compared with scipy's
    Dijkstra; any difference makes the measurement WRONG.

    Args:
        solver: a `launcher.Solver` for the graph (its GPU memory is the caller's to release).
        sources: the pool of source vertices.
        repetitions: timed solves per measurement.
        expected: `expected_distances(graph, sources)` if already computed.
    """

    def __init__(self, solver: Solver, sources: Sequence[int], repetitions: int = DEFAULT_REPETITIONS,
                 expected: Mapping[int, np.ndarray] | None = None) -> None:
        if not sources:
            raise ValueError("at least one source is needed")
        self.solver = solver
        self.graph: CSRGraph = solver.graph
        self.sources = tuple(sources)
        self.repetitions = repetitions
        self.expected = expected if expected is not None else expected_distances(self.graph, self.sources)

    def _wrong_instances(self, sources: Sequence[int], distances: np.ndarray) -> str | None:
        for k, source in enumerate(sources):
            expected = self.expected[source]
            differ = np.flatnonzero(distances[k] != expected)
            if len(differ):
                v = int(differ[0])
                return (f"source {source}: {len(differ)} distances differ from the CPU reference "
                        f"(vertex {v}: GPU {int(distances[k][v])}, CPU {int(expected[v])})")
        return None

    def measure(self, config: LaunchConfig) -> Measurement:
        ck = config.concurrent_kernels
        times, launch_shares, iterations = [], [], []
        try:
            for repetition in range(-1, self.repetitions + 1):  # -1: warm-up; last: profiled
                # every solve its own sources while the pool lasts (`pool_size` says how many that takes)
                sources = sources_for_repetition(self.sources, ck, repetition + 1)
                profiled = repetition == self.repetitions
                result = self.solver.solve(config, sources, profile=profiled)
                wrong = self._wrong_instances(sources, result.distances)
                if wrong:
                    return Measurement(config, Status.WRONG, edges=self.graph.n_edges, reason=wrong)
                if profiled:
                    kernel_ms = {name: ms / ck for name, ms in result.kernel_ms.items()}
                elif repetition >= 0:
                    times.append(result.elapsed_ms / ck)
                    launch_shares.append(result.launch_ms / result.wall_ms if result.wall_ms else 0.0)
                    iterations.extend(result.iterations.tolist())
        except LaunchRejected as rejected:
            return Measurement(config, Status.INVALID, edges=self.graph.n_edges, reason=rejected.reason)
        except WrongResult as wrong:
            return Measurement(config, Status.WRONG, edges=self.graph.n_edges, reason=str(wrong))
        return Measurement(
            config,
            Status.OK,
            times_ms=tuple(times),
            kernel_ms=kernel_ms,
            iterations=float(np.mean(iterations)),
            edges=self.graph.n_edges,
            launch_share=statistics.median(launch_shares),
        )
