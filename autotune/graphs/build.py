"""Arcs -> CSR: drop self-loops, mirror undirected edges, merge parallel arcs, draw weights.

Arcs are identified by the int64 key `source * n + target`; sorting the keys orders the arcs as CSR
wants them (by source, then target), and equal neighbouring keys are parallel arcs.
"""
from __future__ import annotations

import numpy as np

from autotune.errors import InputError
from autotune.graphs import _rng
from autotune.graphs.csr import CSRGraph
from autotune.graphs.options import INT32_MAX, GraphOptions


def draw_weights(count: int, options: GraphOptions) -> np.ndarray:
    """`count` int32 weights, uniform in `options.drawn_weights`, from the seed's weight stream."""
    weights = options.drawn_weights
    return _rng.uniform_int32(_rng.stream(options.seed, _rng.Stream.WEIGHTS), count, weights.lo,
                              weights.hi)


def csr_from_sorted_keys(name: str, n_vertices: int, keys: np.ndarray,
                         weights: np.ndarray) -> CSRGraph:
    """The graph whose arcs are the distinct, sorted keys `source * n + target` with `weights`.

    Raises:
        InputError: if there are more than 2**31 - 1 arcs (the GPU's int32 offsets).
    """
    if len(keys) > INT32_MAX:
        raise InputError(f"{name}: {len(keys)} arcs do not fit int32 row offsets "
                         f"(at most {INT32_MAX})")
    n = max(n_vertices, 1)
    bounds = np.arange(n_vertices + 1, dtype=np.int64) * n
    row_offsets = np.searchsorted(keys, bounds).astype(np.int32)
    columns = np.empty(len(keys), dtype=np.int32)
    chunk = 1 << 24
    for start in range(0, len(keys), chunk):
        columns[start:start + chunk] = keys[start:start + chunk] % n
    return CSRGraph(name, row_offsets, columns, np.ascontiguousarray(weights, dtype=np.int32))


def unique_sorted(keys: np.ndarray) -> np.ndarray:
    """Sort `keys` in place and return its distinct values (a new array)."""
    keys.sort()
    if len(keys) < 2:
        return keys.copy()
    first = np.empty(len(keys), dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return keys[first]


def _symmetric_weights(keys: np.ndarray, n: int, options: GraphOptions) -> np.ndarray:
    """Weights for a symmetric arc set: one draw per edge {u, v} (u < v, in key order), shared by
    (u, v) and (v, u). The arcs (v, u) with v > u, sorted by their edges' keys, are the edges in
    order, so each takes its draw by that sort (a binary search per arc, in the arcs' order, missed
    the caches on a uniform random graph: 114 s of urand22's 141.7 s on this project's VM; 23.6 s in
    all so).

    Raises:
        ValueError: the arcs are not symmetric.
    """
    sources, targets = keys // n, keys % n
    forward = sources < targets
    canonical = keys[forward]
    drawn = draw_weights(len(canonical), options)
    weights = np.empty(len(keys), dtype=np.int32)
    weights[forward] = drawn
    backward = ~forward
    wanted = targets[backward] * n + sources[backward]
    order = np.argsort(wanted)  # the keys are distinct: any sort is the one order
    if not np.array_equal(wanted[order], canonical):
        raise ValueError("symmetric weights for arcs that are not symmetric")
    reverse = np.empty(len(wanted), dtype=np.int32)
    reverse[order] = drawn
    weights[backward] = reverse
    return weights


def _merge_min_weight(keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort arcs by key and keep the smallest weight of each key."""
    top = int(weights.max()) + 1 if len(weights) else 1
    if len(keys) and int(keys.max()) < (2**63 - 1) // top:
        combined = keys * top + weights  # one int64 sort orders by key, then weight
        combined.sort()
        keys, weights = combined // top, combined % top
    else:
        order = np.lexsort((weights, keys))
        keys, weights = keys[order], weights[order]
    if len(keys) < 2:
        return keys, weights
    first = np.empty(len(keys), dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return keys[first], weights[first]


def build_csr(
    name: str,
    n_vertices: int,
    sources: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray | None,
    *,
    undirected: bool = False,
    options: GraphOptions = GraphOptions(),
) -> CSRGraph:
    """Build a CSR graph from arcs.

    Self-loops are dropped; an undirected input gets each edge as arcs both ways; parallel arcs
    are merged keeping the smallest weight. Weights are drawn (uniform in `options.drawn_weights`,
    seeded) when `weights` is None or `options.weights` is set; an undirected input then gets one
    weight per edge, the same both ways.

    Args:
        name: the graph's name.
        n_vertices: number of vertices; ids must lie in 0..n_vertices-1.
        sources: source id of each arc.
        targets: target id of each arc.
        weights: non-negative weight of each arc, or None.
        undirected: whether each arc stands for an edge both ways.
        options: seed and weight range for drawn weights.

    Returns:
        The graph, with arcs sorted by source, then target.

    Raises:
        InputError: for ids out of range, negative weights, or sizes that do not fit int32.

    Example:
        >>> g = build_csr("g", 3, np.array([0, 0, 1]), np.array([1, 1, 1]), np.array([5, 2, 7]))
        >>> g.row_offsets.tolist(), g.columns.tolist(), g.weights.tolist()
        ([0, 1, 1, 1], [1], [2])
    """
    if not 0 <= n_vertices <= INT32_MAX:
        raise InputError(f"{name}: {n_vertices} vertices do not fit int32 ids")
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if len(sources) != len(targets) or (weights is not None and len(weights) != len(sources)):
        raise InputError(f"{name}: sources, targets and weights differ in length")
    if len(sources) and (min(sources.min(), targets.min()) < 0
                         or max(sources.max(), targets.max()) >= n_vertices):
        raise InputError(f"{name}: a vertex id is outside 0..{n_vertices - 1}")
    draw = weights is None or options.weights is not None
    if not draw:
        weights = np.asarray(weights, dtype=np.int64)
        if len(weights) and (weights.min() < 0 or weights.max() > INT32_MAX):
            raise InputError(f"{name}: weights must lie in 0..{INT32_MAX}")
    if undirected:
        sources, targets = np.concatenate((sources, targets)), np.concatenate((targets, sources))
        if not draw:
            weights = np.concatenate((weights, weights))
    loops = sources == targets
    keys = sources * max(n_vertices, 1) + targets
    del sources, targets
    if loops.any():
        keys = keys[~loops]
        if not draw:
            weights = weights[~loops]
    if draw:
        keys = unique_sorted(keys)
        if undirected:
            weights = _symmetric_weights(keys, max(n_vertices, 1), options)
        else:
            weights = draw_weights(len(keys), options)
    else:
        keys, weights = _merge_min_weight(keys, weights)
    return csr_from_sorted_keys(name, n_vertices, keys, weights)


def replace_weights(graph: CSRGraph, options: GraphOptions) -> CSRGraph:
    """`graph` with weights drawn anew, per arc in CSR order, from `options`."""
    return CSRGraph(graph.name, graph.row_offsets, graph.columns,
                    draw_weights(graph.n_edges, options))
