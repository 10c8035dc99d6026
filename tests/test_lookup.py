"""Table.lookup: a graph the table holds gets its entry, another the table's model; the header's
nearest entries (`Table.nearest`); device checks (no GPU)."""
from __future__ import annotations

import json

import pytest

from autotune import Table
from autotune.cli import main
from autotune.errors import InputError
from autotune.table.lookup import DeviceMismatch, graph_distance, same_device
from autotune.table.format import build_table, make_entry, measured, write_table
from autotune.algorithms.thesis import CRAUSER
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DEVICE = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132}


def _entry(name, n, d, config, kind="best"):
    graph = {"name": name, "vertices": n, "edges": int(n * d), "mean_degree": d, "stress_ratio": n / 270336,
             "stress_class": "low", "degree_class": "medium"}
    value = measured(config, 1.0, True) if kind == "best" else {"config": config.to_json()}
    return make_entry(graph, **{kind: value})


@pytest.fixture
def table_path(tmp_path):
    entries = [
        _entry("rmat17", 2**17, 28.4, CRAUSER.uniform(256, concurrent_kernels=64, lanes=4)),
        _entry("rmat20", 2**20, 29.9, CRAUSER.uniform(512, concurrent_kernels=32, lanes=8)),
        _entry("random98k-d2", 98304, 2.0, CRAUSER.uniform(128, concurrent_kernels=8)),
        _entry("random24k-d200", 24576, 200.0, CRAUSER.uniform(64), kind="predicted"),
    ]
    path = tmp_path / "t.json"
    write_table(path, build_table(DEVICE, entries, algorithm="crauser"))
    return path


def test_a_held_graph_gets_its_entry_and_another_the_model(table_path):
    table = Table.load(table_path)
    exact = table.lookup(vertices=2**17, mean_degree=28.4, device=DEVICE)
    assert exact.graph_name == "rmat17" and exact.distance == 0 and exact.source == "best"
    assert exact.config == CRAUSER.uniform(256, concurrent_kernels=64, lanes=4)
    # rmat19, which the table does not hold: the model (no entry has a curve to fit on: the choice
    # model shipped for the table's GPU), the nearest entry named for reference
    unseen = table.lookup(vertices=2**19, mean_degree=30, degree_cv=2.5, device=DEVICE, queries=16)
    assert unseen.source == "model" and unseen.entry is None and unseen.ms_per_sssp is None
    assert unseen.graph_name == "rmat20" and unseen.distance > 0 and unseen.config.concurrent_kernels <= 16
    assert "choice tree fitted on" in unseen.reason and "tables/h100.json" in unseen.reason
    assert table.lookup(vertices=2**17, mean_degree=3, device=DEVICE).graph_name == "random98k-d2"
    # the nearest entries' answer stays for the C header: a predicted entry is nearest here
    dense = table.nearest(vertices=30000, mean_degree=150)
    assert dense.graph_name == "random24k-d200" and dense.source == "predicted"


def test_the_model_answers_as_predict_with_the_table_for_every_power_of_two(tmp_path, capsys):
    """`predict --algorithm auto --table T` and `T.lookup` of graphs T does not hold give one
    configuration at every K from 1 to 1,024: one path (`autotune.predict.answer`)."""
    from autotune.graphs import load_graph

    table_file = ROOT / "tables" / "h200.json"
    specs = ["rmat11", "random3000-d3", "grid10"]
    table = Table.load(table_file)
    graphs = [load_graph(spec) for spec in specs]
    assert not any(table.holds(graph) for graph in graphs)
    for k in (2**i for i in range(11)):
        out = tmp_path / f"k{k}.json"
        args = ["predict", "--algorithm", "auto", "--table", str(table_file), "--queries", str(k), "--no-hierarchy",
                "-o", str(out)]
        assert main([*args, *(w for spec in specs for w in ("--graph", spec))]) == 0
        predicted = [e["predicted"]["config"] for e in json.loads(out.read_text())["entries"]]
        looked_up = [table.lookup(graph, queries=k, device=None, admits=()) for graph in graphs]
        assert {m.source for m in looked_up} == {"model"}
        assert [m.config.to_json() for m in looked_up] == predicted, k
    capsys.readouterr()


def test_a_leave_one_out_lookup_fits_the_model_without_the_graph(table_path):
    table = Table.load(ROOT / "tables" / "h200.json")
    (entry,) = [e for e in table.entries if e.name.startswith("usa-roads")]
    held = table.lookup(entry.graph.to_json(), queries=1, device=None)
    assert held.source == "curve" and held.distance == 0
    left_out = table.lookup(entry.graph.to_json(), queries=1, device=None, exclude=entry.name, admits=("phast",))
    assert left_out.source == "model" and left_out.graph_name != entry.name
    graphs = len({e.name for e in table.entries if e.curve})
    assert f"{graphs - 1} graphs" in left_out.reason and left_out.config.algorithm == "phast"  # a road: PHAST, admitted


