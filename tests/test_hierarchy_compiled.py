"""The compiled contraction (issue 64): the hierarchies it builds give Dijkstra's distances by
PHAST's level sweeps, as the Python contraction's do; it refuses what the Python contraction
refuses; and where no compiler is found the Python contraction builds, with a warning."""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from autotune.graphs import build_csr, load_graph
from autotune.hierarchy import Hierarchy, Unsuited, level_sweeps
from autotune.hierarchy import compiled, contraction, locality
from autotune.hierarchy.contraction import contract, contract_python
from autotune.reference.cache import INF
from autotune.reference.oracle import reference_distances
from test_phast_registry import random_sparse  # the same small graphs as the Python contraction's tests

pytestmark = pytest.mark.skipif(compiled.compiler() is None, reason="no C++ compiler on this machine")


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    """One build of the compiled contraction for this module's tests (a directory a test had cost a
    compiler's run each: most of this module's time)."""
    return tmp_path_factory.mktemp("cache") / "build"  # where a cache directory's builds go


def _sweeps_are_dijkstra(graph, built) -> None:
    h = Hierarchy.from_contraction(*built)
    h.check(graph.n_vertices)
    sources = sorted({0, graph.n_vertices // 3, graph.n_vertices - 1})
    for source, row in zip(sources, reference_distances(graph, sources)):
        got, steps = level_sweeps(h, source)
        assert np.array_equal(got, np.where(row < 0, INF, row)), source
        assert steps <= 2 * h.levels


@pytest.mark.parametrize("graph", [random_sparse(400, 1), random_sparse(150, 2), "tests/data/rome99.gr.gz"])
def test_the_compiled_hierarchy_gives_dijkstra_s_distances(graph, build_dir):
    graph = load_graph(graph) if isinstance(graph, str) else graph
    _sweeps_are_dijkstra(graph, contract(graph, directory=build_dir))
    assert list(build_dir.glob("contract-*.so"))  # built once, kept by the source's digest


def test_compiled_and_python_contractions_agree_on_rome99(build_dir):
    """The same procedure, the same order: every vertex's rank and level, though the compiled one
    renumbers the uncontracted part as it shrinks (3,353 vertices: at 1,676, 838 and 419 left)."""
    graph = load_graph("tests/data/rome99.gr.gz")
    built, by_python = contract(graph, directory=build_dir, locality=False), contract_python(graph)
    assert np.array_equal(built[0], by_python[0]) and np.array_equal(built[1], by_python[1])
    ours, python = Hierarchy.from_contraction(*built), Hierarchy.from_contraction(*by_python)
    assert ours.levels == python.levels and ours.n_arcs == python.n_arcs


def test_the_lazy_update_s_slack_reaches_both_contractions(monkeypatch, build_dir):
    """`LAZY_SLACK` 0 (a vertex computed again goes back whenever it passes the next key, as before
    v7) gives another order, the same in both contractions."""
    graph = load_graph("tests/data/rome99.gr.gz")
    with_slack = contract(graph, directory=build_dir, locality=False)
    monkeypatch.setattr(contraction, "LAZY_SLACK", 0.0)
    built, by_python = contract(graph, directory=build_dir, locality=False), contract_python(graph)
    assert not np.array_equal(with_slack[0], built[0]) and np.array_equal(built[0], by_python[0])
    _sweeps_are_dijkstra(graph, built)


def test_compiled_and_python_contractions_refuse_a_densifying_core_alike(build_dir):
    graph = load_graph("random1000-d3")
    reasons = []
    for build in (lambda: contract(graph, directory=build_dir, locality=False), lambda: contract_python(graph)):
        with pytest.raises(Unsuited, match="densified it") as refused:
            build()
        reasons.append(str(refused.value))
    assert reasons[0] == reasons[1]  # the same vertices left, the same arcs


def _mesh3d(k: int):
    """A k x k x k mesh, each vertex joined to its six neighbours (weights 1..100, both ways alike)."""
    index = np.arange(k**3).reshape(k, k, k)
    tails = np.concatenate([np.take(index, range(k - 1), axis=a).ravel() for a in range(3)])
    heads = np.concatenate([np.take(index, range(1, k), axis=a).ravel() for a in range(3)])
    weights = np.random.default_rng(0).integers(1, 101, len(tails))
    return build_csr(f"mesh3d{k}", k**3, tails, heads, weights, undirected=True)


def test_a_3d_mesh_is_refused_by_its_contraction_s_cost_early_alike_and_a_2d_grid_is_not(monkeypatch, build_dir):
    monkeypatch.setattr(contraction, "WORK_FLOOR", 0)  # the small graphs' cost, as a large one's
    mesh = _mesh3d(14)  # 12^3 contracts within the bound since a vertex put back is taken with some slack (v7)
    reasons = []
    for build in (lambda: contract(mesh, directory=build_dir, locality=False), lambda: contract_python(mesh)):
        with pytest.raises(Unsuited, match="witness searches scanned .* since the first estimates") as refused:
            build()
        reasons.append(str(refused.value))
    assert reasons[0] == reasons[1]
    left = int(reasons[0].split(" with ")[1].split(" of ")[0].replace(",", ""))
    assert left > mesh.n_vertices // 5  # refused while more than a fifth of it was left
    grid = load_graph("grid12", use_cache=False)
    _sweeps_are_dijkstra(grid, contract(grid, directory=build_dir))


def test_a_graph_whose_first_estimates_would_cost_too_much_is_refused_from_a_sample_alike(monkeypatch, build_dir):
    monkeypatch.setattr(contraction, "WORK_FLOOR", 0)  # the small graphs' cost, as a large one's
    monkeypatch.setattr(contraction, "SAMPLE", 64)
    graph = load_graph("random2048-d8", use_cache=False)  # a random graph of 4M vertices and mean degree 16 took
    reasons = []                                           # minutes of estimates before this refusal
    for build in (lambda: contract(graph, directory=build_dir, locality=False), lambda: contract_python(graph)):
        with pytest.raises(Unsuited, match=r"first estimates alone would scan about [\d,]+ arcs per arc of the graph, "
                                           r"more than 300, foreseen from 64 vertices") as refused:
            build()
        reasons.append(str(refused.value))
    assert reasons[0] == reasons[1]
    monkeypatch.setattr(contraction, "FIRST_WORK", 10**6)  # the estimates go on; the graph is refused later
    with pytest.raises(Unsuited) as later:
        contract(graph, directory=build_dir, locality=False)
    assert "first estimates" not in str(later.value)


def test_a_graph_whose_ids_scatter_neighbours_is_contracted_renumbered_and_answered_in_its_own_ids(build_dir):
    grid = load_graph("grid12", use_cache=False)
    assert locality.locality_order(grid) is None  # rows of 64: every arc joins ids at most 64 apart
    shuffled = np.random.default_rng(1).permutation(grid.n_vertices)
    scattered = build_csr("scattered", grid.n_vertices, shuffled[grid.tails], shuffled[grid.columns], grid.weights)
    order = locality.locality_order(scattered)
    assert sorted(order.tolist()) == list(range(grid.n_vertices))
    _sweeps_are_dijkstra(scattered, contract(scattered, directory=build_dir))
    assert locality.locality_order(load_graph("tests/data/usa-roads.gr.gz")) is None  # its own order kept


def test_a_symmetric_graph_needs_no_shortcut_one_way_only(build_dir):
    graph = load_graph("grid10")  # a road-like grid: every arc's reverse of its weight
    rank, level, tails, heads, weights = contract(graph, directory=build_dir)
    arcs = dict(zip(zip(tails.tolist(), heads.tolist()), weights.tolist()))
    assert all(arcs.get((v, u)) == w for (u, v), w in arcs.items())
    _sweeps_are_dijkstra(graph, (rank, level, tails, heads, weights))


def test_the_compiled_contraction_refuses_what_densifies(build_dir):
    star = build_csr("star", 40, np.arange(1, 40), np.zeros(39, np.int64), np.ones(39, np.int64))
    clique = build_csr("clique", 30, *np.array([(u, v) for u in range(30) for v in range(30) if u != v]).T,
                       np.ones(870, np.int64))
    with pytest.raises(Unsuited, match="grew past 0.5 x its"):
        contract(random_sparse(400, 1), max_growth=0.5, directory=build_dir)
    with pytest.raises(Unsuited, match="densified it"):
        from autotune.hierarchy import contraction

        old = contraction.MAX_PAIRS
        try:
            contraction.MAX_PAIRS = 10
            contract(clique, directory=build_dir)
        finally:
            contraction.MAX_PAIRS = old
    assert contract(star, directory=build_dir)[0].shape == (40,)


def test_progress_is_reported_and_a_missing_compiler_falls_back_with_a_warning(tmp_path, monkeypatch, capsys,
                                                                               build_dir):
    graph = load_graph("grid14", use_cache=False)  # a road-like grid of 16,384 vertices
    seen = []
    _sweeps_are_dijkstra(graph, contract(graph, directory=build_dir, progress=lambda done, n: seen.append((done, n))))
    estimating = (16384 - contraction.SAMPLE) // 256  # a call every 256 first estimates, the sample's first
    assert seen[:estimating + 2] == [(0, 16384)] * estimating + [(256, 16384), (512, 16384)]
    compiled.load.cache_clear()
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    built = contract(random_sparse(150, 2), directory=tmp_path / "other")
    compiled.load.cache_clear()
    err = capsys.readouterr().err
    assert "could not build the contraction" in err and "contracting sparse in Python instead (slow)" in err
    _sweeps_are_dijkstra(random_sparse(150, 2), built)


def test_a_long_build_says_where_it_is_every_few_seconds_its_first_estimates_included():
    import io

    from autotune.hierarchy.build import timed_progress

    times, out = iter([0.0, 4.0, 11.0, 15.0, 22.0]), io.StringIO()
    progress = timed_progress("g", out, clock=lambda: next(times), every_s=10.0)
    for done in (0, 0, 0, 256):
        progress(done, 16384)
    assert out.getvalue().splitlines() == ["g: estimating the importance of its 16,384 vertices (11 s)",
                                           "g: 256 of 16,384 vertices contracted (22 s)"]


@pytest.mark.parametrize("compiled_build", [True, False])
def test_a_build_past_its_time_limit_stops_says_so_and_keeps_nothing(compiled_build, tmp_path, monkeypatch):
    """A sweep gives the hierarchy a share of its budget (grid22's, 189 s on the H200's host, took a
    110 s budget whole and left the sweep nothing to measure): the build stops there, says where it
    was and how to build it without a limit, and keeps neither a hierarchy nor a verdict."""
    import io

    from autotune.hierarchy import HierarchyStore, Stopped
    from autotune.hierarchy.build import build_kept

    graph = load_graph("grid14", use_cache=False)
    if not compiled_build:
        monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
        compiled.load.cache_clear()
    try:
        with pytest.raises(Stopped):
            contract(graph, directory=tmp_path / "build", progress=lambda done, n: done >= 512)
        # a second a call while it estimates (it ends at about 64 s: within the limit's half), then ten
        ticks = itertools.chain((float(t) for t in range(70)), (70.0 + 10 * t for t in range(10**6)))
        store, out = HierarchyStore(tmp_path / "kept"), io.StringIO()
        assert build_kept(store, graph, out, clock=lambda: next(ticks), within_s=140.0,
                          limit_is="its share of the sweep's budget") is None
    finally:
        compiled.load.cache_clear()
    last = out.getvalue().splitlines()[-1]
    assert "contraction hierarchy stopped after" in last and "its share of the sweep's budget" in last
    assert "`autotune graph hierarchy grid14` builds and keeps it without a limit" in last
    assert " of 16,384 vertices contracted" in last and "foreseen" not in last
    assert not store.kept(graph) and store.refusal(graph) is None


def test_a_build_whose_first_estimates_foresee_it_past_its_limit_stops_at_once(tmp_path):
    """grid24's estimates alone took 65 s of the 82 s its sweep gave the build (d3bc23d); a build takes
    at least twice its estimates (`build.BUILD_OVER_ESTIMATES`): foreseen once 5% of them are made."""
    import io

    from autotune.hierarchy import HierarchyStore
    from autotune.hierarchy.build import build_kept

    graph = load_graph("grid14", use_cache=False)
    ticks = iter(float(t) for t in range(10**6))  # a second a call: the 16,384 estimates end at about 64 s
    store, out = HierarchyStore(tmp_path / "kept"), io.StringIO()
    assert build_kept(store, graph, out, clock=lambda: next(ticks), within_s=100.0,
                      limit_is="its share of the sweep's budget") is None
    last = out.getvalue().splitlines()[-1]
    assert "s, foreseen past its share of the sweep's budget (its importance " \
           "estimates would end at 6" in last and "at least 2 times as long" in last
    assert not store.kept(graph) and store.refusal(graph) is None


@pytest.mark.parametrize("graph", [random_sparse(400, 1), random_sparse(150, 2), "tests/data/rome99.gr.gz", "grid12"])
def test_the_contraction_in_rounds_gives_dijkstra_s_distances_and_one_hierarchy_for_any_number_of_threads(
        graph, build_dir):
    graph = load_graph(graph, use_cache=False) if isinstance(graph, str) else graph
    alone, on_three = (contract(graph, directory=build_dir, rounds=threads) for threads in (1, 3))
    assert all(np.array_equal(a, b) for a, b in zip(alone, on_three))
    _sweeps_are_dijkstra(graph, on_three)
    in_order = contract(graph, directory=build_dir, rounds=0)
    assert not all(np.array_equal(a, b) for a, b in zip(alone, in_order))  # another procedure: not the order's


def test_the_contraction_in_rounds_refuses_what_the_contraction_in_order_refuses(monkeypatch, build_dir):
    with pytest.raises(Unsuited, match="densified it"):
        contract(load_graph("random1000-d3"), directory=build_dir, locality=False, rounds=2)
    with pytest.raises(Unsuited, match="grew past 0.5 x its"):
        contract(random_sparse(400, 1), max_growth=0.5, directory=build_dir, rounds=2)
    monkeypatch.setattr(contraction, "WORK_FLOOR", 0)  # the small graphs' cost, as a large one's
    with pytest.raises(Unsuited, match="witness searches scanned .* since the first estimates"):
        # (12^3 contracts in rounds within the bound: a vertex within a level's weight of its neighbours' keys is
        # taken, so fewer of its searches are done again)
        contract(_mesh3d(14), directory=build_dir, locality=False, rounds=2)
    monkeypatch.setattr(contraction, "SAMPLE", 64)
    with pytest.raises(Unsuited, match="first estimates alone would scan"):
        contract(load_graph("random2048-d8", use_cache=False), directory=build_dir, locality=False, rounds=2)


def test_the_contraction_in_rounds_reports_progress_and_stops_when_asked(build_dir):
    from autotune.hierarchy import Stopped

    graph, seen = load_graph("grid14", use_cache=False), []
    _sweeps_are_dijkstra(graph, contract(graph, directory=build_dir, rounds=2,
                                         progress=lambda done, n: seen.append((done, n))))
    estimating = [done for done, _ in seen if done == 0]
    contracted = [done for done, _ in seen if done > 0]
    assert len(estimating) == (16384 - contraction.SAMPLE) // 256  # one a 256 first estimates, the sample's first
    assert contracted == sorted(contracted) and contracted[-1] > 16384 // 2
    with pytest.raises(Stopped):
        contract(graph, directory=build_dir, rounds=2, progress=lambda done, n: done >= 512)


def test_only_a_large_graph_contracts_in_rounds_on_every_core_it_may_use_one_included():
    from types import SimpleNamespace

    from autotune.hierarchy.rounds import MAX_THREADS, ROUNDS_FROM, rounds_for

    large, small = SimpleNamespace(n_vertices=ROUNDS_FROM), SimpleNamespace(n_vertices=ROUNDS_FROM - 1)
    assert rounds_for(large, cores=8) == 8 and rounds_for(large, cores=4 * MAX_THREADS) == MAX_THREADS
    assert rounds_for(large, cores=1) == 1 and rounds_for(small, cores=16) == 0  # one core: rounds, one thread
    cores = len(os.sched_getaffinity(0))
    assert rounds_for(large) == min(cores, MAX_THREADS)


def test_a_build_beside_a_sweep_leaves_it_cores_and_stops_when_the_sweep_ends(tmp_path, monkeypatch):
    """Stopped by the sweep's end, not by its limit: nothing kept, not even the limit, and said so."""
    import io
    import threading

    from autotune.hierarchy import HierarchyStore, build

    graph, cores = load_graph("grid14", use_cache=False), []
    store, out, ended = HierarchyStore(tmp_path / "kept"), io.StringIO(), threading.Event()
    hierarchy = store.hierarchy
    monkeypatch.setattr(build, "usable_cores", lambda: 16)

    def stopping(graph, progress, given=None):
        cores.append(given)
        ended.set()
        return hierarchy(graph, progress, given)

    monkeypatch.setattr(store, "hierarchy", stopping)
    assert build.build_kept(store, graph, out, within_s=140.0, beside=ended) is None
    assert cores == [16 - build.CORES_LEFT]
    last = out.getvalue().splitlines()[-1]
    assert "contraction hierarchy stopped after" in last and "the sweep ended first" in last
    assert not store.kept(graph) and store.stopped_within(graph) is None and store.refusal(graph) is None


def test_a_build_stopped_at_its_limit_is_not_tried_again_under_no_longer_one(tmp_path):
    """A sweep's build that stopped at its share (grid24's in rounds, past its 82.5 s) would stop again in the next
    sweep of the same budget: it is not tried again under a limit no longer, and is built without one."""
    import io

    from autotune.hierarchy import HierarchyStore
    from autotune.hierarchy.build import build_kept

    graph = load_graph("grid14", use_cache=False)
    store, out = HierarchyStore(tmp_path / "kept"), io.StringIO()
    ticks = itertools.chain((float(t) for t in range(70)), (70.0 + 10 * t for t in range(10**6)))
    assert build_kept(store, graph, out, clock=lambda: next(ticks), within_s=140.0) is None
    assert store.stopped_within(graph) == 140.0 and not store.kept(graph) and store.refusal(graph) is None
    again = io.StringIO()
    assert build_kept(store, graph, again, clock=lambda: 0.0, within_s=100.0) is None
    assert again.getvalue().splitlines() == [
        "autotune: grid14: contraction hierarchy not built: an earlier build stopped at its limit of 140 s, and this "
        "one's is 100 s (`autotune graph hierarchy grid14` builds and keeps it without a limit)"]
    assert build_kept(store, graph, io.StringIO(), within_s=None) is not None
    assert store.kept(graph) and store.stopped_within(graph) is None


@pytest.mark.parametrize("rounds", [0, 3])
def test_a_core_that_densifies_late_is_contracted_dense_and_gives_dijkstra_s_distances(rounds, monkeypatch,
                                                                                       build_dir):
    """grid16's uncontracted part, allowed 700 pairs of neighbours a vertex, densifies with at most a
    64th of it left (in order, 263 vertices; 600 pairs: 1,287, refused): those are contracted at once
    (core.hpp), in order and in rounds (the same for one thread as for three); with no dense core
    allowed it is refused."""
    graph = load_graph("grid16", use_cache=False)
    monkeypatch.setattr(contraction, "MAX_PAIRS", 700)
    seen = []
    built = contract(graph, directory=build_dir, rounds=rounds, progress=lambda done, n: seen.append(done))
    _sweeps_are_dijkstra(graph, built)
    assert seen[-1] > graph.n_vertices - graph.n_vertices // 64  # the core's steps report too
    if rounds:
        assert all(np.array_equal(a, b) for a, b in zip(built, contract(graph, directory=build_dir, rounds=1)))
    monkeypatch.setattr(contraction, "DENSE_CORE", 0)
    with pytest.raises(Unsuited, match="densified it"):
        contract(graph, directory=build_dir, rounds=rounds)


@pytest.mark.parametrize("graph", [random_sparse(400, 1), "tests/data/rome99.gr.gz", "grid12"])
def test_the_compiled_layout_is_numpy_s(graph, monkeypatch, build_dir):
    from dataclasses import fields

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(build_dir.parent))  # the layout's build: the contraction's
    graph = load_graph(graph, use_cache=False) if isinstance(graph, str) else graph
    built = contract(graph, directory=build_dir)
    numpy_s = Hierarchy.laid_out(*built)
    for threads in (1, 3):  # each arc's place taken on several threads, each vertex's arcs put back in their order
        ours = Hierarchy.from_contraction(*built, threads=threads)
        for f in fields(Hierarchy):
            a, b = getattr(ours, f.name), getattr(numpy_s, f.name)
            assert a.dtype == b.dtype and np.array_equal(a, b), (f.name, threads)
    assert compiled.layout_compiled(np.zeros(2, np.int64), *built[1:], build_dir) is None  # ranks not a permutation


def test_every_header_the_contraction_includes_is_in_its_build_s_digest():
    import re

    included = {name for path in (compiled.SOURCE, *compiled.HEADERS)
                for name in re.findall(r'#include "([^"]+)"', path.read_text())}
    assert included == {path.name for path in compiled.HEADERS}
