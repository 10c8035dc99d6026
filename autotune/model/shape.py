"""What, beyond its size and mean degree, says which kernel suits a graph: how skewed its degrees
are, how its weights spread, and how deep it is. Cheap on a CPU: the depth is sampled, the
largest breadth-first level reached from a few sources (scipy's unweighted shortest paths, in C).

Depth is what one query pays for (near-far iterations and barriers grow with it: usa-roads needs
about 220 levels, rmat17 about 10); skew is what the load-balancing bins are for; the spread of
the weights bounds Delta's useful range. `autotune graph info` prints them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.measure import choose_sources
from autotune.model.features import graph_statistics

DEPTH_SOURCES = 4  # sources the depth is sampled from


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
        sources: the sampled sources.
    """

    degree_cv: float
    degree_ratio: float | None
    weight_cv: float | None
    zero_weights: float | None
    hop_depth: int | None
    reach: float | None
    sources: tuple[int, ...]

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
    import scipy.sparse
    from scipy.sparse.csgraph import shortest_path

    n = graph.n_vertices
    matrix = scipy.sparse.csr_array((np.ones(graph.n_edges), graph.columns, graph.row_offsets), shape=(n, n))
    hops = shortest_path(matrix, method="D", directed=True, unweighted=True, indices=list(sources))
    hops = np.atleast_2d(hops)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def graph_shape(graph: CSRGraph, samples: int = DEPTH_SOURCES, seed: int = 0) -> GraphShape:
    """The shape of `graph`, its depth sampled from `samples` sources drawn with `seed` among the
    vertices with out-edges (`measure.choose_sources`)."""
    degrees = graph.out_degrees
    mean_degree = float(degrees.mean()) if graph.n_vertices else 0.0
    weights = graph.weights.astype(np.float64)
    sources = choose_sources(graph, samples, seed) if graph.n_vertices else ()
    hop_depth = reach = None
    if sources:
        levels = hop_levels(graph, sources)
        hop_depth = int(np.median(levels.max(axis=1)))
        reach = float(np.mean((levels >= 0).sum(axis=1) / graph.n_vertices))
    return GraphShape(
        degree_cv=graph_statistics(graph)["degree_cv"],
        degree_ratio=float(degrees.max() / mean_degree) if mean_degree else None,
        weight_cv=float(weights.std() / weights.mean()) if graph.n_edges and weights.mean() else None,
        zero_weights=float(np.mean(weights == 0)) if graph.n_edges else None,
        hop_depth=hop_depth,
        reach=reach,
        sources=tuple(sources),
    )


__all__ = ["DEPTH_SOURCES", "GraphShape", "graph_shape", "hop_levels"]
