"""Shortest-path trees and source-target stops on the GPU (`pytest -m gpu`): the tree pass after
every algorithm (on the distances each leaves in GPU memory, or copied up for delta_lanes) is a
shortest-path tree by the CPU's check, with zero-weight cycles, unreachable vertices and a graph of
one vertex; delta's early stop gives the target's exact distance in every loop mode, for every
instance of a batch, and stops sooner than the full solve; `sssp --paths --target` does both."""
from __future__ import annotations

import json

import numpy as np
import pytest

from autotune import algorithms
from autotune.algorithms.delta import INFINITE
from autotune.graphs import build_csr
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.measure import choose_sources
from autotune.reference.cache import INF, ReferenceCache
from autotune.reference.paths import tree_error

import solves

pytestmark = pytest.mark.gpu

HOST = {"loop": "host", "blocks": 16}
BLOCK = {"loop": "persistent", "blocks": 1}
GRID = {"loop": "persistent", "blocks": 4}
SHARED = {"loop": "shared", "blocks": 1}


def zeros_graph():
    # 0 -> 1 -> 2 at weights 0 and 5, a zero-weight cycle 2 <-> 3, 4 reaches 0; 5 is isolated
    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    return build_csr("zeros", 6, tails, heads, weights)


def configs_of(algorithm: str, ck: int) -> list[LaunchConfig]:
    if algorithm == "delta_shared":
        return [solves.config("delta", ck, 256, 256, "default", delta=64, **SHARED)]
    entry = algorithms.get(algorithm)
    if algorithm in ("delta", "delta_lanes"):
        return [solves.config(algorithm, ck, 256, 256, "default", delta=64, **loop)
                for loop in ((BLOCK, GRID, HOST) if algorithm == "delta" else ({},))]
    kernels = {kernel: KernelLaunch(256, CacheState.DEFAULT) for kernel in entry.kernels}
    return [entry.validate(LaunchConfig(ck, kernels, algorithm, entry.default_params()))]


def assert_trees(graph, algorithm: str, ck: int, hub_degree: int = 1024) -> None:
    from autotune.algorithms import open_solver
    from autotune.gpu.paths import PathTrees

    sources = list(choose_sources(graph, ck, seed=3))
    sources = (sources * ck)[:ck]
    expected = ReferenceCache(None).distances(graph, sources)
    engine = "delta" if algorithm == "delta_shared" else algorithm
    with open_solver(graph, engine) as solver, PathTrees(solver, hub_degree) as trees:
        for config in configs_of(algorithm, ck):
            result = solver.solve(config, sources)
            tree = trees.build(sources, result.distances)
            assert tree.elapsed_ms > 0
            for k, source in enumerate(sources):
                assert np.array_equal(result.distances[k], expected[source]), config
                assert tree_error(graph, expected[source], tree.parents[k], source, INF) is None, (config, source)


@pytest.mark.parametrize("algorithm", ["crauser", "delta", "adds", "delta_lanes"])
@pytest.mark.parametrize("name", ["usa-roads.gr.gz", "rmat12", "rome99.gr.gz"])
def test_the_tree_after_every_algorithm_is_a_shortest_path_tree(session, graphs, algorithm, name):
    ck = 32 if algorithm == "delta_lanes" else 2
    assert_trees(graphs(name), algorithm, ck)


def test_the_tree_after_a_solve_in_shared_memory(session, graphs):
    assert_trees(graphs("rome99.gr.gz"), "delta_shared", 4)


@pytest.mark.parametrize("hub_degree", [2, 32])
def test_trees_whose_hubs_blocks_take_in_chunks(session, graphs, hub_degree):
    assert_trees(graphs("rmat12"), "delta", 4, hub_degree)
    assert_trees(graphs("Email-Enron.txt.gz"), "delta", 2, hub_degree)


@pytest.mark.parametrize("algorithm", ["delta", "delta_shared", "delta_lanes"])
def test_trees_with_zero_weight_cycles_unreachable_vertices_and_one_vertex(session, algorithm):
    ck = 32 if algorithm == "delta_lanes" else 6
    assert_trees(zeros_graph(), algorithm, ck)
    assert_trees(build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int)), algorithm, ck)


