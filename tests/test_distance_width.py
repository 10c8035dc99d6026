"""A graph whose shortest paths may pass 32 bits is solved with 64-bit distances: its width is
found once, its references are kept as int64, the algorithms with 64-bit builds take it and an
algorithm without them (none of the shipped ones: `without_wide_builds` makes Δ-stepping one)
refuses it with one line (the GPU half: tests/gpu/test_wide_distances.py)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune import algorithms
from autotune.cli import main
from autotune.graphs import build_csr, load_graph
from autotune.gpu.compile import build_options
from autotune.reference.cache import ReferenceCache
from autotune.reference import distance_range
from autotune.reference.distance_range import NARROW, WIDE, width_for


def _chain(weight: int):
    return build_csr("chain", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([weight] * 3))


@pytest.fixture
def without_wide_builds(monkeypatch):
    """Δ-stepping as an algorithm without 64-bit builds would be (a plug-in's, or one not yet ported)."""
    monkeypatch.setattr(type(algorithms.get("delta")), "wide_distances", False)


def test_a_graph_is_wide_exactly_where_a_shortest_path_may_pass_32_bits():
    assert width_for(_chain(1000)) is NARROW
    assert width_for(_chain(2**30)) is WIDE  # 3 x 2^30 passes 2^31 - 1
    street = load_graph("grid10-w1000000-2000000", use_cache=False)  # (n - 1) x 2e6 passes, its diameter not
    assert width_for(street) is NARROW
    heavy = load_graph("grid10-w100000000-200000000", use_cache=False)
    assert width_for(heavy) is WIDE and distance_range._widths.get(heavy) is WIDE  # found once, then remembered


def test_a_wide_graphs_references_are_kept_exact_in_64_bits_and_read_back(tmp_path):
    graph = _chain(2**31 - 1)
    cache = ReferenceCache(tmp_path)
    row = cache.distances(graph, [1])[1]
    assert row.dtype == np.int64 and row.tolist() == [WIDE.inf, 0, 2**31 - 1, 2**32 - 2]
    again = ReferenceCache(tmp_path).distances(graph, [1])[1]  # read from disk, not computed
    assert again.dtype == np.int64 and np.array_equal(again, row)


def test_parallel_references_of_a_wide_graph_equal_scipys(tmp_path):
    from autotune.reference.oracle import reference_distances

    heavy = load_graph("grid15-w100000000-200000000", use_cache=False)  # past PARALLEL_EDGES: forked workers
    rows = ReferenceCache(tmp_path).distances(heavy, [0, 7])
    want = reference_distances(heavy, [0, 7])
    assert int(want.max()) > 2**31  # the test would not tell a wrapped row otherwise
    for k, source in enumerate((0, 7)):
        assert rows[source].dtype == np.int64
        assert np.array_equal(rows[source], np.where(want[k] < 0, WIDE.inf, want[k]))


def test_every_algorithm_has_64_bit_builds_and_one_without_would_refuse_a_wide_graph(monkeypatch):
    wide, narrow = _chain(2**30), _chain(10)
    for algorithm in algorithms.all_algorithms():
        assert algorithm.wide_distances and algorithm.refuses_width(narrow) is None
        assert algorithm.refuses_width(wide) is None
        assert algorithm.admits(wide) is None or "32 bits" not in algorithm.admits(wide)  # phast: no hierarchy kept
        assert "-DWIDE_DISTANCES=1" in build_options(algorithm, True, wide=True)
        assert "-DWIDE_DISTANCES=1" not in build_options(algorithm, False)
    delta = algorithms.get("delta")
    monkeypatch.setattr(type(delta), "wide_distances", False)
    why = delta.refuses_width(wide)
    assert "32 bits" in why and delta.admits(wide) == why and delta.refuses_width(narrow) is None


def test_the_cpu_oracles_rows_take_the_graphs_width():
    from autotune.many.work import OracleSolver

    rows = OracleSolver(_chain(2**31 - 1)).solve(None, [0, 3]).distances
    assert rows.dtype == np.int64 and rows.tolist() == [[0, 2**31 - 1, 2**32 - 2, 3 * (2**31 - 1)],
                                                        [WIDE.inf] * 3 + [0]]
    assert OracleSolver(_chain(5)).solve(None, [0]).distances.dtype == np.int32


def test_many_sources_with_an_algorithm_without_64_bit_builds_are_refused_in_one_line(tmp_path, capsys,
                                                                                       without_wide_builds):
    wide = tmp_path / "wide.gr"  # 1 -> 4 is 2,500,000,002 long
    wide.write_text("p sp 4 3\na 1 2 1500000000\na 2 3 1000000000\na 3 4 2\n")
    assert main(["sssp", "--graph", str(wide), "--sources", "all", "--algorithm", "delta"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "delta cannot solve it" in err and "32 bits" in err


def test_a_table_answers_a_wide_graph_it_never_saw_with_an_algorithm_of_64_bit_builds(without_wide_builds):
    from autotune.table.lookup import Table

    table = Table.load("tables/h200.json")
    heavy = load_graph("grid12-w100000000-200000000", use_cache=False)
    light = load_graph("grid12", use_cache=False)
    passed_over = 0
    for queries in (1, 1024):
        narrow = table.lookup(light, device=None, queries=queries)
        found = table.lookup(heavy, device=None, queries=queries)
        assert found.source == "model" and algorithms.get(found.config.algorithm).wide_distances
        if not algorithms.get(narrow.config.algorithm).wide_distances:  # the tree's pick, passed over
            assert f"{narrow.config.algorithm} holds distances in 32 bits" in found.reason
            passed_over += 1
    assert passed_over  # one query of the grid is Δ-stepping's


def test_a_wide_graphs_entry_says_its_width_and_its_memory_counts_the_wider_rows():
    from autotune.search.run.specials import graph_info

    crauser = algorithms.get("crauser")
    assert crauser.memory_bytes(1000, 4000, 8, wide=True) - crauser.memory_bytes(1000, 4000, 8) == 8 * (4 * 1000 + 8)
    assert crauser.instances_that_fit(10**6, 4 * 10**6, 2**30, wide=True) < crauser.instances_that_fit(
        10**6, 4 * 10**6, 2**30)
    assert graph_info(_chain(2**30)).distance_bits == 64 and graph_info(_chain(10)).distance_bits == 32
    assert "distance_bits" not in graph_info(_chain(2**30)).to_json()  # the entry's, as x-distance_bits


def test_a_sweep_naming_an_algorithm_without_64_bit_builds_is_refused_before_the_gpu(capsys, without_wide_builds):
    assert main(["sweep", "--graph", "grid10-w100000000-200000000", "--algorithm", "delta", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "delta cannot solve it" in err and "64-bit builds" in err


def test_predict_answers_a_wide_graph_with_an_algorithm_of_64_bit_builds_and_refuses_one_without(
        capsys, without_wide_builds):
    import json

    spec = "grid10-w100000000-200000000"
    for queries in ("1", "1024"):
        assert main(["predict", "--graph", spec, "--algorithm", "auto", "--device", "hopper-h200", "--queries",
                     queries, "--no-hierarchy", "--json"]) == 0
        (entry,) = json.loads(capsys.readouterr().out)["entries"]
        assert algorithms.get(entry["predicted"]["config"]["algorithm"]).wide_distances
    assert main(["predict", "--graph", spec, "--algorithm", "delta", "--device", "hopper-h200"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--algorithm delta" in err and "32 bits" in err


def test_graph_info_says_the_width_of_a_graphs_distances(capsys):
    import json

    assert main(["graph", "info", "grid10-w100000000-200000000"]) == 0
    assert "distances         64-bit (a shortest path may pass 2^31 - 1" in capsys.readouterr().out
    assert main(["graph", "info", "grid10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["distance_bits"] == 32


def test_sssp_says_where_it_solved_with_64_bit_distances(capsys):
    from autotune.cli.sssp_gpu import _render
    from autotune.measure import Measurement, Status

    config = algorithms.get("crauser").default_config()
    measured = Measurement(config, Status.OK, times_ms=(1.0,), edges=3, iterations=4.0, launch_share=0.1)
    _render(_chain(2**30), {"name": "GPU"}, "crauser", measured, [4], 64)
    out = capsys.readouterr().out  # a table rich wraps to the terminal's width
    assert "distances" in out and "64-bit (a shortest path" in out
    _render(_chain(10), {"name": "GPU"}, "crauser", measured, [4])
    assert "64-bit" not in capsys.readouterr().out


def test_every_algorithms_cpu_solver_is_exact_past_32_bits():
    """The CPU solvers (and PHAST's level sweeps on the hierarchy) hold distances in 64 bits: on a
    grid whose weights reach 2^31 - 1 none wraps."""
    from autotune.reference import reference_distances

    graph = load_graph("grid8-w1000000000-2147483647", use_cache=False)
    want = reference_distances(graph, [0, 37])
    assert width_for(graph) is WIDE and want.max() > 2**35
    for algorithm in algorithms.all_algorithms():
        got = np.stack([algorithm.solve_cpu(graph, s).distances for s in (0, 37)])
        assert np.array_equal(got, want), algorithm.name


def test_every_parameters_values_fit_the_kernels_ints_on_a_graph_of_weights_near_2_31():
    """The values derived from the weights (Delta, defer_work) stop where the kernels' ints do: a
    sweep of rmat16 with weights to 2e9 died at its first grid when defer_work passed int32."""
    from autotune.model.features import GraphFeatures

    graph = load_graph("rmat10", weights="1000000000-2000000000", use_cache=False)
    features = GraphFeatures.from_graph(graph)
    for algorithm in algorithms.all_algorithms():
        for parameter in algorithm.parameters:
            ints = [v for v in parameter.domain(features) if isinstance(v, int)]
            assert all(0 <= v < 2**31 for v in ints), (algorithm.name, parameter.name, ints)
