"""The CPU's check of a shortest-path tree (`sssp --paths`): a predecessor per vertex is a tree of
shortest paths when every reachable vertex but the source has one, joined to it by a tight arc
(one whose weight is the two distances' difference), and every predecessor chain ends at the
source; the source and unreachable vertices have none.

Checked with numpy in O(m + n log n): tightness over the arcs at once, chains by pointer doubling.
"""
from __future__ import annotations

import numpy as np

from autotune.graphs.csr import CSRGraph

NO_PARENT = -1


def tree_error(graph: CSRGraph, distances: np.ndarray, parents: np.ndarray, source: int, infinite: int) -> str | None:
    """Why `parents` is not a shortest-path tree of `distances` (exact, `infinite` for unreachable)
    from `source`, or None when it is.

    Example:
        >>> g = CSRGraph("g", np.array([0, 1, 2, 2]), np.array([1, 2]), np.array([4, 0]))
        >>> tree_error(g, np.array([0, 4, 4]), np.array([-1, 0, 1]), 0, 99) is None
        True
        >>> tree_error(g, np.array([0, 4, 4]), np.array([-1, 0, 0]), 0, 99)
        'vertex 2: its predecessor 0 reaches it by no tight arc'
    """
    n = graph.n_vertices
    distances = np.asarray(distances, dtype=np.int64)
    parents = np.asarray(parents, dtype=np.int64)
    reached = distances != infinite
    has_parent = parents != NO_PARENT
    orphans = np.flatnonzero(reached & ~has_parent & (np.arange(n) != source))
    if len(orphans):
        return f"vertex {int(orphans[0])}: reachable, but without a predecessor ({len(orphans)} such vertices)"
    extra = np.flatnonzero(has_parent & (~reached | (np.arange(n) == source)))
    if len(extra):
        v = int(extra[0])
        return f"vertex {v}: {'the source' if v == source else 'unreachable'}, yet has the predecessor {int(parents[v])}"
    bad = np.flatnonzero(has_parent & ((parents < 0) | (parents >= n)))
    if len(bad):
        return f"vertex {int(bad[0])}: predecessor {int(parents[bad[0]])} is not a vertex"
    tails = graph.tails
    heads = graph.columns.astype(np.int64)
    tight = (parents[heads] == tails) & reached[tails] & \
        (distances[np.minimum(tails, n - 1)] + graph.weights == distances[heads])
    justified = np.zeros(n, dtype=bool)
    justified[heads[tight]] = True
    loose = np.flatnonzero(has_parent & ~justified)
    if len(loose):
        v = int(loose[0])
        return f"vertex {v}: its predecessor {int(parents[v])} reaches it by no tight arc"
    ancestor = np.where(has_parent, parents, np.arange(n))  # roots point at themselves
    for _ in range(max(1, int(n).bit_length())):
        ancestor = ancestor[ancestor]
    cut_off = np.flatnonzero(reached & (ancestor != source))
    if len(cut_off):
        return f"vertex {int(cut_off[0])}: its predecessors never reach the source (a cycle)"
    return None


__all__ = ["NO_PARENT", "tree_error"]