def test_trees_whose_zero_weight_components_exceed_a_warp(session):
    # a path of 40 vertices joined by zero-weight arcs both ways, entered in its middle by a positive
    # arc from the source 40, and a zero-weight component of 3 beside it (41 -> 42 <-> 43)
    tails = np.concatenate([np.arange(39), np.arange(1, 40), [40, 40, 41, 42, 43]])
    heads = np.concatenate([np.arange(1, 40), np.arange(39), [20, 41, 42, 43, 42]])
    weights = np.concatenate([np.zeros(78, int), [3, 2, 0, 0, 0]])
    assert_trees(build_csr("zero-path", 44, tails, heads, weights), "delta", 2)


def targets_solved(graph, config, sources, targets):
    from autotune.algorithms import open_solver

    expected = ReferenceCache(None).distances(graph, sources)
    with open_solver(graph, "delta") as solver:
        full = solver.solve(config, sources).iterations.copy()
        early = solver.solve_to(config, sources, targets)
        for k, (source, target) in enumerate(zip(sources, targets)):
            assert early.distances[k][target] == expected[source][target], (config, source, target)
        return full, early.iterations.copy()


@pytest.mark.parametrize("loop", [BLOCK, GRID, HOST, SHARED], ids=["block", "grid", "host", "shared"])
@pytest.mark.parametrize("name", ["usa-roads.gr.gz", "rome99.gr.gz", "rmat12", "delaunay_n16.mtx.gz"])
def test_the_early_stop_gives_the_targets_distance(session, graphs, loop, name):
    if loop is SHARED and name not in ("rome99.gr.gz",):
        pytest.skip("the graph does not fit in shared memory")
    graph = graphs(name)
    sources = list(choose_sources(graph, 8, seed=5))
    targets = list(choose_sources(graph, 8, seed=6))
    config = solves.config("delta", 8, 256, 256, "default", delta=256, **loop)
    targets_solved(graph, config, sources, targets)  # iterations vary from solve to solve: not compared


@pytest.mark.parametrize(("delta", "loop"), [(256, BLOCK), (INFINITE, BLOCK), (INFINITE, HOST), (256, GRID)])
def test_a_target_next_to_the_source_stops_long_before_the_full_solve(session, graphs, delta, loop):
    # Delta = inf never splits: solve_block and the host loop stop on the queues' smallest distances
    graph = graphs("usa-roads.gr.gz")
    source = 0
    neighbour = int(graph.columns[graph.row_offsets[source]])
    config = solves.config("delta", 1, 256, 256, "default", delta=delta, **loop)
    full, early = targets_solved(graph, config, [source], [neighbour])
    assert early[0] * 10 < full[0]


def test_targets_with_zero_weights_unreachable_the_source_itself_and_infinite_delta(session):
    graph = zeros_graph()
    sources, targets = [0, 0, 4, 5, 1, 2], [3, 4, 3, 0, 1, 5]  # 0 does not reach 4, 5 reaches nothing
    for delta in (1, 4, INFINITE):
        for loop in (BLOCK, GRID, HOST, SHARED):
            targets_solved(graph, solves.config("delta", 6, 64, 64, "default", delta=delta, **loop), sources, targets)


def test_sssp_command_builds_and_saves_the_tree_and_stops_at_the_target(capsys, session, tmp_path):
    from autotune.cli import main
    from autotune.graphs import load_graph

    saved = tmp_path / "tree.npy"
    assert main(["sssp", "--graph", "rmat10", "--algorithm", "delta", "--delta", "64", "--source", "3", "--paths",
                 "--save-paths", str(saved), "--target", "7", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["paths"]["verified"] == 1 and report["paths"]["tree_ms"] > 0
    assert report["target"]["verified"] == 1 and report["target"]["per_source"][0]["target"] == 7
    graph = load_graph("rmat10")
    expected = ReferenceCache(None).distances(graph, [3])[3]
    assert tree_error(graph, expected, np.load(saved), 3, INF) is None
