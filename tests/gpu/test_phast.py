"""PHAST on the GPU (`pytest -m gpu`): distances in global and shared memory, every level on the
block or the big ones on the whole GPU, arcs in shared memory, the upward phase by
search or by levels, block sizes, cache states and CK give scipy's Dijkstra's
distances on a road network and a lattice, zero weights, unreachable vertices and a graph of one
vertex included; the shortest-path tree pass works on its distances; its source-target queries
(two upward searches) give the targets' distances; a graph with hubs is refused, not solved."""
from __future__ import annotations

import numpy as np
import pytest

from autotune import algorithms
from autotune.graphs import build_csr
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.measure import Status

import solves
from solves import assert_all_ok

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True, scope="module")
def hierarchies(tmp_path_factory):
    """Hierarchies built into a directory of this module's own."""
    patch = pytest.MonkeyPatch()
    patch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path_factory.mktemp("cache") / "graphs"))
    yield
    patch.undo()


def config(ck=1, block=1024, pull=256, cache="default", **params) -> LaunchConfig:
    entry = algorithms.get("phast")
    kernels = {"sweep": KernelLaunch(block, CacheState(cache)), "pull": KernelLaunch(pull, CacheState(cache))}
    return entry.validate(LaunchConfig(ck, kernels, "phast", {**entry.default_params(), **params}))


def lattice(side: int):
    """A side x side grid, both directions of each edge, weights 1 to 9."""
    ids = np.arange(side * side).reshape(side, side)
    pairs = np.concatenate([np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
                            np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], 1)])
    weights = 1 + np.arange(len(pairs)) % 9
    tails, heads = np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]])
    return build_csr(f"lattice{side}", side * side, tails, heads, np.concatenate([weights, weights]))


def measure(graph, configs, sample=4):
    return solves.measure(graph, "phast", configs, sample)


@pytest.mark.parametrize("name", ["rome99.gr.gz", "lattice"])
def test_distances_levels_and_block_sizes(session, graphs, name):
    graph = lattice(60) if name == "lattice" else graphs(name)
    configs = [config(distances=d, gpu_levels=g, block=b, upward=u)
               for d, g, b in (("global", "off", 1024), ("global", 32, 256), ("global", 1024, 128),
                               ("shared", "off", 1024), ("shared", "off", 64)) for u in ("search", "levels")]
    configs += [config(distances="shared", shared_arcs="down", block=b, upward=u)
                for b, u in ((1024, "search"), (96, "levels"))]
    configs += [config(distances=d, gpu_levels=g, block=b, warp_levels="off")
                for d, g, b in (("global", 1024, 512), ("shared", "off", 64))]
    assert_all_ok(measure(graph, configs))


@pytest.mark.parametrize("cache", list(CacheState))
def test_cache_states_and_batches(session, graphs, cache):
    configs = [config(ck, block=block, pull=pull, cache=cache.value, distances=d, gpu_levels=g)
               for ck, block, pull, d, g in ((2, 32, 64, "global", 32), (8, 512, 1024, "shared", "off"),
                                             (16, 1024, 128, "global", "off"))]
    assert_all_ok(measure(graphs("rome99.gr.gz"), configs, sample=16))


def test_zero_weights_unreachable_vertices_and_one_vertex(session):
    # 0 -> 1 -> 2 at weights 0 and 5, a zero-weight cycle 2 <-> 3, 4 reaches 0; 5 is isolated
    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    graph = build_csr("zeros", 6, tails, heads, weights)
    configs = [config(ck, distances=d, gpu_levels=g, upward=u) for ck in (1, 6)
               for d, g in (("global", 32), ("shared", "off")) for u in ("search", "levels")]
    configs += [config(ck, distances="shared", shared_arcs="down") for ck in (1, 6)]
    assert_all_ok(measure(graph, configs, sample=6))
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    assert_all_ok(measure(single, [config(), config(distances="shared"), config(distances="shared", shared_arcs="down")],
                          sample=1))


@pytest.mark.parametrize("name", ["rome99.gr.gz", "zeros", "one"])
def test_the_tree_after_phast_is_a_shortest_path_tree_and_targets_are_answered(session, graphs, name):
    from autotune.algorithms import open_solver
    from autotune.gpu.paths import PathTrees
    from autotune.reference.cache import INF, ReferenceCache
    from autotune.reference.paths import tree_error

    zeros = build_csr("zeros", 6, np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]),
                      np.array([0, 5, 0, 0, 7, 9]))
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    graph = {"zeros": zeros, "one": single}.get(name) or graphs(name)
    sources = [v % graph.n_vertices for v in (0, 3, 4, 5)]
    expected = ReferenceCache(None).distances(graph, sources)
    with open_solver(graph, "phast") as solver, PathTrees(solver, 1024) as trees:
        for shape in (config(4, distances="global", gpu_levels=32), config(4, distances="shared")):
            result = solver.solve(shape, sources)
            tree = trees.build(sources, result.distances)
            early = solver.solve_to(shape, sources, [graph.n_vertices - 1] * 4)
            for k, source in enumerate(sources):
                assert np.array_equal(result.distances[k], expected[source]), shape
                assert tree_error(graph, expected[source], tree.parents[k], source, INF) is None, (shape, source)
                assert early.distances[k][-1] == expected[source][-1]


