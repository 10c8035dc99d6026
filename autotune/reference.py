"""CPU shortest paths: scipy's Dijkstra (the oracle for every GPU result) and numpy versions of the
GPU algorithms' logic (successors variant), which report per-iteration statistics.

The numpy solvers mirror the GPU loop (thesis Alg. 5-10). Iteration i relaxes the out-arcs of the
frontier F_i (atomic-min of dist[j] for unsettled successors j), computes the threshold Delta_i
over the unsettled set U_i, then moves the unsettled u with dist(u) == Delta_i (Martín) or
dist(u) <= Delta_i (Crauser) into F_{i+1}; the loop stops when Delta_i is infinite. Initially the
source has distance 0, is settled and is F_0.

- Martín: Delta_i = min{dist(u) : u in U_i}.
- Crauser: Delta_i = min{dist(u) + omega(u) : u in U_i}, where omega(u), the Out-Crauser value, is
  u's smallest out-arc weight, and infinite for vertices without out-arcs (they never lower the
  threshold). Such vertices may stay unsettled when the loop stops; their distances are final.

Distances are int64 with `UNREACHABLE` (-1) for vertices the source does not reach.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import dijkstra as _scipy_dijkstra

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph

UNREACHABLE = -1
ALGORITHMS = ("dijkstra", "crauser", "martin")

_INF = np.iinfo(np.int64).max // 4  # room for dist + omega without overflow
_EXACT_LIMIT = 2**53  # scipy computes in float64: sums above this may round

_scipy_graphs: weakref.WeakKeyDictionary[CSRGraph, scipy.sparse.csr_array] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Distances from one source, and how the algorithm got there.

    Args:
        algorithm: "dijkstra", "crauser" or "martin".
        source: the source vertex.
        distances: int64, one per vertex; `UNREACHABLE` (-1) where the source does not reach.
        iterations: outer-loop iterations. For Crauser and Martín: kernel rounds (relax, minimum,
            update) including the last, whose threshold is infinite. For Dijkstra: vertices
            settled one by one, i.e. reached vertices.
        frontier_sizes: int64, |F_i| relaxed in iteration i (F_0 = {source}); None for Dijkstra.
        settled_per_iteration: int64, vertices settled in iteration i (= |F_{i+1}|, 0 for the
            last); None for Dijkstra.
    """

    algorithm: str
    source: int
    distances: np.ndarray
    iterations: int
    frontier_sizes: np.ndarray | None = None
    settled_per_iteration: np.ndarray | None = None

    @property
    def reached(self) -> int:
        """Vertices with a finite distance, the source included."""
        return int(np.count_nonzero(self.distances != UNREACHABLE))


def _check_sources(graph: CSRGraph, sources: Sequence[int] | np.ndarray) -> np.ndarray:
    sources = np.asarray(sources, dtype=np.int64).reshape(-1)
    bad = sources[(sources < 0) | (sources >= graph.n_vertices)]
    if len(bad):
        raise InputError(f"source {int(bad[0])} is not a vertex of {graph.name} "
                         f"(0..{graph.n_vertices - 1})")
    return sources


def _scipy_graph(graph: CSRGraph) -> scipy.sparse.csr_array:
    """The graph as a scipy CSR array (cached per graph object). Zero weights stay explicit
    entries, which `scipy.sparse.csgraph` treats as zero-weight arcs (tests check this)."""
    matrix = _scipy_graphs.get(graph)
    if matrix is None:
        n = graph.n_vertices
        matrix = scipy.sparse.csr_array(
            (graph.weights.astype(np.float64), graph.columns, graph.row_offsets), shape=(n, n)
        )
        _scipy_graphs[graph] = matrix
    return matrix


def reference_distances(graph: CSRGraph, sources: Sequence[int] | np.ndarray) -> np.ndarray:
    """Shortest-path distances from each source, by scipy's Dijkstra: the oracle for GPU results.

    Args:
        graph: the graph.
        sources: source vertices.

    Returns:
        int64 array of shape (len(sources), n_vertices); `UNREACHABLE` (-1) where not reached.
        Exact while distances stay below 2**53 (scipy sums in float64).

    Raises:
        InputError: if a source is not a vertex.

    Example:
        >>> from autotune.graphs import build_csr
        >>> g = build_csr("g", 3, np.array([0, 1]), np.array([1, 2]), np.array([4, 0]))
        >>> reference_distances(g, [0, 2]).tolist()
        [[0, 4, 4], [-1, -1, 0]]
    """
    sources = _check_sources(graph, sources)
    if graph.n_vertices == 0 or len(sources) == 0:
        return np.zeros((len(sources), graph.n_vertices), dtype=np.int64)
    found = _scipy_dijkstra(_scipy_graph(graph), directed=True, indices=sources)
    found = np.atleast_2d(found)
    unreachable = np.isinf(found)
    found[unreachable] = UNREACHABLE
    return found.astype(np.int64)


def dijkstra(graph: CSRGraph, source: int) -> SolveResult:
    """Sequential Dijkstra from `source` (scipy), as a `SolveResult`."""
    distances = reference_distances(graph, [source])[0]
    reached = int(np.count_nonzero(distances != UNREACHABLE))
    return SolveResult("dijkstra", int(source), distances, reached)


