"""Generators: R-MAT and the thesis's random graphs; seeded, bit-identical, well-formed."""
from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components

from autotune.errors import InputError
from autotune.graphs import CSRGraph, GraphOptions, WeightRange, random_graph, rmat
from autotune.graphs import _rng
from autotune.graphs.generate import _rmat_chunk, _rmat_thresholds

# Pinned digests: a change here means generated graphs changed, so GENERATOR_VERSION must too.
GOLDEN = {
    "rmat10": "d8f1ba299f6c09b1e543123a51bc8b5aa0f4677d2d404b7c2d711c6e85c5de49",
    "random1000-d4": "2dfdf95a6134ec2fecd048640be05c0a148d17a10c14aabd9a17cefd8b5c86d2",
    "rmat8-d4 seed 5": "4cb3aeec4dca5773e1a957387ec3f31c30fbdc70081b268430886a848a4d892a",
}


def assert_simple(graph: CSRGraph) -> None:
    """Valid CSR, sorted rows, no self-loops, no parallel arcs."""
    graph.validate(graph.name)
    rows = np.repeat(np.arange(graph.n_vertices), graph.out_degrees)
    assert not np.any(rows == graph.columns)
    keys = rows.astype(np.int64) * graph.n_vertices + graph.columns
    assert np.all(np.diff(keys) > 0)


def test_golden_digests() -> None:
    assert rmat(10).sha256 == GOLDEN["rmat10"]
    assert random_graph(1000, 4).sha256 == GOLDEN["random1000-d4"]
    assert rmat(8, 4, GraphOptions(seed=5)).sha256 == GOLDEN["rmat8-d4 seed 5"]


class TestRmat:
    def test_shape_and_simplicity(self) -> None:
        graph = rmat(12, 8)
        assert graph.name == "rmat12-d8"
        assert graph.n_vertices == 4096
        assert 0.5 * 8 * 4096 < graph.n_edges <= 8 * 4096
        assert_simple(graph)
        for array in (graph.row_offsets, graph.columns, graph.weights):
            assert array.dtype == np.int32

    def test_default_name_and_weights(self) -> None:
        graph = rmat(9)
        assert graph.name == "rmat9"
        assert graph.weights.min() >= 1 and graph.weights.max() <= 100

    def test_skewed_degrees_like_graph500(self) -> None:
        graph = rmat(14, 16)
        assert graph.max_degree > 20 * graph.mean_degree
        assert graph.n_sinks > 0

    def test_ids_are_permuted(self) -> None:
        # Without the permutation vertex 0 (all-"a" quadrants) would be the hub.
        graph = rmat(14, 16)
        assert int(np.argmax(graph.out_degrees)) != 0

    def test_seed_changes_the_graph_and_repeats_it(self) -> None:
        assert rmat(10, options=GraphOptions(seed=1)).sha256 == rmat(10, options=GraphOptions(seed=1)).sha256
        assert rmat(10, options=GraphOptions(seed=1)).sha256 != rmat(10).sha256

    def test_weight_range(self) -> None:
        graph = rmat(10, options=GraphOptions(weights=WeightRange(1, 1)))
        assert set(graph.weights.tolist()) == {1}
        assert np.array_equal(graph.columns, rmat(10).columns)  # weights do not move arcs
        zero = rmat(10, options=GraphOptions(weights=WeightRange(0, 5)))
        assert set(zero.weights.tolist()) == set(range(6))

    def test_quadrant_thresholds(self) -> None:
        a, ab, abc = (int(t) for t in _rmat_thresholds())
        assert abs(a / 2**32 - 0.57) < 1e-9 and abs(ab / 2**32 - 0.76) < 1e-9
        assert abs(abc / 2**32 - 0.95) < 1e-9

    def test_quadrant_frequencies(self) -> None:
        # Every level: P(source bit) = c + d = 0.24, P(target bit) = b + d = 0.24, P(both) = d.
        words = _rng.raw(_rng.stream(0, _rng.Stream.TOPOLOGY), (200_000, 3))
        sources, targets = _rmat_chunk(words, 6)
        for level in range(6):
            s, t = (sources >> level) & 1, (targets >> level) & 1
            assert abs(s.mean() - 0.24) < 0.005 and abs(t.mean() - 0.24) < 0.005
            assert abs((s & t).mean() - 0.05) < 0.003

    @pytest.mark.parametrize("scale, factor", [(0, 32), (31, 1), (27, 32)])
    def test_sizes_out_of_range(self, scale: int, factor: int) -> None:
        with pytest.raises(InputError, match=f"rmat{scale}"):
            rmat(scale, factor)

    @pytest.mark.slow
    def test_rmat20_generates_in_seconds(self) -> None:
        start = time.perf_counter()
        graph = rmat(20)
        assert time.perf_counter() - start < 30
        assert graph.n_vertices == 2**20 and graph.n_edges > 25_000_000


