"""CPU solvers: scipy's Dijkstra, Crauser and Martín agree, and their statistics are consistent."""
from __future__ import annotations

import heapq
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import CSRGraph, build_csr, load_graph
from autotune.algorithms import cpu_solver
from autotune.algorithms.delta.reference import delta_stepping
from autotune.algorithms.thesis.reference import crauser, martin, out_crauser_values
from autotune.reference import (
    UNREACHABLE,
    SolveResult,
    dijkstra,
    reference_distances,
)


def solve(graph: CSRGraph, source: int, algorithm: str = "dijkstra", **params) -> SolveResult:
    return cpu_solver(algorithm)(graph, source, params)

REAL_GRAPHS = ["rome99.gr.gz", "rgg_n_2_15_s0.graph.gz", "delaunay_n16.mtx.gz",
               "Email-Enron.txt.gz", "usa-roads.gr.gz"]
DELTAS = (1, 7, 100, "inf")


def heap_dijkstra(graph: CSRGraph, source: int) -> list[int]:
    """Textbook Dijkstra, independent of scipy and numpy."""
    dist = [UNREACHABLE] * graph.n_vertices
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if dist[u] != UNREACHABLE:
            continue
        dist[u] = d
        for k in range(graph.row_offsets[u], graph.row_offsets[u + 1]):
            v = int(graph.columns[k])
            if dist[v] == UNREACHABLE:
                heapq.heappush(heap, (d + int(graph.weights[k]), v))
    return dist


def check_statistics(result: SolveResult, graph: CSRGraph) -> None:
    frontier, settled = result.frontier_sizes, result.settled_per_iteration
    assert result.iterations == len(frontier) == len(settled) >= 1
    assert frontier[0] == 1 and settled[-1] == 0
    assert np.array_equal(frontier[1:], settled[:-1])
    assert np.all(settled[:-1] > 0)
    if result.algorithm == "martin":
        assert 1 + settled.sum() == result.reached
    else:  # reached vertices without out-arcs may stay unsettled (omega is infinite)
        reached_sinks = np.count_nonzero((result.distances >= 0) & (graph.out_degrees == 0))
        assert result.reached - reached_sinks <= 1 + settled.sum() <= result.reached


def check_agreement(graph: CSRGraph, sources: list[int]) -> None:
    expected = reference_distances(graph, sources)
    assert expected.shape == (len(sources), graph.n_vertices) and expected.dtype == np.int64
    for row, source in zip(expected, sources):
        for solver in (crauser, martin):
            result = solver(graph, source)
            assert result.distances.dtype == np.int64
            assert np.array_equal(result.distances, row), (solver.__name__, source)
            check_statistics(result, graph)
        for delta in DELTAS:
            result = delta_stepping(graph, source, delta)
            assert np.array_equal(result.distances, row), ("delta", delta, source)
            check_delta_statistics(result, graph, delta)


def check_delta_statistics(result: SolveResult, graph: CSRGraph, delta: int | str) -> None:
    """Every reached vertex's arcs were scanned at least once; INF never splits the far pile."""
    stats = result.stats
    reached_arcs = int(graph.out_degrees[result.distances >= 0].sum())
    assert stats["relaxations"] >= reached_arcs
    assert stats["relaxations_per_edge"] >= 1.0 or reached_arcs == 0
    assert result.iterations == len(result.frontier_sizes) >= 1 and result.frontier_sizes[0] == 1
    if delta == "inf":
        assert stats["buckets"] == 0


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_agree_on_real_graphs(data_dir: Path, name: str) -> None:
    graph = load_graph(data_dir / name)
    sources = np.random.default_rng(0).integers(0, graph.n_vertices, 3).tolist()
    check_agreement(graph, sources)


@pytest.mark.parametrize("spec, weights", [
    ("rmat12", None), ("rmat11-d8", "0-5"), ("random2000-d20", None), ("random1000-d2", "1-1"),
])
def test_agree_on_generated_graphs(spec: str, weights: str | None) -> None:
    graph = load_graph(spec, weights=weights, seed=2, use_cache=False)
    check_agreement(graph, [0, 1, graph.n_vertices - 1])


def test_scipy_honours_zero_weight_arcs() -> None:
    graph = build_csr("z", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0, 0, 2]))
    assert reference_distances(graph, [0]).tolist() == [[0, 0, 0, 2]]
    assert crauser(graph, 0).distances.tolist() == martin(graph, 0).distances.tolist() == [0, 0, 0, 2]


