"""scipy's Dijkstra: the oracle every GPU result is compared with. scipy is imported when a
distance is first computed, not with this module: a process that only reads kept distances (a
sweep's worker) starts without it."""
from __future__ import annotations

import importlib
import weakref
from typing import TYPE_CHECKING, Sequence

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.reference.result import UNREACHABLE, SolveResult, check_sources

if TYPE_CHECKING:
    import scipy.sparse

_scipy_graphs: weakref.WeakKeyDictionary[CSRGraph, scipy.sparse.csr_array] = (
    weakref.WeakKeyDictionary()
)


def _scipy_graph(graph: CSRGraph) -> scipy.sparse.csr_array:
    """The graph as a scipy CSR array (cached per graph object). Zero weights stay explicit
    entries, which `scipy.sparse.csgraph` treats as zero-weight arcs (tests check this)."""
    matrix = _scipy_graphs.get(graph)
    if matrix is None:
        import scipy.sparse

        n = graph.n_vertices
        matrix = scipy.sparse.csr_array(
            (graph.weights.astype(np.float64), graph.columns, graph.row_offsets), shape=(n, n)
        )
        _scipy_graphs[graph] = matrix
    return matrix


def load_for(graph: CSRGraph) -> None:
    """Import scipy's Dijkstra and build the graph's scipy array now, in this process: a pool forked
    after it (`reference.cache.forked_workers`) shares both and imports nothing. A child that imports
    a module whose import lock another thread of the parent held at the fork (the kernels' builds
    run side by side, `gpu.compile.precompile`) waits for it forever."""
    importlib.import_module("scipy.sparse.csgraph")
    _scipy_graph(graph)


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
    sources = check_sources(graph, sources)
    if graph.n_vertices == 0 or len(sources) == 0:
        return np.zeros((len(sources), graph.n_vertices), dtype=np.int64)
    from scipy.sparse.csgraph import dijkstra

    found = dijkstra(_scipy_graph(graph), directed=True, indices=sources)
    found = np.atleast_2d(found)
    unreachable = np.isinf(found)
    found[unreachable] = UNREACHABLE
    return found.astype(np.int64)


def dijkstra(graph: CSRGraph, source: int) -> SolveResult:
    """Sequential Dijkstra from `source` (scipy), as a `SolveResult`."""
    distances = reference_distances(graph, [source])[0]
    reached = int(np.count_nonzero(distances != UNREACHABLE))
    return SolveResult("dijkstra", int(source), distances, reached)
