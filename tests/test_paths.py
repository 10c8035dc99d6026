"""Shortest-path trees without a GPU: the CPU's check (`reference.paths.tree_error`) accepts the
trees scipy builds and refuses every way a tree can be wrong; the zero-weight arcs the GPU's
closure walks, by component, and the transposed graph the pull pass reads; `sssp --paths/--save-paths/--target`
refuse bad combinations in one line."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.cli import main
from autotune.graphs import build_csr, load_graph
from autotune.gpu.paths import ZeroComponents, hub_chunks, transposed, zero_weight_arcs
from autotune.reference.cache import INF, ReferenceCache
from autotune.reference.paths import tree_error


def scipy_tree(graph, source):
    """scipy's own predecessors (its Dijkstra's tree), -1 for none."""
    from scipy.sparse.csgraph import dijkstra

    from autotune.reference.oracle import _scipy_graph

    _distances, predecessors = dijkstra(_scipy_graph(graph), directed=True, indices=source, return_predecessors=True)
    return np.where(predecessors < 0, -1, predecessors)


@pytest.fixture
def zeros():
    # 0 -> 1 (0) -> 2 (5), a zero-weight cycle 2 <-> 3, 1 -> 3 (9), 4 -> 0 (7); 5 isolated
    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    return build_csr("zeros", 6, tails, heads, weights)


@pytest.mark.parametrize("name", ["rmat10", "random500-d4"])
def test_scipys_trees_pass(name):
    graph = load_graph(name)
    for source in (0, 7, 99):
        distances = ReferenceCache(None).distances(graph, [source])[source]
        assert tree_error(graph, distances, scipy_tree(graph, source), source, INF) is None


def test_a_tree_through_zero_weights_passes_and_a_zero_weight_cycle_fails(zeros):
    distances = ReferenceCache(None).distances(zeros, [0])[0]  # 0 0 5 5 INF INF
    assert tree_error(zeros, distances, np.array([-1, 0, 1, 2, -1, -1]), 0, INF) is None
    cycle = np.array([-1, 0, 3, 2, -1, -1])  # 2 and 3 each other's predecessor: both arcs tight
    assert "never reach the source" in tree_error(zeros, distances, cycle, 0, INF)


@pytest.mark.parametrize(("parents", "message"), [
    ([-1, 0, 1, -1, -1, -1], "vertex 3: reachable, but without a predecessor"),
    ([-1, 0, 1, 2, 0, -1], "vertex 4: unreachable, yet has the predecessor 0"),
    ([1, 0, 1, 2, -1, -1], "vertex 0: the source, yet has the predecessor 1"),
    ([-1, 0, 1, 1, -1, -1], "vertex 3: its predecessor 1 reaches it by no tight arc"),  # 1 -> 3 weighs 9, not 5
    ([-1, 0, 0, 2, -1, -1], "vertex 2: its predecessor 0 reaches it by no tight arc"),  # no arc 0 -> 2
    ([-1, 0, 1, 9, -1, -1], "vertex 3: predecessor 9 is not a vertex"),
])
def test_every_way_a_tree_can_be_wrong_is_named(zeros, parents, message):
    distances = ReferenceCache(None).distances(zeros, [0])[0]
    assert message in tree_error(zeros, distances, np.array(parents), 0, INF)


def test_zero_weight_arcs_leave_out_self_loops(zeros):
    assert zero_weight_arcs(zeros).tolist() == [[0, 1], [2, 3], [3, 2]]
    loop = build_csr("loop", 2, np.array([0, 0]), np.array([0, 1]), np.array([0, 3]))
    assert zero_weight_arcs(loop).shape == (0, 2)


def test_hub_chunks_cover_every_arc_of_every_hub_once():
    graph = load_graph("rmat10")
    chunks = hub_chunks(graph.row_offsets, hub_degree=40, chunk_arcs=16)
    covered = np.concatenate([np.arange(first, min(first + 16, graph.row_offsets[v + 1])) for v, first in chunks])
    hubs = np.flatnonzero(np.diff(graph.row_offsets) >= 40)
    assert len(hubs) and sorted(covered) == [e for v in hubs for e in range(graph.row_offsets[v], graph.row_offsets[v + 1])]


@pytest.mark.parametrize(("argv", "message"), [
    (["--cpu", "--paths"], "--paths applies to GPU solves"),
    (["--cpu", "--target", "3"], "--target applies to GPU solves"),
    (["--sources", "8", "--paths"], "--paths and --target time one source at a time"),
    (["--save-dir", "d", "--target", "2"], "--paths and --target time one source at a time"),
    (["--sources", "4", "--save-paths", "t.npy"], "--paths and --target time one source at a time"),
    (["--save-paths", "t.npy", "--source", "1"], "--save-paths writes the tree that --paths builds"),
    (["--paths", "--save-paths", "t.npy"], "--save-paths writes one source's tree; give --source"),
    (["--target", "64"], "--target: 64 is not a vertex of random64-d2 (0..63)"),
])
def test_bad_query_options_are_one_line_before_any_gpu_work(argv, message, capsys):
    assert main(["sssp", "--graph", "random64-d2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("lanes", [2, 4, 32])
def test_zero_weight_components_hold_every_zero_weight_arc_once(lanes):
    rng = np.random.default_rng(lanes)
    n = 200
    tails, heads = rng.integers(0, n, 600), rng.integers(0, n, 600)
    graph = build_csr("z", n, tails, heads, rng.integers(0, 3, 600))
    arcs = zero_weight_arcs(graph)
    c = ZeroComponents.of(arcs, n, lanes)
    sizes = np.diff(c.start)
    assert sizes.min(initial=2) >= 2 and sizes.max(initial=0) <= lanes
    assert len(set(c.members.tolist())) == len(c.members)  # a vertex in one component at most
    small = set(c.members.tolist())
    inside = {(int(u), int(v)) for u, v in arcs if v in small}
    assert all(u in small for u, _ in inside)  # a component is closed under its arcs
    from_masks = set()
    for k in range(len(sizes)):
        members = c.members[c.start[k]:c.start[k + 1]].tolist()
        for i, v in enumerate(members):
            from_masks |= {(members[j], v) for j in range(len(members)) if c.in_masks[c.start[k] + i] >> j & 1}
    assert from_masks == inside
    assert {(int(u), int(v)) for u, v in c.big_arcs} == {(int(u), int(v)) for u, v in arcs} - inside


def test_the_transposed_graph_holds_every_arc_by_its_head():
    graph = load_graph("rmat10")
    offsets, tails, weights = transposed(graph)
    by_head = {(int(h), int(t), int(w)) for h in range(graph.n_vertices)
               for t, w in zip(tails[offsets[h]:offsets[h + 1]], weights[offsets[h]:offsets[h + 1]])}
    assert by_head == {(int(h), int(t), int(w)) for t, h, w in zip(graph.tails, graph.columns, graph.weights)}
