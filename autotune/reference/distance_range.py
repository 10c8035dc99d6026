"""Whether a graph's distances fit the GPU kernels' 32-bit integers, and the width they run with.

The kernels keep distances as int32, with 2**31 - 1 (`INF`) for unreachable, and relax an arc as
`dist[u] + w` in 32 bits. A distance of `INF` or more, or a relaxation from a reached vertex past
it, would wrap and every configuration would be recorded wrong with nothing said why. So a graph
is given its `DistanceWidth` before its first solve (`width_for`): where no shortest path can pass
32 bits (`may_pass`: (n - 1) x the largest weight, and where that passes, the tighter
`longest_path_bound`, a Dijkstra each way per strongly connected component), 32; else 64, with which
the algorithms that have such builds (`Algorithm.wide_distances`) run, their kernels built with
`-DWIDE_DISTANCES=1`, and the references are kept as int64. A 32-bit row is still checked as it is
kept (`check_reference`): a guard against a bound that proved too low, never expected to refuse.

Example:
    >>> import numpy as np
    >>> from autotune.graphs import build_csr
    >>> chain = build_csr("chain", 3, np.array([0, 1]), np.array([1, 2]), np.array([2**31 - 1, 2**31 - 1]))
    >>> check_reference(chain, 0, np.array([0, 2**31 - 1, 2**32 - 2]))
    Traceback (most recent call last):
    autotune.errors.InputError: chain: the shortest distance from source 0 to vertex 1 is 2147483647, and the GPU kernels hold distances in 32 bits (at most 2147483646, with room for one more arc of the largest weight, 2147483647); scale the weights down
"""
from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass

import numpy as np

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
GPU_DISTANCE_MAX = INT32_MAX - 1  # INT32_MAX itself is INF, unreachable


@dataclass(frozen=True)
class DistanceWidth:
    """How wide the GPU's distances are on a graph: 32 or 64 bits, each with its `inf` (the type's
    largest value: unreachable), its numpy `dtype` and its kernels' build option.

    Example:
        >>> WIDE.inf == 2**63 - 1, WIDE.dtype, NARROW.options
        (True, dtype('int64'), ())
    """

    bits: int

    @property
    def wide(self) -> bool:
        return self.bits == 64

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.int64 if self.wide else np.int32)

    @property
    def itemsize(self) -> int:
        return self.bits // 8

    @property
    def inf(self) -> int:
        return INT64_MAX if self.wide else INT32_MAX

    @property
    def options(self) -> tuple[str, ...]:
        """nvcc's options that build a kernel source for this width (its `dist_t` and `INF`)."""
        return ("-DWIDE_DISTANCES=1",) if self.wide else ()


NARROW = DistanceWidth(32)
WIDE = DistanceWidth(64)
_widths: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a graph's width, found once


def width_for(graph: CSRGraph) -> DistanceWidth:
    """`WIDE` where a shortest path of `graph` may pass what 32 bits hold (`may_pass`), else
    `NARROW`; found once per graph object (a graph past (n - 1) x its largest weight costs two
    Dijkstras per strongly connected component the first time)."""
    width = _widths.get(graph)
    if width is None:
        width = _widths[graph] = NARROW if may_pass(graph) is None else WIDE
    return width


def widened(graph: CSRGraph) -> CSRGraph:
    """A copy of `graph` (the same arrays) that runs with 64-bit distances whatever its weights: the
    cost of the 64-bit builds measured on a graph that does not need them (`benchmarks/width.py`).

    Example:
        >>> import numpy as np
        >>> from autotune.graphs import build_csr
        >>> light = build_csr("light", 2, np.array([0]), np.array([1]), np.array([5]))
        >>> width_for(light).bits, width_for(widened(light)).bits
        (32, 64)
    """
    copy = dataclasses.replace(graph)
    _widths[copy] = WIDE
    return copy


def max_weight(graph: CSRGraph) -> int:
    return int(graph.weights.max()) if graph.n_edges else 0


def check_reference(graph: CSRGraph, source: int, distances: np.ndarray) -> None:
    """Refuse a graph on which the distances from `source` (int64, -1 unreachable) do not fit the
    kernels: a distance past `GPU_DISTANCE_MAX`, or one from which an arc of the graph's largest
    weight would pass `INT32_MAX`.

    Raises:
        InputError: naming the graph, the source, the vertex and the distance.
    """
    reached = distances >= 0
    if not reached.any():
        return
    weight = max_weight(graph)
    limit = min(GPU_DISTANCE_MAX, INT32_MAX - weight)
    over = np.flatnonzero(reached & (distances > limit))
    if len(over):
        vertex = int(over[0])
        raise InputError(
            f"{graph.name}: the shortest distance from source {source} to vertex {vertex} is {int(distances[vertex])}, "
            f"and the GPU kernels hold distances in 32 bits (at most {GPU_DISTANCE_MAX}, with room for one more arc "
            f"of the largest weight, {weight}); scale the weights down")