def test_unreachable_is_minus_one() -> None:
    graph = build_csr("u", 3, np.array([1]), np.array([2]), np.array([5]))
    assert reference_distances(graph, [0, 1]).tolist() == [[0, -1, -1], [-1, 0, 5]]
    assert dijkstra(graph, 1).reached == 2 and dijkstra(graph, 1).iterations == 2


def test_crauser_settles_more_per_iteration_than_martin() -> None:
    # Thesis Fig. 3.2: s reaches a, b, c; omega(b) = 3 lets Crauser settle all three at once.
    s, a, b, c, d = range(5)
    graph = build_csr("fig", 5, np.array([s, s, s, b, a, c]), np.array([a, b, c, d, d, d]),
                      np.array([3, 1, 2, 3, 5, 4]))
    result = crauser(graph, s)
    # d has no out-arcs (omega infinite): the threshold is infinite once only d is unsettled, so
    # the loop stops with d reached (its distance final) but not settled.
    assert result.frontier_sizes.tolist() == [1, 3] and result.distances[d] == 4
    assert martin(graph, s).frontier_sizes.tolist() == [1, 1, 1, 1, 1]


def test_out_crauser_values() -> None:
    graph = build_csr("o", 4, np.array([0, 0, 2]), np.array([1, 2, 0]), np.array([7, 3, 0]))
    omega = out_crauser_values(graph, infinity=99)
    assert omega.tolist() == [3, 99, 0, 99]


def test_bad_source_and_algorithm() -> None:
    graph = build_csr("b", 2, np.array([0]), np.array([1]), np.array([1]))
    with pytest.raises(InputError, match="source 2 is not a vertex of b"):
        reference_distances(graph, [2])
    with pytest.raises(InputError, match="source -1"):
        crauser(graph, -1)
    with pytest.raises(InputError, match="unknown algorithm 'bfs'"):
        solve(graph, 0, "bfs")
    with pytest.raises(InputError, match="--delta: expected a positive integer or 'inf'"):
        delta_stepping(graph, 0, 0)


def test_solve_dispatch() -> None:
    graph = build_csr("b", 2, np.array([0]), np.array([1]), np.array([1]))
    assert [solve(graph, 0, a).algorithm for a in ("dijkstra", "crauser", "martin", "delta")] == [
        "dijkstra", "crauser", "martin", "delta"]


@st.composite
def small_graphs(draw: st.DrawFn, max_weight: int = 4) -> tuple[CSRGraph, int]:
    n = draw(st.integers(1, 24))
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, max_weight)), max_size=3 * n))
    undirected = draw(st.booleans())
    sources, targets, weights = (np.array(column, dtype=np.int64).reshape(-1)
                                 for column in (zip(*arcs) if arcs else ([], [], [])))
    graph = build_csr("h", n, sources, targets, weights, undirected=undirected)
    return graph, draw(st.integers(0, n - 1))


@settings(max_examples=300, deadline=None)
@given(small_graphs())
def test_property_all_agree(case: tuple[CSRGraph, int]) -> None:
    graph, source = case
    expected = heap_dijkstra(graph, source)
    assert reference_distances(graph, [source])[0].tolist() == expected
    for solver in (crauser, martin):
        result = solver(graph, source)
        assert result.distances.tolist() == expected
        check_statistics(result, graph)
    for delta in (1, 2, 5, "inf"):
        assert delta_stepping(graph, source, delta).distances.tolist() == expected


@settings(max_examples=100, deadline=None)
@given(small_graphs(max_weight=0), st.integers(0, 3))
def test_property_equal_weights(case: tuple[CSRGraph, int], weight: int) -> None:
    graph, source = case
    graph = CSRGraph(graph.name, graph.row_offsets, graph.columns,
                     np.full(graph.n_edges, weight, dtype=np.int32))
    expected = heap_dijkstra(graph, source)
    for solver in (dijkstra, crauser, martin):
        assert solver(graph, source).distances.tolist() == expected
    for delta in (1, 3, "inf"):  # zero weights: a bucket's vertices settle at once
        assert delta_stepping(graph, source, delta).distances.tolist() == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 300), st.integers(1, 8), st.integers(0, 2**32), st.integers(0, 3))