def _graph(n, d, cv=None):
    return {"vertices": n, "mean_degree": d} | ({} if cv is None else {"degree_cv": cv})


def test_distance_is_symmetric_in_log2_units():
    assert graph_distance(_graph(1024, 8), _graph(2048, 8)) == pytest.approx(1.0)
    assert graph_distance(_graph(2048, 8), _graph(1024, 8)) == pytest.approx(1.0)
    assert graph_distance(_graph(1024, 8), _graph(1024, 32)) == pytest.approx(2.0)
    assert graph_distance(_graph(1024, 0), _graph(1024, 1)) == 0


def test_the_degree_skew_counts_only_where_both_graphs_have_it():
    assert graph_distance(_graph(1024, 8, 0.0), _graph(1024, 8, 3.0)) == pytest.approx(2.0)
    assert graph_distance(_graph(1024, 8, 0.0), _graph(1024, 8)) == 0
    assert graph_distance(_graph(1024, 8, 0.0), _graph(1024, 8, 3.0), {"degree_cv": 0.5}) == pytest.approx(2 ** 0.5)


def test_another_gpu_is_refused_unless_allowed(table_path):
    table = Table.load(table_path)
    other = {"name": "NVIDIA A100-SXM4-80GB", "compute_capability": "8.0", "sm_count": 108}
    with pytest.raises(DeviceMismatch, match="tuned on 'NVIDIA H100 80GB HBM3', not on 'NVIDIA A100"):
        table.lookup(vertices=2**17, mean_degree=28, device=other)
    assert table.lookup(vertices=2**17, mean_degree=28, device=other, allow_other_device=True).graph_name == "rmat17"
    assert table.lookup(vertices=2**17, mean_degree=28, device="nvidia  h100 80gb hbm3").graph_name == "rmat17"


def test_profile_tables_match_a_gpu_of_the_same_kind():
    profile = {"name": "hopper-h100", "compute_capability": "9.0", "sm_count": 132, "profile": "hopper-h100"}
    assert same_device(profile, DEVICE)
    assert not same_device(profile, {**DEVICE, "sm_count": 114})
    assert not same_device({"name": "hopper-h100", "compute_capability": "9.0", "sm_count": 132}, DEVICE)


def test_predict_table_can_be_looked_up(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["predict", "--graph", "rmat10", "--graph", "random2000-d4", "--device", "hopper-h100",
                 "-o", str(out)]) == 0
    match = Table.load(out).lookup(vertices=2000, mean_degree=4, device=DEVICE)
    assert match.graph_name == "random2000-d4" and match.source == "predicted"


def test_bad_tables_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "autotune.table/99"}))
    with pytest.raises(InputError):
        Table.load(bad)
    with pytest.raises(InputError):
        Table.load(tmp_path / "missing.json")


def _partial_table(tmp_path, entry_partial, table_partial=False):
    entries = [_entry("rmat17", 2**17, 28.4, CRAUSER.uniform(256, concurrent_kernels=64, lanes=4))]
    if entry_partial is not None:
        entries[0]["partial"] = entry_partial
    table = build_table(DEVICE, entries, algorithm="crauser")
    if table_partial:
        table["x-partial"] = True
    path = tmp_path / "partial.json"
    write_table(path, table)
    return Table.load(path)


@pytest.mark.parametrize(
    ("entry_partial", "table_partial", "expected"),
    [(True, True, True), (True, False, True), (False, True, False), (False, False, False),
     (None, True, True), (None, False, False)],
)
def test_a_match_from_an_interrupted_sweep_says_it_is_partial(tmp_path, entry_partial, table_partial, expected):
    match = _partial_table(tmp_path, entry_partial, table_partial).lookup(vertices=2**17, mean_degree=28.4,
                                                                          device=DEVICE)
    assert match.graph_name == "rmat17" and match.partial is expected


def test_complete_tables_give_complete_matches(table_path):
    assert not Table.load(table_path).lookup(vertices=2**17, mean_degree=28.4, device=DEVICE).partial


@pytest.mark.parametrize("as_json", [False, True])
def test_sssp_table_warns_on_stderr_about_a_partial_entry(tmp_path, capsys, as_json):
    from types import SimpleNamespace

    from autotune.cli.sssp_gpu import config_from_table

    args = SimpleNamespace(table="t.json", json=as_json, allow_other_device=False)
    graph = SimpleNamespace(n_vertices=2**17, mean_degree=28.4)
    config = config_from_table(args, _partial_table(tmp_path, True), graph, DEVICE, 64)
    assert config == CRAUSER.uniform(256, concurrent_kernels=64, lanes=4)
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert captured.out == "" and "entry 'rmat17' is partial (its sweep was interrupted)" in err
    assert ("best configuration of its entry 'rmat17'" in err) is not as_json
    fewer = config_from_table(args, _partial_table(tmp_path, False), graph, DEVICE, 32)
    assert "is partial" not in capsys.readouterr().err
    assert fewer == CRAUSER.uniform(256, concurrent_kernels=32, lanes=4)  # no curve: CK cut to the sources