class TestRandom:
    def test_every_vertex_has_degree_distinct_targets(self) -> None:
        graph = random_graph(500, 20)
        assert_simple(graph)
        assert graph.n_edges == 500 * 20
        assert np.all(graph.out_degrees == 20)

    def test_first_edge_goes_to_the_next_vertex(self) -> None:
        graph = random_graph(300, 3)
        for v in range(300):
            row = graph.columns[graph.row_offsets[v]:graph.row_offsets[v + 1]]
            assert (v + 1) % 300 in row

    def test_strongly_connected(self) -> None:
        graph = random_graph(400, 2)
        matrix = csr_array((graph.weights, graph.columns, graph.row_offsets), shape=(400, 400))
        assert connected_components(matrix, directed=True, connection="strong")[0] == 1

    def test_dense_rows_need_redraws(self) -> None:
        graph = random_graph(50, 49)  # every other vertex
        assert_simple(graph)
        assert graph.n_edges == 50 * 49

    def test_weights_uniform_1_to_100(self) -> None:
        weights = random_graph(2000, 50).weights
        assert weights.min() == 1 and weights.max() == 100
        counts = np.bincount(weights, minlength=101)[1:]
        assert counts.min() > 0.8 * len(weights) / 100 and abs(weights.mean() - 50.5) < 0.5

    def test_targets_are_uniform(self) -> None:
        graph = random_graph(100, 10, GraphOptions(seed=3))
        counts = np.bincount(graph.columns, minlength=100)
        assert counts.min() > 0 and counts.max() < 30  # mean 10

    @pytest.mark.parametrize("n, degree", [(1, 1), (10, 10), (10, 0)])
    def test_sizes_out_of_range(self, n: int, degree: int) -> None:
        with pytest.raises(InputError, match="1 <= D <= vertices - 1"):
            random_graph(n, degree)


class TestStreams:
    def test_uniform_int32_bounds(self) -> None:
        values = _rng.uniform_int32(_rng.stream(0, _rng.Stream.WEIGHTS), 10_000, 3, 7)
        assert values.dtype == np.int32 and set(values.tolist()) == {3, 4, 5, 6, 7}
        full = _rng.uniform_int32(_rng.stream(0, _rng.Stream.WEIGHTS), 1000, 0, 2**31 - 1)
        assert full.min() >= 0

    def test_streams_are_independent_and_repeatable(self) -> None:
        a = _rng.raw(_rng.stream(4, _rng.Stream.WEIGHTS), 4)
        assert np.array_equal(a, _rng.raw(_rng.stream(4, _rng.Stream.WEIGHTS), 4))
        assert not np.array_equal(a, _rng.raw(_rng.stream(4, _rng.Stream.TOPOLOGY), 4))

    def test_raw_stream_is_pcg64(self) -> None:
        # PCG64 through SeedSequence is a fixed algorithm: pin its first word.
        assert int(_rng.raw(_rng.stream(5, _rng.Stream.TOPOLOGY), 1)[0]) == 4669863800895648766

    def test_permutation(self) -> None:
        perm = _rng.permutation(_rng.stream(1, _rng.Stream.PERMUTATION), 1000)
        assert sorted(perm.tolist()) == list(range(1000))


def test_the_square_grid_is_a_symmetric_lattice_of_its_scale():
    from autotune.graphs import load_graph
    from autotune.graphs.spec import GridSpec, parse_spec

    assert parse_spec("grid22") == GridSpec(22) and parse_spec("grid24-w1-368885").weights.hi == 368885
    g = load_graph("grid11-w7-9", use_cache=False)
    width, height = 64, 32
    assert g.n_vertices == 2048 and g.n_edges == 2 * (2 * width * height - width - height)
    assert g.max_degree == 4 and set(np.unique(g.weights)) <= {7, 8, 9}
    forward = dict(zip(zip(g.tails.tolist(), g.columns.tolist()), g.weights.tolist()))
    assert all(forward[(v, u)] == w for (u, v), w in forward.items())  # one weight an edge, both ways
    assert np.array_equal(load_graph("grid11", seed=3, use_cache=False).weights,
                          load_graph("grid11", seed=3, use_cache=False).weights)
    assert not np.array_equal(load_graph("grid11", seed=3, use_cache=False).weights,
                              load_graph("grid11", seed=4, use_cache=False).weights)


def test_a_uniform_random_graph_draws_its_edges_ends_uniformly_both_ways_with_one_weight():
    from autotune.graphs import load_graph
    from autotune.graphs.build import _symmetric_weights
    from autotune.graphs.spec import UniformSpec, parse_spec

    assert parse_spec("urand22") == UniformSpec(22, 16) and parse_spec("urand22-d8") == UniformSpec(22, 8)
    assert parse_spec("urand22").name == "urand22" and parse_spec("urand22-d16").canonical == "urand22-d16"
    g = load_graph("urand12-d8", use_cache=False)
    assert g.n_vertices == 4096 and 2 * 8 * 4096 * 0.99 < g.n_edges <= 2 * 8 * 4096  # loops and repeats merged
    assert bool((g.tails != g.columns).all())
    forward = dict(zip(zip(g.tails.tolist(), g.columns.tolist()), g.weights.tolist()))
    assert all(forward[(v, u)] == w for (u, v), w in forward.items())  # one weight an edge, both ways
    degrees = np.diff(g.row_offsets)
    assert 14 < degrees.mean() < 17 and degrees.max() < 40  # Poisson's, not R-MAT's hubs
    assert np.array_equal(load_graph("urand12-d8", seed=3, use_cache=False).columns,
                          load_graph("urand12-d8", seed=3, use_cache=False).columns)
    assert not np.array_equal(load_graph("urand12-d8", seed=3, use_cache=False).columns,
                              load_graph("urand12-d8", seed=4, use_cache=False).columns)
    with pytest.raises(InputError, match="urand31: the scale S of urand<S> must be 1..30"):
        load_graph("urand31", use_cache=False)
    with pytest.raises(ValueError, match="not symmetric"):
        _symmetric_weights(np.array([0 * 4 + 1, 1 * 4 + 2, 2 * 4 + 1]), 4, GraphOptions())
