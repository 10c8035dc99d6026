"""A graph's vertices renumbered by descending in-degree, for the kernels that relax arcs into
scattered distances: where a few vertices receive a large share of the arcs (R-MAT's hubs) and the
ids carry no locality (Graph500's generators permute them), most relaxations read and lower the
distances of a few thousand hubs, which renumbered first share a few cache lines instead of one
each. Δ-stepping's one query on the H200 (docs/notes/delta-kernels.md, run AL): suite `kernels`
at 1973b96 rmat20 0.652 ms against 0.741 at be07c40; a probe of both ways in one run 0.725 -> 0.648.

`hub_order` decides from the graph alone (`HUB_SHARE` of the arcs into the top `TOP_SHARE` of the
vertices, arcs that join ids `SCATTERED` x n apart at the median, `MIN_VERTICES` vertices at least),
kept per graph object while it lives; `renumbered` is the graph in the new ids (the GPU builds its
own from the graph it holds: `autotune.gpu.renumber`).

Example:
    >>> from autotune.graphs import load_graph
    >>> rmat, grid = (load_graph(spec, use_cache=False) for spec in ("rmat16", "grid16"))
    >>> hub_order(rmat) is not None, hub_order(grid) is None
    (True, True)
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from autotune.graphs.csr import CSRGraph

TOP_SHARE = 0.01  # the vertices of highest in-degree, this share of them ...
HUB_SHARE = 0.2  # ... receive at least this share of the arcs (rmat16 to rmat20: 0.37 to 0.49; urand, random: 0.02)
SCATTERED = 0.125  # the median |tail - head| of the arcs, at least this share of n (random ids: about 0.29)
MIN_VERTICES = 1 << 16  # fewer: the distances fit the GPU's caches as they are
SAMPLED_ARCS = 1 << 16  # arcs the ids' spread is measured on, spread over the graph


@dataclass(frozen=True, eq=False)
class VertexOrder:
    """A renumbering: vertex v of the graph is `new_of[v]` in the renumbered one, whose vertex r is
    `old_of[r]` here (int32 permutations of the n vertices)."""

    new_of: np.ndarray
    old_of: np.ndarray


_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> its order or None


def hub_order(graph: CSRGraph) -> VertexOrder | None:
    """The graph's vertices by descending in-degree (ties by id), or None where renumbering would
    not pay: fewer than `MIN_VERTICES` vertices, in-degrees not skewed, or ids already local."""
    if graph not in _KEPT:
        _KEPT[graph] = _order(graph)
    return _KEPT[graph]


def _order(graph: CSRGraph) -> VertexOrder | None:
    n, m = graph.n_vertices, graph.n_edges
    if n < MIN_VERTICES or m == 0:
        return None
    in_degrees = np.bincount(graph.columns, minlength=n)
    old_of = np.argsort(-in_degrees, kind="stable").astype(np.int32)
    top = max(1, int(TOP_SHARE * n))
    if int(in_degrees[old_of[:top]].sum()) < HUB_SHARE * m:
        return None
    sample = np.linspace(0, m - 1, min(m, SAMPLED_ARCS)).astype(np.int64)
    tails = np.searchsorted(graph.row_offsets, sample, side="right") - 1
    if np.median(np.abs(tails - graph.columns[sample].astype(np.int64))) < SCATTERED * n:
        return None
    new_of = np.empty(n, np.int32)
    new_of[old_of] = np.arange(n, dtype=np.int32)
    return VertexOrder(new_of, old_of)


def renumbered_bytes(n_vertices: int, n_edges: int) -> int:
    """The GPU memory a renumbered copy of a graph takes beside the graph (`autotune.gpu.renumber`):
    its row offsets, columns and weights, and both renamings (4 bytes each), the run lists of its rows
    of more than 64 arcs left out (8 bytes a run of at most 2,048 arcs).

    Example:
        >>> renumbered_bytes(1000, 16000)
        140004
    """
    return 4 * (n_vertices + 1) + 8 * max(n_edges, 1) + 8 * n_vertices


def renumbered(graph: CSRGraph, order: VertexOrder) -> CSRGraph:
    """The graph in `order`'s ids: row r is row old_of[r] of the graph, each head renamed, its arcs
    by head (what the GPU builds, `autotune.gpu.renumber`, whose rows of more than 2,048 arcs are
    sorted in runs)."""
    degrees = graph.out_degrees[order.old_of].astype(np.int64)
    row_offsets = np.zeros(graph.n_vertices + 1, np.int64)
    np.cumsum(degrees, out=row_offsets[1:])
    # arc k of new row r sits at old_start[old_of[r]] + k: start of its old row minus the new one, plus its place
    shift = graph.row_offsets[:-1][order.old_of].astype(np.int64) - row_offsets[:-1]
    positions = np.repeat(shift, degrees) + np.arange(graph.n_edges, dtype=np.int64)
    heads = order.new_of[graph.columns[positions]]
    by_head = np.lexsort((heads, np.repeat(np.arange(graph.n_vertices), degrees)))
    return CSRGraph(f"{graph.name} (by in-degree)", row_offsets.astype(np.int32), heads[by_head],
                    graph.weights[positions][by_head])