def out_crauser_values(graph: CSRGraph, infinity: int = _INF) -> np.ndarray:
    """omega(u) of the thesis (3.2): the smallest out-arc weight of each vertex, as int64;
    `infinity` for vertices without out-arcs."""
    omega = np.full(graph.n_vertices, infinity, dtype=np.int64)
    has_arcs = graph.out_degrees > 0
    if graph.n_edges:
        starts = graph.row_offsets[:-1][has_arcs]
        omega[has_arcs] = np.minimum.reduceat(graph.weights, starts)
    return omega


def _relax(graph: CSRGraph, frontier: np.ndarray, dist: np.ndarray,
           unsettled: np.ndarray) -> np.ndarray:
    """Relax the out-arcs of `frontier` into unsettled successors; return newly reached ids."""
    starts = graph.row_offsets[frontier].astype(np.int64)
    degrees = graph.row_offsets[frontier + 1] - starts
    total = int(degrees.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    first = np.cumsum(degrees) - degrees
    arcs = np.arange(total, dtype=np.int64) + np.repeat(starts - first, degrees)
    targets = graph.columns[arcs].astype(np.int64)
    candidates = np.repeat(dist[frontier], degrees) + graph.weights[arcs]
    keep = unsettled[targets]
    targets, candidates = targets[keep], candidates[keep]
    newly = targets[dist[targets] == _INF]
    np.minimum.at(dist, targets, candidates)
    return np.unique(newly)


def _frontier_solve(graph: CSRGraph, source: int, algorithm: str) -> SolveResult:
    (source,) = _check_sources(graph, [source]).tolist()
    n = graph.n_vertices
    crauser = algorithm == "crauser"
    omega = out_crauser_values(graph) if crauser else None
    dist = np.full(n, _INF, dtype=np.int64)
    dist[source] = 0
    unsettled = np.ones(n, dtype=bool)
    unsettled[source] = False
    frontier = np.array([source], dtype=np.int64)
    active = np.empty(0, dtype=np.int64)  # unsettled vertices with a finite distance
    frontier_sizes: list[int] = []
    settled: list[int] = []
    while True:
        frontier_sizes.append(len(frontier))
        active = np.concatenate((active, _relax(graph, frontier, dist, unsettled)))
        key = dist[active] + omega[active] if crauser else dist[active]
        threshold = int(key.min()) if len(key) else _INF
        if threshold >= _INF:
            settled.append(0)
            break
        settle = dist[active] <= threshold if crauser else dist[active] == threshold
        frontier = active[settle]
        active = active[~settle]
        unsettled[frontier] = False
        settled.append(len(frontier))
    dist[dist >= _INF] = UNREACHABLE
    return SolveResult(algorithm, source, dist, len(frontier_sizes),
                       np.array(frontier_sizes, dtype=np.int64), np.array(settled, dtype=np.int64))


def crauser(graph: CSRGraph, source: int) -> SolveResult:
    """Crauser's algorithm as the GPU runs it (thesis 3.2): settle every unsettled u with
    dist(u) <= min over unsettled v of dist(v) + omega(v).

    Example:
        >>> from autotune.graphs import build_csr
        >>> g = build_csr("g", 4, np.array([0, 0, 0, 1]), np.array([1, 2, 3, 3]),
        ...               np.array([1, 2, 3, 3]))
        >>> r = crauser(g, 0)
        >>> r.distances.tolist(), r.iterations, r.frontier_sizes.tolist()
        ([0, 1, 2, 3], 2, [1, 3])
    """
    return _frontier_solve(graph, source, "crauser")


def martin(graph: CSRGraph, source: int) -> SolveResult:
    """Martín et al.'s GPU algorithm (thesis 3.1.1): settle every unsettled u at the minimum
    tentative distance.

    Example:
        >>> from autotune.graphs import build_csr
        >>> g = build_csr("g", 4, np.array([0, 0, 0, 1]), np.array([1, 2, 3, 3]),
        ...               np.array([1, 2, 3, 3]))
        >>> r = martin(g, 0)
        >>> r.distances.tolist(), r.iterations, r.settled_per_iteration.tolist()
        ([0, 1, 2, 3], 4, [1, 1, 1, 0])
    """
    return _frontier_solve(graph, source, "martin")


SOLVERS: dict[str, Callable[[CSRGraph, int], SolveResult]] = {
    "dijkstra": dijkstra,
    "crauser": crauser,
    "martin": martin,
}


def solve(graph: CSRGraph, source: int, algorithm: str = "dijkstra") -> SolveResult:
    """Solve SSSP from `source` with one of `ALGORITHMS` on the CPU.

    Raises:
        InputError: for an unknown algorithm or a source that is not a vertex.
    """
    try:
        solver = SOLVERS[algorithm]
    except KeyError:
        raise InputError(f"unknown algorithm '{algorithm}'; expected one of "
                         f"{', '.join(ALGORITHMS)}") from None
    return solver(graph, source)