@pytest.mark.parametrize("name", ["rome99.gr.gz", "lattice"])
def test_source_target_queries_give_the_targets_distance(session, graphs, name):
    from autotune.algorithms import open_solver
    from autotune.measure import choose_sources
    from autotune.reference.cache import ReferenceCache

    graph = lattice(60) if name == "lattice" else graphs(name)
    sources, targets = list(choose_sources(graph, 8, seed=2)), list(choose_sources(graph, 8, seed=7))
    targets[0] = sources[0]  # the source itself
    expected = ReferenceCache(None).distances(graph, sources)
    with open_solver(graph, "phast") as solver:
        for shape in (config(8, distances="global", gpu_levels=32), config(8, distances="shared", block=256),
                      config(8, block=64)):
            early = solver.solve_to(shape, sources, targets)
            got = [int(early.distances[k][t]) for k, t in enumerate(targets)]
            assert got == [int(expected[s][t]) for s, t in zip(sources, targets)], shape
            assert all(1 <= steps for steps in early.iterations)


def test_a_graph_with_hubs_is_refused_with_why(session, graphs):
    (measured,) = measure(graphs("rmat12"), [config()])
    assert measured.status is Status.INVALID and "no contraction hierarchy" in measured.reason


def test_target_queries_in_a_row_leave_the_searches_clean(session, graphs):
    """The kernel undoes each query's searches: queries one after another on one solver (CK 1, then
    3, then 1 again), blocks smaller than the searches' reach (several chunks a round), and every
    pair of the zero-weight graph, the unreachable ones included."""
    from autotune.algorithms import open_solver
    from autotune.reference.cache import ReferenceCache

    zeros = build_csr("zeros", 6, np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]),
                      np.array([0, 5, 0, 0, 7, 9]))
    pairs = {lattice(30): [(s, (s * 7 + 11) % 900) for s in range(0, 900, 37)],
             zeros: [(s, t) for s in range(6) for t in range(6)]}
    for graph, queries in pairs.items():
        expected = ReferenceCache(None).distances(graph, sorted({s for s, _ in queries}))
        with open_solver(graph, "phast") as solver:
            for ck, block in ((1, 32), (3, 1024), (1, 64)):
                for i in range(0, len(queries) - ck + 1, ck):
                    sources, targets = zip(*queries[i:i + ck])
                    early = solver.solve_to(config(ck, block=block), sources, targets)
                    got = [int(early.distances[k][t]) for k, t in enumerate(targets)]
                    assert got == [int(expected[s][t]) for s, t in zip(sources, targets)], (graph.name, ck, block)


@pytest.mark.parametrize("defines", [["-DQUEUE=4"], ["-DSEARCH_QUEUE=0"]])
def test_searches_whose_queue_overflows_or_that_scan_give_the_same_answers(session, graphs, defines, monkeypatch):
    """Builds with a queue of 4 vertices (rounds that overflow it list the vertices due from the
    reached ones, 4 at a time) and with no queue at all: the same distances and targets' distances."""
    from autotune.gpu import compile as compiled
    from autotune.algorithms import open_solver
    from autotune.measure import choose_sources
    from autotune.reference.cache import ReferenceCache

    phast = type(algorithms.get("phast"))
    plain = phast.compile_options
    monkeypatch.setattr(phast, "compile_options", lambda self, no_l1: plain(self, no_l1) + defines)
    compiled.compiled_module.cache_clear()
    try:
        graph = graphs("rome99.gr.gz")
        configs = [config(ck, block=b, distances=d) for ck, b, d in ((1, 64, "global"), (4, 32, "shared"))]
        assert_all_ok(measure(graph, configs))
        sources, targets = list(choose_sources(graph, 4, seed=3)), list(choose_sources(graph, 4, seed=5))
        expected = ReferenceCache(None).distances(graph, sources)
        with open_solver(graph, "phast") as solver:
            early = solver.solve_to(config(4, block=64), sources, targets)
            assert [int(early.distances[k][t]) for k, t in enumerate(targets)] == \
                [int(expected[s][t]) for s, t in zip(sources, targets)]
    finally:
        compiled.compiled_module.cache_clear()
