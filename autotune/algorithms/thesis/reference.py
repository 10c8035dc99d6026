"""numpy versions of the GPU Crauser and Martín loops (successors variant), which report
per-iteration statistics.

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

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.reference.result import UNREACHABLE, SolveResult, check_sources, edges_of

_INF = np.iinfo(np.int64).max // 4  # room for dist + omega without overflow


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
    arcs, degrees = edges_of(graph, frontier)
    if len(arcs) == 0:
        return np.empty(0, dtype=np.int64)
    targets = graph.columns[arcs].astype(np.int64)
    candidates = np.repeat(dist[frontier], degrees) + graph.weights[arcs]
    keep = unsettled[targets]
    targets, candidates = targets[keep], candidates[keep]
    newly = targets[dist[targets] == _INF]
    np.minimum.at(dist, targets, candidates)
    return np.unique(newly)


def _frontier_solve(graph: CSRGraph, source: int, algorithm: str) -> SolveResult:
    (source,) = check_sources(graph, [source]).tolist()
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