def surely_fits(graph: CSRGraph) -> bool:
    """Whether (n - 1) x the largest weight, and one more arc, fit what the kernels hold: then no
    source's distances can pass it (the cheap half of `may_pass`)."""
    weight = max_weight(graph)
    return max(graph.n_vertices - 1, 0) * weight + weight <= INT32_MAX


def may_pass(graph: CSRGraph) -> int | None:
    """A bound on the graph's shortest distances where it passes what the kernels hold (then a
    source whose distances were not computed on the CPU could overflow); None where every source is
    safe. The bound is (n - 1) x the largest weight where that fits, else `longest_path_bound`'s."""
    if surely_fits(graph):
        return None
    weight = max_weight(graph)
    bound = min(max(graph.n_vertices - 1, 0) * weight, longest_path_bound(graph))
    return bound if bound + weight > INT32_MAX else None


def longest_path_bound(graph: CSRGraph) -> int:
    """An upper bound on every shortest distance of the graph, from one Dijkstra each way per
    strongly connected component: a component's two vertices are joined through its root, so within
    it a distance is at most the farthest its root reaches plus the farthest that reaches its root
    (on the component's own arcs); a shortest path crosses components in their topological order, so
    it is at most the heaviest chain of components and the arcs between them. Every weight counts
    one more (no zero-weight arc is lost to the sparse matrices), so the bound is loose by n at most.
    A road network (one component, every street both ways) gets twice its root's eccentricity, where
    (n - 1) x the largest weight is thousands of times more.

    Example:
        >>> from autotune.graphs import build_csr
        >>> ids, weights = np.arange(99), np.where(np.arange(99) == 50, 1000, 1)  # a street of 100, one long block
        >>> street = build_csr("street", 100, np.r_[ids, ids + 1], np.r_[ids + 1, ids], np.r_[weights, weights])
        >>> longest_path_bound(street), 99 * 1000  # 2 x (98 x 2 + 1001): each arc counts one more
        (2394, 99000)
    """
    import scipy.sparse
    from scipy.sparse.csgraph import connected_components, dijkstra

    n = graph.n_vertices
    if n == 0 or graph.n_edges == 0:
        return 0
    tails, heads = graph.tails, graph.columns
    weights = graph.weights.astype(np.float64) + 1.0
    every = scipy.sparse.csr_array((weights, heads, graph.row_offsets), shape=(n, n))
    count, label = connected_components(every, directed=True, connection="strong")
    inside = label[tails] == label[heads]
    own = scipy.sparse.csr_array((weights[inside], (tails[inside], heads[inside])), shape=(n, n))
    roots = np.unique(label, return_index=True)[1]
    through = np.zeros(count)
    for matrix in (own, own.T.tocsr()):  # from each root, and to it
        reached = dijkstra(matrix, directed=True, indices=roots, min_only=True)
        if not np.isfinite(reached).all():  # cannot be (a component is strongly connected): never a bound too low
            return (n - 1) * (max_weight(graph) + 1)
        farthest = np.zeros(count)
        np.maximum.at(farthest, label, reached)
        through += farthest
    return int(np.ceil(heaviest_chain(through, label[tails[~inside]], label[heads[~inside]], weights[~inside])))


def heaviest_chain(node: np.ndarray, tails: np.ndarray, heads: np.ndarray, weights: np.ndarray) -> float:
    """The heaviest path of a DAG (`node`: each vertex's weight; arcs `tails` -> `heads` of `weights`),
    its vertices' and arcs' weights summed: in topological order, a round per depth (Kahn's)."""
    best = node.astype(np.float64).copy()
    if len(tails) == 0:
        return float(best.max(initial=0.0))
    order = np.argsort(tails, kind="stable")
    tails, heads, weights = tails[order], heads[order], weights[order]
    starts = np.searchsorted(tails, np.arange(len(node) + 1))
    waiting = np.bincount(heads, minlength=len(node))
    frontier = np.flatnonzero(waiting == 0)
    while len(frontier):
        arcs = np.concatenate([np.arange(starts[v], starts[v + 1]) for v in frontier]) if len(frontier) < 64 else \
            np.flatnonzero(np.isin(tails, frontier))
        if len(arcs) == 0:
            break
        np.maximum.at(best, heads[arcs], best[tails[arcs]] + weights[arcs] + node[heads[arcs]])
        np.subtract.at(waiting, heads[arcs], 1)
        touched = np.unique(heads[arcs])
        frontier = touched[waiting[touched] == 0]
    return float(best.max())