def test_property_generated_random_graphs(n: int, degree: int, seed: int, lo: int) -> None:
    degree = min(degree, n - 1)
    graph = load_graph(f"random{n}-d{degree}", seed=seed, weights=f"{lo}-{lo + 3}",
                       use_cache=False)
    check_agreement(graph, [0, n // 2])
    assert reference_distances(graph, [0])[0].min() >= 0  # strongly connected: all reached


def test_a_smaller_delta_does_less_work_in_more_iterations_on_a_road_network(data_dir: Path) -> None:
    graph = load_graph(data_dir / "usa-roads.gr.gz")
    narrow, wide, infinite = (delta_stepping(graph, 1, d) for d in (256, 8192, "inf"))
    assert narrow.iterations > wide.iterations > infinite.iterations
    assert narrow.stats["relaxations"] < wide.stats["relaxations"] < infinite.stats["relaxations"]
    assert narrow.stats["buckets"] > wide.stats["buckets"] > infinite.stats["buckets"] == 0


@pytest.mark.parametrize("name", algorithms.cpu_solver_names())
def test_every_cpu_reference_is_exact_past_32_bits(name, tmp_path, monkeypatch):
    """Distances past 2^31 (a path of arcs of 2^31 - 1) are exact in every CPU solver (issue 68)."""
    from autotune.graphs import build_csr

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))  # phast keeps its hierarchy there
    heavy, n = 2**31 - 1, 6
    tails = np.array([*range(n - 1), *range(1, n)])
    heads = np.array([*range(1, n), *range(n - 1)])
    graph = build_csr("heavy-path", n, tails, heads, np.full(len(tails), heavy))
    assert algorithms.cpu_solver(name)(graph, 0, {}).distances.tolist() == [heavy * v for v in range(n)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.integers(0, 50)),
                                    max_size=40))
def test_the_longest_path_bound_is_never_below_a_shortest_distance(n, arcs):
    """`longest_path_bound` bounds every finite distance of any digraph (zero weights, several
    strongly connected components, parallel arcs), and is never above twice n - 1 arcs of the largest
    weight, each counted one more."""
    from autotune.reference.distance_range import longest_path_bound
    from autotune.reference.oracle import reference_distances

    arcs = [(u % n, v % n, w) for u, v, w in arcs]
    graph = build_csr("g", n, np.array([a[0] for a in arcs], dtype=np.int64),
                      np.array([a[1] for a in arcs], dtype=np.int64), np.array([a[2] for a in arcs], dtype=np.int64))
    distances = reference_distances(graph, list(range(n)))
    bound = longest_path_bound(graph)
    assert bound >= distances.max(initial=0)
    heaviest = int(graph.weights.max()) if graph.n_edges else 0
    assert bound <= (n - 1) * (heaviest + 1) + (n - 1) * (heaviest + 1)  # at most twice n - 1 arcs, each one more


def test_the_heaviest_chain_of_components_takes_every_depth_and_wide_frontiers():
    from autotune.reference.distance_range import heaviest_chain

    # 100 sources (a wide frontier) into one vertex, then a chain of 300 (300 rounds)
    node = np.ones(401)
    tails = np.r_[np.arange(100), np.arange(100, 400)]
    heads = np.r_[np.full(100, 100), np.arange(101, 401)]
    weights = np.r_[np.arange(100, dtype=float), np.full(300, 2.0)]
    assert heaviest_chain(node, tails, heads, weights) == 1 + 99 + 1 + 300 * (2 + 1)


def test_a_graph_whose_bound_passes_32_bits_only_by_n_times_its_largest_weight_is_safe():
    """A road-like grid with weights up to 10^6 on 4,096 vertices: (n - 1) x 10^6 passes 2^31, its
    distances (at most about 1.3 x 10^8) do not: `may_pass` lets every source be solved; a chain whose
    distance does pass is still refused."""
    from autotune.reference.distance_range import may_pass

    grid = load_graph("grid12-w1-1000000")
    assert (grid.n_vertices - 1) * int(grid.weights.max()) > 2**31 and may_pass(grid) is None
    chain = build_csr("chain", 3, np.array([0, 1]), np.array([1, 2]), np.array([1_500_000_000, 1_000_000_000]))
    assert may_pass(chain) is not None and may_pass(chain) >= 2_500_000_000
