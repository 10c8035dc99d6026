"""numpy Delta-stepping in the near-far form of `kernels/delta.cu`, with its statistics.

Iteration i relaxes the out-arcs of the near queue with the distances of the iteration's start
(the GPU reads them as they change; the vertices, buckets and exact distances are the same, the
work a little different). A relaxation that lowers dist[u] to nd puts u into the next near queue
when nd < T, into the far pile otherwise. When the next near queue is empty, the far pile is split:
T moves to the bucket above the pile's smallest distance, the pile's vertices below it form the
near queue, those below the old T are dropped (a near queue took them), the rest stay. Delta =
`INFINITE` never splits (a frontier Bellman-Ford: the poster's relaxed settlement). The result is
exact for any Delta, zero weights included.

Statistics (`SolveResult.stats`): `buckets` (far-pile splits that advanced T), `relaxations` (arcs
scanned) and `relaxations_per_edge` (scanned over the out-arcs of the reached vertices: 1 would be
Dijkstra's work).

Example:
    >>> from autotune.graphs import build_csr
    >>> g = build_csr("g", 4, np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3]), np.array([1, 5, 1, 0]))
    >>> r = delta_stepping(g, 0, 2)
    >>> r.distances.tolist(), r.iterations, r.stats["buckets"]
    ([0, 1, 5, 2], 4, 2)
"""
from __future__ import annotations

import numpy as np

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph
from autotune.reference.result import UNREACHABLE, SolveResult, check_sources, edges_of

INFINITE = "inf"
_INF = np.iinfo(np.int64).max // 4


def delta_stepping(graph: CSRGraph, source: int, delta: int | str = INFINITE) -> SolveResult:
    """Shortest paths from `source` by near-far Delta-stepping (see the module docstring).

    Args:
        graph: the graph.
        source: the source vertex.
        delta: the bucket width, a positive integer, or "inf".

    Raises:
        InputError: a bad Delta or a source that is not a vertex.
    """
    if delta != INFINITE and (isinstance(delta, bool) or not isinstance(delta, int) or delta < 1):
        raise InputError(f"--delta: expected a positive integer or 'inf', found {delta!r}")
    (source,) = check_sources(graph, [source]).tolist()
    n = graph.n_vertices
    dist = np.full(n, _INF, dtype=np.int64)
    dist[source] = 0
    width = None if delta == INFINITE else int(delta)
    threshold = _INF if width is None else width
    near = np.array([source], dtype=np.int64)
    far = np.empty(0, dtype=np.int64)
    frontier_sizes: list[int] = []
    buckets = scanned = 0
    while True:
        if len(near):
            frontier_sizes.append(len(near))
            arcs, degrees = edges_of(graph, near)
            scanned += len(arcs)
            targets = graph.columns[arcs].astype(np.int64)
            candidates = np.repeat(dist[near], degrees) + graph.weights[arcs]
            better = candidates < dist[targets]
            targets, candidates = targets[better], candidates[better]
            np.minimum.at(dist, targets, candidates)
            improved = np.unique(targets)
            below = dist[improved] < threshold
            near = improved[below]
            far = np.concatenate((far, improved[~below]))
            continue
        far = np.unique(far)
        far = far[dist[far] >= threshold]  # the others went through a near queue
        if not len(far):
            break
        buckets += 1
        threshold = (int(dist[far].min()) // width + 1) * width
        below = dist[far] < threshold
        near, far = far[below], far[~below]
    reached = dist < _INF
    dist[~reached] = UNREACHABLE
    reached_arcs = int(graph.out_degrees[reached].sum())
    stats = {"buckets": buckets, "relaxations": scanned,
             "relaxations_per_edge": scanned / reached_arcs if reached_arcs else 0.0}
    return SolveResult("delta", source, dist, len(frontier_sizes), np.array(frontier_sizes, dtype=np.int64),
                       None, stats)