def _top_entry(name, n, d, listed):
    """An entry whose best is its first listed configuration; `listed`: (config, ms) fastest first."""
    entry = _entry(name, n, d, listed[0][0])
    entry["best"]["ms_per_sssp"] = listed[0][1]
    entry["x-top"] = [measured(config, ms, True) for config, ms in listed]
    return entry


def test_the_header_s_consensus_of_the_nearest_entries_prefers_a_configuration_good_on_all(tmp_path):
    only_near = CRAUSER.uniform(256, "prefer_l1", 64)
    shared = CRAUSER.uniform(256, "prefer_shared", 64)
    only_far = CRAUSER.uniform(1024, concurrent_kernels=64)
    other = CRAUSER.uniform(64, concurrent_kernels=64)
    entries = [_top_entry("near", 2**15, 2.0, [(only_near, 1.00), (shared, 1.02), (other, 1.30)]),
               _top_entry("far", 2**17, 2.0, [(only_far, 1.00), (shared, 1.01), (only_near, 1.50)])]
    path = tmp_path / "t.json"
    write_table(path, build_table(DEVICE, entries, algorithm="crauser"))
    table = Table.load(path)
    alone = table.nearest(vertices=2**14, mean_degree=2.0, neighbours=1)
    assert alone.config == only_near and alone.source == "best" and alone.neighbours == ()
    # mean ratios: only_near (1.00 + 1.50) / 2, shared (1.02 + 1.01) / 2, only_far (1.30, near's slowest
    # listed, + 1.00) / 2, other (1.30 + 1.50, far's slowest) / 2
    agreed = table.nearest(vertices=2**14, mean_degree=2.0, neighbours=2)
    assert agreed.config == shared and agreed.source == "consensus"
    assert agreed.graph_name == "near" and agreed.neighbours == ("near", "far") and agreed.ms_per_sssp == 1.02
    # no listed configuration runs at most 16 SSSPs at once: the nearest entry's, its CK cut to 16, and said so
    batch = table.nearest(vertices=2**14, mean_degree=2.0, neighbours=2, queries=16)
    assert batch.source == "derived" and batch.config == only_near.replace(concurrent_kernels=16)
    assert batch.ms_per_sssp is None
    with pytest.raises(InputError, match="neighbours must be at least 1"):
        table.nearest(vertices=2**14, mean_degree=2.0, neighbours=0)


def test_a_consensus_needs_every_neighbour_s_list_else_the_nearest_decides(table_path):
    table = Table.load(table_path)  # entries without x-top
    found = table.nearest(vertices=2**17, mean_degree=28.4, neighbours=3)
    assert found.graph_name == "rmat17" and found.source == "best"
    assert found.config == CRAUSER.uniform(256, concurrent_kernels=64, lanes=4)


@pytest.mark.parametrize("no_hierarchy", [False, True])
def test_sssp_table_builds_the_hierarchy_of_a_road_network_it_does_not_hold(tmp_path, monkeypatch, capsys, no_hierarchy):
    """`sssp --table` on a road network the table never saw: its hierarchy is built and kept first,
    so that the model can pick PHAST (issue 64); with --no-hierarchy it cannot."""
    from types import SimpleNamespace

    from autotune.cli.sssp_gpu import config_from_table
    from autotune.graphs import load_graph

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    table = Table.load(ROOT / "tables" / "h200.json").without(["rome99.gr.gz"])
    graph = load_graph(str(ROOT / "tests" / "data" / "rome99.gr.gz"))
    args = SimpleNamespace(table="h200.json", json=False, allow_other_device=False, no_hierarchy=no_hierarchy)
    config = config_from_table(args, table, graph, {"name": "NVIDIA H200"}, 1)
    err = " ".join(capsys.readouterr().err.split())
    assert "the table's model for a graph it does not hold" in err
    assert (config.algorithm == "phast") is not no_hierarchy
    assert ("contraction hierarchy of" in err) is not no_hierarchy  # built, with its time


