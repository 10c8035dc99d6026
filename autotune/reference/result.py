"""What a CPU solve returns, shared by the oracle and the algorithms' CPU references."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph

UNREACHABLE = -1


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Distances from one source, and how the algorithm got there.

    Args:
        algorithm: "dijkstra", or the registered algorithm's name.
        source: the source vertex.
        distances: int64, one per vertex; `UNREACHABLE` (-1) where the source does not reach.
        iterations: outer-loop iterations. For Crauser and Martín: kernel rounds (relax, minimum,
            update) including the last, whose threshold is infinite. For Delta-stepping: advance
            steps. For Dijkstra: vertices settled one by one, i.e. reached vertices.
        frontier_sizes: int64, |F_i| relaxed in iteration i (F_0 = {source}); None for Dijkstra.
        settled_per_iteration: int64, vertices settled in iteration i (= |F_{i+1}|, 0 for the
            last); None for Dijkstra and Delta-stepping.
        stats: further per-solve statistics of the algorithm (Delta-stepping: `buckets`,
            `relaxations`, `relaxations_per_edge`).
    """

    algorithm: str
    source: int
    distances: np.ndarray
    iterations: int
    frontier_sizes: np.ndarray | None = None
    settled_per_iteration: np.ndarray | None = None
    stats: Mapping[str, float] = field(default_factory=dict)

    @property
    def reached(self) -> int:
        """Vertices with a finite distance, the source included."""
        return int(np.count_nonzero(self.distances != UNREACHABLE))


def check_sources(graph: CSRGraph, sources: Sequence[int] | np.ndarray) -> np.ndarray:
    """The sources as int64; InputError for one that is not a vertex."""
    sources = np.asarray(sources, dtype=np.int64).reshape(-1)
    bad = sources[(sources < 0) | (sources >= graph.n_vertices)]
    if len(bad):
        raise InputError(f"source {int(bad[0])} is not a vertex of {graph.name} "
                         f"(0..{graph.n_vertices - 1})")
    return sources


def edges_of(graph: CSRGraph, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The arc indexes of the frontier's out-edges, and each frontier vertex's degree."""
    starts = graph.row_offsets[frontier].astype(np.int64)
    degrees = graph.row_offsets[frontier + 1] - starts
    total = int(degrees.sum())
    first = np.cumsum(degrees) - degrees
    arcs = np.arange(total, dtype=np.int64) + np.repeat(starts - first, degrees)
    return arcs, degrees
