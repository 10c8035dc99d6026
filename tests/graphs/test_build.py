"""Edges -> CSR: self-loops, parallel arcs, undirected inputs, weights."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.errors import InputError
from autotune.graphs import GraphOptions, WeightRange, build_csr


def arcs(graph) -> dict[tuple[int, int], int]:
    rows = np.repeat(np.arange(graph.n_vertices), graph.out_degrees)
    return dict(zip(zip(rows.tolist(), graph.columns.tolist()), graph.weights.tolist()))


def test_self_loops_dropped_parallel_arcs_keep_smallest_weight() -> None:
    graph = build_csr("g", 3, np.array([0, 0, 1, 2, 0]), np.array([1, 1, 1, 0, 1]),
                      np.array([5, 2, 7, 0, 9]))
    assert arcs(graph) == {(0, 1): 2, (2, 0): 0}
    assert graph.row_offsets.tolist() == [0, 1, 1, 2]


def test_huge_weights_use_the_lexsort_path() -> None:
    n = 2**17  # keys up to 2**34 times weights up to 2**31 do not fit one int64
    graph = build_csr("g", n, np.array([n - 1, n - 1, 0]), np.array([n - 2, n - 2, 1]),
                      np.array([2**31 - 1, 2**31 - 2, 3]))
    assert graph.weights.tolist() == [3, 2**31 - 2]


def test_undirected_inputs_become_arcs_both_ways() -> None:
    graph = build_csr("g", 3, np.array([0, 1]), np.array([1, 2]), np.array([4, 6]), undirected=True)
    assert arcs(graph) == {(0, 1): 4, (1, 0): 4, (1, 2): 6, (2, 1): 6}


def test_drawn_weights_of_undirected_edges_match_both_ways() -> None:
    rng = np.random.default_rng(0)
    sources, targets = rng.integers(0, 200, 2000), rng.integers(0, 200, 2000)
    graph = build_csr("g", 200, sources, targets, None, undirected=True)
    found = arcs(graph)
    assert all(found[(v, u)] == w for (u, v), w in found.items())
    assert 1 <= min(found.values()) and max(found.values()) <= 100


def test_explicit_weight_range_replaces_file_weights() -> None:
    graph = build_csr("g", 2, np.array([0]), np.array([1]), np.array([50]),
                      options=GraphOptions(weights=WeightRange(3, 3)))
    assert graph.weights.tolist() == [3]


def test_empty_graphs() -> None:
    graph = build_csr("g", 0, np.array([], dtype=np.int64), np.array([], dtype=np.int64), None)
    assert graph.n_vertices == 0 and graph.n_edges == 0 and graph.max_degree == 0
    graph = build_csr("g", 4, np.array([], dtype=np.int64), np.array([], dtype=np.int64), None)
    assert graph.row_offsets.tolist() == [0, 0, 0, 0, 0] and graph.n_sinks == 4


@pytest.mark.parametrize("sources, targets, weights, message", [
    ([0], [3], [1], "outside 0..2"),
    ([-1], [0], [1], "outside 0..2"),
    ([0], [1], [-1], "weights must lie"),
    ([0, 1], [1], None, "differ in length"),
])
def test_bad_arcs(sources, targets, weights, message) -> None:
    with pytest.raises(InputError, match=message):
        build_csr("g", 3, np.array(sources), np.array(targets),
                  None if weights is None else np.array(weights))
