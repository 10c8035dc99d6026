"""A skewed graph of scattered ids renumbered by in-degree (`autotune.graphs.order`): which graphs
get an order, that it sorts the in-degrees, and that the renumbered graph has the same distances."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from autotune.graphs import build_csr, load_graph
from autotune.graphs.order import MIN_VERTICES, hub_order, renumbered


def distances(graph, source: int) -> np.ndarray:
    matrix = csr_matrix((graph.weights.astype(np.float64), graph.columns, graph.row_offsets),
                        shape=(graph.n_vertices, graph.n_vertices))
    return dijkstra(matrix, indices=source)


def test_rmat_gets_its_vertices_by_descending_in_degree():
    graph = load_graph("rmat16", use_cache=False)
    order = hub_order(graph)
    assert order is not None and order is hub_order(graph)  # kept for the graph
    n = graph.n_vertices
    assert sorted(order.old_of.tolist()) == list(range(n))
    assert np.array_equal(order.new_of[order.old_of], np.arange(n))
    in_degrees = np.bincount(graph.columns, minlength=n)
    assert np.all(np.diff(in_degrees[order.old_of]) <= 0)


@pytest.mark.parametrize("spec", ["urand16", "grid16", "rmat14"])
def test_even_local_or_small_graphs_keep_their_ids(spec):
    assert hub_order(load_graph(spec, use_cache=False)) is None


def test_a_skewed_graph_of_local_ids_keeps_them():
    # each vertex points to the next and to the first vertex of its block of 1,024: the blocks' first
    # vertices receive half the arcs, but most arcs join near ids (a web crawl's order)
    n = MIN_VERTICES
    v = np.arange(n - 1)
    tails, heads = np.concatenate([v, v]), np.concatenate([v + 1, (v // 1024) * 1024])
    keep = tails != heads
    graph = build_csr("blocks", n, tails[keep], heads[keep], np.ones(int(keep.sum()), np.int64))
    assert hub_order(graph) is None


def test_the_renumbered_graph_has_the_same_distances():
    graph = load_graph("rmat16", use_cache=False)
    order = hub_order(graph)
    other = renumbered(graph, order)
    assert other.n_edges == graph.n_edges and np.array_equal(np.sort(other.out_degrees), np.sort(graph.out_degrees))
    for source in (0, int(order.old_of[0]), 12345):
        assert np.array_equal(distances(other, int(order.new_of[source]))[order.new_of], distances(graph, source))
