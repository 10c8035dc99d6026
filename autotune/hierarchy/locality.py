"""The order a graph's vertices are contracted in where its own ids scatter neighbours: the
contraction's witness searches wait on memory less when neighbours' ids are close."""
from __future__ import annotations

import numpy as np

from autotune.graphs.csr import CSRGraph

# A graph whose ids keep neighbours close (at least LOCAL_SHARE of its arcs join vertices at most
# LOCAL_SPAN ids apart: usa-roads 91%, road-FLA 74%) is contracted in its own order; any other (road-NE
# 44%, a row-major grid 50%, a random graph) in scipy's reverse Cuthill-McKee order, whose searches miss
# the cache less: road-NE's contraction 18.7 -> 14.3 s (+1.5 s to reorder), usa-roads' 2.9 -> 3.2 s
# were it reordered (this VM, one core: docs/notes/phast.md).
LOCAL_SPAN = 64
LOCAL_SHARE = 2 / 3


def locality_order(graph: CSRGraph) -> np.ndarray | None:
    """The order to contract the graph's vertices in (`order[new] = old`), or None where its own
    keeps neighbours close enough (`LOCAL_SHARE`)."""
    if graph.n_edges == 0:
        return None
    span = np.abs(graph.tails.astype(np.int64) - graph.columns.astype(np.int64))
    if np.count_nonzero(span <= LOCAL_SPAN) >= LOCAL_SHARE * graph.n_edges:
        return None
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    n = graph.n_vertices
    adjacency_matrix = csr_matrix((np.ones(graph.n_edges, np.int8), graph.columns, graph.row_offsets), shape=(n, n))
    return reverse_cuthill_mckee(adjacency_matrix, symmetric_mode=True).astype(np.int64)