def test_the_model_s_gpu_is_the_table_s_with_the_named_profile_s_memory_under_the_sweep_s_cap(tmp_path):
    from autotune.model.device import load_device
    from autotune.table.model import device_of

    data = json.loads((ROOT / "tables" / "h200.json").read_text())
    assert device_of(Table(data)).global_memory_bytes == load_device("hopper-h200").global_memory_bytes
    capped = {**data, "device": {**data["device"], "x-max-memory": 80 * 2**30}}
    assert device_of(Table(capped)).global_memory_bytes == 80 * 2**30
    assert device_of(Table(capped)).sm_count == 132 and device_of(Table(capped)).name == "NVIDIA H200"


@pytest.mark.parametrize(("gpu", "profile"), [("h100", "hopper-h100"), ("h200", "hopper-h200")])
def test_the_shipped_table_and_predict_for_its_gpu_answer_alike(tmp_path, gpu, profile):
    """`predict --algorithm auto --device PROFILE` reads the choice model shipped for the GPU, which
    is the one fitted on `tables/<gpu>.json` (`characterizations/choice-<gpu>.toml`, found by name),
    and `Table.lookup` of that table finds it by the table's sha256: one answer."""
    from autotune.graphs import load_graph

    table = Table.load(ROOT / "tables" / f"{gpu}.json")
    assert table.model.fitted_on["table"] == f"tables/{gpu}.json"
    for k in (1, 16, 1024):
        out = tmp_path / f"{gpu}-{k}.json"
        assert main(["predict", "--algorithm", "auto", "--device", profile, "--graph", "rmat11", "--graph", "grid10",
                     "--queries", str(k), "--no-hierarchy", "-o", str(out)]) == 0
        predicted = [e["predicted"]["config"] for e in json.loads(out.read_text())["entries"]]
        found = [table.lookup(load_graph(spec), queries=k, device=None, admits=()) for spec in ("rmat11", "grid10")]
        assert [m.config.to_json() for m in found] == predicted, k


def test_sssp_table_refuses_another_gpu_s_table_before_building_a_hierarchy(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from autotune.cli.sssp_gpu import config_from_table
    from autotune.graphs import load_graph

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    table = Table.load(ROOT / "tables" / "h200.json").without(["rome99.gr.gz"])
    graph = load_graph(str(ROOT / "tests" / "data" / "rome99.gr.gz"))
    args = SimpleNamespace(table="h200.json", json=True, allow_other_device=False, no_hierarchy=False)
    with pytest.raises(DeviceMismatch):
        config_from_table(args, table, graph, {"name": "NVIDIA A100-SXM4-80GB"}, 1)
    assert not (tmp_path / "cache" / "hierarchies").exists()


def test_graph_features_give_the_model_what_they_know():
    """A `GraphFeatures` with its weights gives the model's rules the Delta they read from them, as
    the loaded graph does (without weights the rules know none: Delta INF). At K = 32: up to 16 sources
    take one query's rules, which read the level width that only the loaded graph gives."""
    from autotune.graphs import load_graph
    from autotune.model.features import GraphFeatures

    table = Table.load(ROOT / "tables" / "h200.json")
    graph = load_graph("random3000-d3")
    features = GraphFeatures.from_graph(graph)
    loaded = table.lookup(graph, queries=32, device=None, admits=())
    known = table.lookup(features, queries=32, device=None, admits=())
    bare = table.lookup(vertices=features.n_vertices, mean_degree=features.mean_degree, degree_cv=features.degree_cv,
                        queries=32, device=None)
    assert known.source == loaded.source == "model"
    assert known.config.algorithm == loaded.config.algorithm == "delta"
    assert known.config.param("delta") == loaded.config.param("delta") != "inf" and bare.config.param("delta") == "inf"


def test_a_few_sources_take_one_querys_grid_shared_out():
    """Up to Delta-stepping's `one_query_shape_queries` sources, an unseen graph gets one query's
    configuration with its grid shared out over the instances (the table's CK 4 to 16 bests' shape),
    not the batch end's one block each, its block size and Delta the spread rules' (the H200's
    model has them); past it, the batch end's."""
    from autotune.graphs import load_graph

    table = Table.load(ROOT / "tables" / "h200.json")
    graph = load_graph("random3000-d20")
    one, few, more = (table.lookup(graph, queries=k, device=None, admits=()).config for k in (1, 16, 32))
    assert one.algorithm == few.algorithm == "delta" and int(one.param("blocks")) > 16
    assert (few.concurrent_kernels, few.param("blocks")) == (16, 8)
    spread_size = table.model.latency.spread["block_size"]
    assert few.kernel("advance").block_size == spread_size and few.param("delta") != one.param("delta")
    assert few.replace(concurrent_kernels=1, blocks=one.param("blocks"), defer_work=one.param("defer_work"),
                       delta=one.param("delta"), **{k: one.kernel(k) for k in ("advance", "split")}) == one
    assert more.concurrent_kernels == 32 and more.param("blocks") == 1
