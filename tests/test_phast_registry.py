"""PHAST without a GPU: the contraction hierarchy (exact distances by the level sweeps, zero weights
and unreachable vertices included, no arc within a level), what gets none, the store that keeps
both, and the registry value (canonical form, domains, the model's configuration)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import build_csr, load_graph
from autotune.algorithms.phast.engine import block_levels
from autotune.hierarchy.store import VERSION, default_directory
from autotune.hierarchy import Hierarchy, HierarchyStore, Unsuited, contract, level_sweeps
from autotune.model import GraphFeatures, load_device
from autotune.reference.cache import INF
from autotune.reference.oracle import reference_distances

PHAST = algorithms.get("phast")
DATA = "tests/data"


def random_sparse(n: int, seed: int):
    """Both directions of a random tree plus a few chords, weights 0 to 20, and a vertex that no arc
    reaches (n - 1)."""
    rng = np.random.default_rng(seed)
    parents = np.array([rng.integers(0, v) for v in range(1, n - 1)])
    chords = rng.integers(0, n - 1, (n // 4, 2))
    tails = np.concatenate([np.arange(1, n - 1), parents, chords[:, 0]])
    heads = np.concatenate([parents, np.arange(1, n - 1), chords[:, 1]])
    return build_csr("sparse", n, tails, heads, rng.integers(0, 21, len(tails)))


@pytest.mark.parametrize("graph", [random_sparse(400, 1), random_sparse(150, 2), "rome99"])
def test_the_level_sweeps_give_dijkstra_s_distances(graph):
    graph = load_graph(f"{DATA}/rome99.gr.gz") if graph == "rome99" else graph
    h = Hierarchy.from_contraction(*contract(graph))
    level_of = h.level_of()
    for lower, higher in ((np.repeat(np.arange(h.n_vertices), np.diff(h.up_offsets)), h.up_heads),
                          (np.repeat(np.arange(h.n_vertices), np.diff(h.down_offsets)), h.down_tails)):
        assert np.all(level_of[lower] > level_of[higher])  # every arc joins two levels (indices count from the top)
    sources = [0, 5, graph.n_vertices - 1]
    expected = reference_distances(graph, sources)
    for source, row in zip(sources, expected):
        got, steps = level_sweeps(h, source)
        assert np.array_equal(got, np.where(row < 0, INF, row))
        assert steps <= 2 * h.levels


def test_one_vertex_and_no_arc():
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    h = Hierarchy.from_contraction(*contract(single))
    assert h.levels == 1 and level_sweeps(h, 0)[0].tolist() == [0]


def test_hubs_and_densifying_graphs_get_none():
    with pytest.raises(Unsuited, match="1337 arcs"):
        contract(load_graph("rmat12"))
    # a sparse random graph: its uncontracted part outgrows 1.25 x its arcs (the early refusal)
    with pytest.raises(Unsuited, match=r"densified it \(its \d+ of 1000 vertices left held \d+ arcs"):
        contract(load_graph("random1000-d3"))


def test_the_store_keeps_hierarchies_and_refusals(tmp_path):
    store = HierarchyStore(tmp_path)
    graph = random_sparse(100, 3)
    first = store.hierarchy(graph)
    again = HierarchyStore(tmp_path)
    assert np.array_equal(again.hierarchy(graph).level_start, first.level_start) and again.built == 0
    with pytest.raises(Unsuited):
        store.hierarchy(load_graph("rmat12"))
    assert len(list(tmp_path.glob("*.unsuited"))) == 1
    with pytest.raises(Unsuited, match="1337"):
        HierarchyStore(tmp_path).hierarchy(load_graph("rmat12"))


@pytest.mark.parametrize("damage", ["torn", "other graph"])
def test_a_corrupt_kept_hierarchy_is_built_again_with_a_note(tmp_path, damage, capsys):
    graph = random_sparse(100, 3)
    first = HierarchyStore(tmp_path).hierarchy(graph)
    [kept] = tmp_path.glob("*.npz")
    if damage == "torn":
        kept.write_bytes(kept.read_bytes()[:100])
    else:  # a whole hierarchy, of another graph, under this graph's name
        kept.write_bytes(HierarchyStore(tmp_path / "other").hierarchy(random_sparse(60, 3)).to_bytes())
    store = HierarchyStore(tmp_path)
    capsys.readouterr()
    again = store.hierarchy(graph)
    assert store.built == 1 and np.array_equal(again.level_start, first.level_start)
    err = capsys.readouterr().err
    assert "building it again" in err and ("not a hierarchy file" in err or "60 vertices" in err)


def test_the_last_hierarchy_is_kept_in_the_process_while_its_file_is_unchanged(tmp_path, monkeypatch):
    import os

    graph = random_sparse(100, 3)
    built = HierarchyStore(tmp_path).hierarchy(graph)
    with monkeypatch.context() as patched:
        patched.setattr(Hierarchy, "from_file", classmethod(lambda cls, *args, **kw: pytest.fail("read again")))
        assert HierarchyStore(tmp_path).hierarchy(graph) is built  # a sweep's timers each open it
    [kept] = tmp_path.glob("*.npz")
    os.utime(kept, ns=(0, 0))  # the file changed: read again
    read = HierarchyStore(tmp_path).hierarchy(graph)
    assert read is not built and np.array_equal(read.up_heads, built.up_heads)


def test_the_cpu_reference_reads_the_kept_hierarchy(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    graph = random_sparse(120, 4)
    result = PHAST.solve_cpu(graph, 0)
    assert np.array_equal(result.distances, reference_distances(graph, [0])[0])
    assert list((tmp_path / "graphs" / "hierarchies" / VERSION).glob("*.npz"))  # in the cache directory, versioned
    with pytest.raises(InputError, match="no contraction hierarchy"):
        PHAST.solve_cpu(load_graph("rmat12"), 0)


def test_shared_distances_put_every_level_on_the_block():
    config = PHAST.uniform(1024, params={"distances": "shared", "gpu_levels": 4096})
    assert config.param("gpu_levels") == "off"
    assert PHAST.parameter("distances").domain(GraphFeatures("big", 87575, 242982)) == ("global",)
    assert block_levels(np.array([0, 1, 2, 50, 5000]), 1024) == 3
    assert block_levels(np.array([0, 1, 2, 50, 5000]), 8192) == 4


def test_the_model_predicts_batches_and_shared_distances_for_one_query_only_where_they_fit():
    from autotune.algorithms.phast.rules import one_query
    from autotune.search.space import SearchSpace

    device = load_device("hopper-h100")
    rome, roads = GraphFeatures("rome", 3353, 8859, max_degree=5), GraphFeatures("roads", 87575, 242982, max_degree=6)
    small, large = (one_query(g, device, PHAST.characterization, PHAST) for g in (rome, roads))
    assert PHAST.validate(small.config).param("distances") == "shared"
    assert (large.config.param("distances"), large.config.param("gpu_levels")) == ("global", 1024)
    # 128 KB of distances fit a block, but 32,768 vertices' bottom levels go faster over the GPU
    fits = one_query(GraphFeatures("rgg", 32768, 320480, max_degree=20), device, PHAST.characterization, PHAST)
    assert fits.config.param("distances") == "global"
    assert set(large.rules()) >= {"distances", "gpu_levels", "sweep.block_size"}
    batch = PHAST.predict(roads, device)
    assert (batch.config.concurrent_kernels, batch.config.param("distances")) == (1024, "global")
    space = SearchSpace("phast", params={"distances": PHAST.parameter("distances").domain(roads)})
    assert [c.param("distances") for c in PHAST.latency_design(space)] == ["global"]
    assert {c.concurrent_kernels for c in PHAST.latency_design(SearchSpace("phast"))} == {1}


def test_the_batch_sweep_block_keeps_the_most_threads_resident_nearest_the_constant():
    device = load_device("hopper-h100")

    def batch(n: int):
        prediction = PHAST.predict(GraphFeatures(f"g{n}", n, 3 * n, max_degree=6), device)
        return prediction.config.param("distances"), prediction.config.kernel("sweep").block_size

    # small distances: many blocks an SM, the registers cap an SM at 1,152 threads: 288 of them (4 blocks)
    assert batch(3353) == ("shared", 288)
    # 62 KB of distances leave 3 blocks an SM: 384 (3 x 384), not 288 (3 x 288)
    assert batch(15606) == ("shared", 384)
    # 128 KB leave one block an SM: the largest block, not 288 threads alone
    assert batch(32768) == ("shared", 1024)
    assert batch(87575) == ("global", 384)


def test_auto_tunes_phast_where_the_hierarchy_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    assert PHAST in algorithms.resolve("auto")
    graph = random_sparse(90, 5)
    assert "autotune graph hierarchy" in PHAST.admits(graph)
    HierarchyStore(default_directory()).hierarchy(graph)
    assert PHAST.admits(graph) is None
    assert "1337 arcs" in PHAST.admits(load_graph("rmat12"))


def test_graph_hierarchy_builds_once_and_refuses_hubs(tmp_path, monkeypatch, capsys):
    from autotune.cli import main

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    assert main(["graph", "hierarchy", f"{DATA}/rome99.gr.gz", "-q"]) == 0
    assert "39 levels" in capsys.readouterr().out
    assert main(["graph", "hierarchy", f"{DATA}/rome99.gr.gz"]) == 0
    assert "kept already" in capsys.readouterr().out
    assert main(["graph", "hierarchy", "rmat12"]) == 2
    assert "no contraction hierarchy" in capsys.readouterr().err


@pytest.mark.parametrize(("queries", "block", "levels"), [(1, 1024, 1024), (16, 1024, 1024), (32, 384, 4096),
                                                        (1024, 384, 4096)])  # up to 16 at once: the one-query shape
def test_predict_gives_one_query_its_own_shape(tmp_path, capsys, monkeypatch, queries, block, levels):
    from autotune import algorithms
    from autotune.cli import main
    from autotune.table.format import read_table

    def predicted(algorithm, *more):
        out = tmp_path / "p.json"
        assert main(["predict", "--graph", f"{DATA}/usa-roads.gr.gz", "--algorithm", algorithm, "--queries",
                     str(queries), "--device", "hopper-h100", "-o", str(out), *more]) == 0
        return read_table(out)["entries"][0]["predicted"]["config"]

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))  # no hierarchy kept: auto's tree
    assert predicted("auto", "--no-hierarchy")["algorithm"] != "phast"
    monkeypatch.setattr(type(algorithms.get("phast")), "admits", lambda self, graph, prepare=False: None)  # as if kept
    for algorithm in ("phast", "auto"):
        config = predicted(algorithm)
        assert config["algorithm"] == "phast" and config["kernels"]["sweep"]["block_size"] == block
        assert config["params"]["gpu_levels"] == levels and config["concurrent_kernels"] == min(queries, 1024)
    capsys.readouterr()


def test_a_choice_of_phast_falls_back_on_a_graph_with_hubs():
    from autotune.predict.auto import servable

    assert servable("phast", 1, 6) == "phast" and servable("phast", 1024, None) == "phast"
    assert servable("phast", 1, 1337) == "delta" and "1337 arcs" in PHAST.unsuited(1337)
    assert algorithms.get("delta").unsuited(10**6) is None


def test_the_staged_bytes_are_the_sweep_kernel_s_static_shared_memory():
    # Phast.staged_bytes (what the rules and the shared-distances domain leave for distances) mirrors
    # phast.cu's __shared__ arrays, which algorithms/phast/phast.toml reads from nvcc (kept up to
    # date by tests/model/test_model_refresh.py): a change to either must show here.
    phast = algorithms.get("phast")
    assert phast.staged_bytes == phast.characterization.kernel("sweep").resources.static_shared_memory_bytes


def test_predict_auto_builds_and_keeps_the_hierarchy_where_the_graph_qualifies(tmp_path, capsys, monkeypatch):
    from autotune.cli import main

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    argv = ["predict", "--graph", f"{DATA}/rome99.gr.gz", "--algorithm", "auto", "--queries", "1", "--device",
            "hopper-h100"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "rome99.gr.gz: building its contraction hierarchy" in err and "levels built in" in err
    assert len(list((tmp_path / "graphs" / "hierarchies" / VERSION).glob("*.npz"))) == 1
    assert main(argv) == 0 and "building" not in capsys.readouterr().err  # kept: not built twice
    assert main(["predict", "--graph", "rmat10", "--algorithm", "auto", "--device", "hopper-h100"]) == 0
    assert "building" not in capsys.readouterr().err  # hubs: no hierarchy is tried


def test_predict_hands_out_no_phast_configuration_for_a_graph_with_hubs(capsys):
    from autotune.cli import main

    assert main(["predict", "--algorithm", "phast", "--graph", "rmat12", "--device", "hopper-h100"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("autotune: --algorithm phast: rmat12: phast builds no hierarchy for a vertex of 1337 arcs; "
                   "predict another algorithm, or auto")


def test_the_cpu_phast_is_exact_past_32_bits(tmp_path, monkeypatch):
    """A path of arcs of 2^31 - 1: the CPU reference's distances stay exact (they wrapped negative),
    and the GPU engine, whose distances are 32-bit, would refuse such a hierarchy."""
    from autotune.graphs import build_csr

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    heavy = 2**31 - 1
    n = 6
    tails = np.array([v for v in range(n - 1)] + [v + 1 for v in range(n - 1)])
    heads = np.array([v + 1 for v in range(n - 1)] + [v for v in range(n - 1)])
    graph = build_csr("heavy-path", n, tails, heads, np.full(len(tails), heavy))
    result = PHAST.solve_cpu(graph, 0)
    assert result.distances.tolist() == [heavy * v for v in range(n)]
    assert np.array_equal(result.distances, reference_distances(graph, [0])[0])


def test_a_sweep_s_share_of_its_budget_bounds_the_hierarchy_and_auto_says_why_phast_is_out(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    graph = load_graph("grid14", use_cache=False)
    why = PHAST.admits(graph, prepare=True, within_s=0.0)
    assert why.startswith("no contraction hierarchy: its build took more than 0 s") and "autotune graph hierarchy" in why
    assert PHAST.admits(graph, prepare=True, within_s=600.0) is None  # nothing was kept: built afresh, in time


def test_a_build_beside_a_sweep_that_ended_says_so_keeps_nothing_and_has_no_limit_to_keep(tmp_path, monkeypatch):
    import threading

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    graph, ended = load_graph("grid14", use_cache=False), threading.Event()
    ended.set()
    why = PHAST.admits(graph, prepare=True, within_s=600.0, beside=ended)
    assert why.startswith("no contraction hierarchy: the sweep ended before its build") and "graph hierarchy" in why
    assert PHAST.admits(graph, prepare=True, within_s=300.0) is None  # the ended build's limit was not kept
