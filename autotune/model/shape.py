"""What, beyond its size and mean degree, says which kernel suits a graph: how skewed its degrees
are, how its weights spread, and how deep it is. Cheap on a CPU: the depth is sampled, the
largest breadth-first level reached from a few sources (scipy's unweighted shortest paths, in C).

Depth is what one query pays for (near-far iterations and barriers grow with it: usa-roads needs
368 levels from the source `benchmarks/data/shapes.json` sampled, rmat17 6), and the level width (the vertices a source reaches over its
levels) is the work each iteration has to share out: one block per query where it is narrow, a
grid where it is wide (`autotune.algorithms.delta.latency`). Skew is what the load-balancing bins are
for; the spread of the weights bounds Delta's useful range. `autotune graph info` prints them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph
from autotune.measure import choose_sources
from autotune.model.features import graph_statistics

DEPTH_SOURCES = 8  # sources the depth is sampled from, at most
REACHED_ENOUGH = 0.5  # ... searched in turn until they have together reached this share of the vertices


@dataclass(frozen=True)
class GraphShape:
    """A graph's shape figures (None where the graph has no arcs to measure them on).

    Args:
        degree_cv: the coefficient of variation of the out-degrees.
        degree_ratio: the largest out-degree over the mean.
        weight_cv: the coefficient of variation of the arc weights.
        zero_weights: the share of arcs of weight 0.
        hop_depth: the median, over the sampled sources, of the deepest breadth-first level each
            reaches (hops, weights ignored).
        reach: the mean share of the vertices each sampled source reaches (itself included).
        level_width: the widest, over the sampled sources, of the vertices a source reaches per
            breadth-first level (reached / (deepest level + 1)).
        sources: the sampled sources.
        lightest_weight: the mean of the vertices' lightest out-arc weights
            (`features.lightest_weight`: Delta's weight unit).
    """

    degree_cv: float
    degree_ratio: float | None
    weight_cv: float | None
    zero_weights: float | None
    hop_depth: int | None
    reach: float | None
    level_width: float | None
    sources: tuple[int, ...]
    lightest_weight: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "sources": list(self.sources)}


def hop_levels(graph: CSRGraph, sources: Sequence[int]) -> np.ndarray:
    """Breadth-first levels from each source: an int64 (len(sources), n) array, -1 unreachable.

    Example:
        >>> from autotune.graphs import build_csr
        >>> path = build_csr("path", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([5, 0, 7]))
        >>> hop_levels(path, [1]).tolist()
        [[-1, 0, 1, 2]]
    """
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(adjacency(graph), method="D", directed=True, unweighted=True, indices=list(sources))
    hops = np.atleast_2d(hops)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def adjacency(graph: CSRGraph) -> Any:
    """The graph's arcs as a scipy sparse matrix of ones (the searches ignore the weights): one
    float64 1 seen at every arc (a read-only view, no array of its own), as scipy's searches take
    float64 and would otherwise copy the data into that type before each search (rmat20's 32M
    arcs: 0.57 s of a 0.75 s search, 0.35 s to allocate ones of float64 instead; cProfile of one
    `autotune predict --queries 1` on a 2-core VM)."""
    import scipy.sparse

    n = graph.n_vertices
    ones = np.broadcast_to(np.float64(1.0), (graph.n_edges,))
    return scipy.sparse.csr_array((ones, graph.columns, graph.row_offsets), shape=(n, n))


def breadth_first_reach(graph: CSRGraph, source: int, matrix: Any = None) -> tuple[int, int]:
    """The deepest breadth-first level from `source` and the vertices it reaches (itself included);
    scipy's breadth-first order, in C: the last vertex of the order is on the deepest level.
    `matrix`: the graph's `adjacency`, where the caller searches from several sources.

    Example:
        >>> from autotune.graphs import build_csr
        >>> path = build_csr("path", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([5, 0, 7]))
        >>> breadth_first_reach(path, 1)
        (2, 3)
    """
    from scipy.sparse.csgraph import breadth_first_order

    matrix = adjacency(graph) if matrix is None else matrix
    order, parents = breadth_first_order(matrix, source, directed=True, return_predecessors=True)
    depth, vertex = 0, int(order[-1])
    while vertex != source:
        vertex, depth = int(parents[vertex]), depth + 1
    return depth, len(order)


def sampled_searches(graph: CSRGraph, samples: int = DEPTH_SOURCES, seed: int = 0
                     ) -> tuple[tuple[int, ...], list[tuple[int, int]]]:
    """Breadth-first searches from sources drawn with `seed` among the vertices with out-edges
    (`measure.choose_sources`), in turn until they have together reached `REACHED_ENOUGH` of the
    graph's vertices, `samples` at most: the sources searched and each one's (deepest level,
    vertices reached). A search costs what it reaches, so a graph whose sources reach most of it is
    searched once, and a directed one whose sources reach little (web-Stanford's) is sampled until
    some do."""
    sources = choose_sources(graph, samples, seed) if graph.n_vertices else ()
    searched: list[tuple[int, int]] = []
    matrix = adjacency(graph) if sources else None
    for source in sources:
        searched.append(breadth_first_reach(graph, source, matrix))
        if sum(reached for _, reached in searched) >= REACHED_ENOUGH * graph.n_vertices:
            break
    return tuple(sources[: len(searched)]), searched


def width_of(searched: Sequence[tuple[int, int]]) -> float | None:
    """The level width of `sampled_searches`' results: the widest reached / (deepest level + 1)."""
    return max((reached / (depth + 1) for depth, reached in searched), default=None)


def level_width(graph: CSRGraph) -> float:
    """The graph's level width alone (`GraphShape.level_width`; 0 for a graph without arcs): what
    Delta-stepping's one-query rules read (`autotune.algorithms.delta.latency`)."""
    return width_of(sampled_searches(graph)[1]) or 0.0


def graph_shape(graph: CSRGraph, samples: int = DEPTH_SOURCES, seed: int = 0) -> GraphShape:
    """The shape of `graph`, its depth, reach and level width from `sampled_searches`."""
    degrees = graph.out_degrees
    mean_degree = float(degrees.mean()) if graph.n_vertices else 0.0
    weights = graph.weights.astype(np.float64)
    statistics = graph_statistics(graph)
    sources, searched = sampled_searches(graph, samples, seed)
    hop_depth = reach = None
    if searched:
        hop_depth = int(np.median([depth for depth, _ in searched]))
        reach = float(np.mean([reached for _, reached in searched]) / graph.n_vertices)
    return GraphShape(
        degree_cv=statistics["degree_cv"],
        degree_ratio=float(degrees.max() / mean_degree) if mean_degree else None,
        weight_cv=float(weights.std() / weights.mean()) if graph.n_edges and weights.mean() else None,
        zero_weights=float(np.mean(weights == 0)) if graph.n_edges else None,
        hop_depth=hop_depth,
        reach=reach,
        level_width=width_of(searched),
        sources=sources,
        lightest_weight=statistics["lightest_weight"],
    )


class ShapeCache:
    """Shapes kept by graph (`<directory>/<sha256>-<DEPTH_SOURCES>.json`, written atomically): the
    breadth-first searches take seconds on a graph of 100M arcs, and `graph info`, a sweep's rules
    and `predict` read the same figures. `directory` None keeps nothing. A file that cannot be read
    is computed again and rewritten."""

    def __init__(self, directory: str | Path | None) -> None:
        self.directory = None if directory is None else Path(directory)

    def shape(self, graph: CSRGraph) -> dict[str, Any]:
        """`graph_shape(graph).to_json()`, read where kept."""
        from autotune.files import atomic_write, read_json

        path = None if self.directory is None else self.directory / f"{graph.sha256}-{DEPTH_SOURCES}.json"
        if path is not None and path.is_file():
            try:
                kept = read_json(path, "a kept shape")
                if isinstance(kept, dict) and "level_width" in kept:
                    return kept
            except InputError:  # torn or foreign: computed again below
                pass
        shape = graph_shape(graph).to_json()
        if path is not None:
            import json

            try:
                atomic_write(path, json.dumps(shape) + "\n", "the graph's shape")
            except Exception:  # noqa: BLE001 - a cache that cannot be written costs only the next run's searches
                pass
        return shape

    def level_width(self, graph: CSRGraph) -> float:
        """`level_width(graph)`, read where kept."""
        return float(self.shape(graph).get("level_width") or 0.0)

    @classmethod
    def from_env(cls, environ: Any = None) -> ShapeCache:
        """The shapes kept in the cache directory (`graphs.cache.kept_dir_from_env`: `shapes`)."""
        import os

        from autotune.graphs.cache import kept_dir_from_env

        return cls(kept_dir_from_env(os.environ if environ is None else environ, "shapes"))


__all__ = ["DEPTH_SOURCES", "REACHED_ENOUGH", "GraphShape", "ShapeCache", "adjacency", "breadth_first_reach", "graph_shape",
           "hop_levels", "level_width", "sampled_searches"]


def read_shapes(shapes: str | Path) -> dict[str, Mapping[str, Any]]:
    """A shapes file's graphs (`python3 -m benchmarks shapes`: {"shapes": {name: `GraphShape.to_json()`}}).

    Raises:
        InputError: unreadable, not JSON, or not of that shape (naming what is missing).
    """
    from autotune.files import read_json

    data = read_json(shapes, "shapes file")
    found = data.get("shapes") if isinstance(data, Mapping) else None
    if not isinstance(found, Mapping) or not all(isinstance(shape, Mapping) for shape in found.values()):
        raise InputError(f"{shapes}: not a shapes file: expected {{\"shapes\": {{graph: {{\"level_width\": ..., "
                         "\"hop_depth\": ...}}} (python3 -m benchmarks shapes writes one)")
    return dict(found)
