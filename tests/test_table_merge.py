"""`autotune table merge|show` and table_merge: one table per GPU (no GPU)."""
from __future__ import annotations

import json

import pytest

from autotune.algorithms.thesis import CRAUSER
from autotune.cli import main
from autotune.errors import InputError
from autotune.graphs.generate import random_graph
from autotune.graphs.options import GraphOptions
from autotune.table.merge import fill_graph_features, merge_tables
from autotune.table.format import build_table, make_entry, measured, read_table, write_table

DEVICE = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132}


def _entry(name, ms, ck=64, curve=(), sha=None):
    graph = {"name": name, "vertices": 1024, "edges": 4096, "mean_degree": 4.0, "stress_ratio": 0.01,
             "stress_class": "low", "degree_class": "low"} | ({"sha256": sha} if sha else {})
    config = CRAUSER.uniform(256, concurrent_kernels=ck)
    extra = {"curve": [measured(CRAUSER.uniform(128, concurrent_kernels=c), t, True) for c, t in curve]} if curve else {}
    return make_entry(graph, best=measured(config, ms, True), algorithm="crauser", **extra)


def _table(entries, created, device=DEVICE, algorithm="crauser"):
    return build_table(device, entries, algorithm=algorithm, created=created)


def test_the_faster_entry_of_a_graph_wins_and_the_merge_says_why():
    older = _table([_entry("a", 1.0), _entry("b", 2.0)], "2026-01-01T00:00:00+00:00")
    newer = _table([_entry("a", 1.5), _entry("c", 3.0)], "2026-02-01T00:00:00+00:00")
    merged = merge_tables([older, newer], ["old.json", "new.json"])
    by_name = {e["graph"]["name"]: e for e in merged.table["entries"]}
    assert sorted(by_name) == ["a", "b", "c"]
    assert by_name["a"]["best"]["ms_per_sssp"] == 1.0
    assert merged.decisions == ["a: old.json (1 ms, 2026-01-01T00:00:00+00:00) over new.json (1.5 ms, "
                                "2026-02-01T00:00:00+00:00): faster"]
    newest = merge_tables([older, newer], ["old.json", "new.json"], prefer="newer")
    assert {e["graph"]["name"]: e for e in newest.table["entries"]}["a"]["best"]["ms_per_sssp"] == 1.5


def test_graphs_are_matched_by_sha256_before_name():
    one = _table([_entry("x", 1.0, sha="a" * 64)], "2026-01-01T00:00:00+00:00")
    two = _table([_entry("x", 2.0, sha="b" * 64)], "2026-01-01T00:00:00+00:00")
    assert len(merge_tables([one, two], ["1", "2"]).table["entries"]) == 2


def test_the_merged_curve_keeps_the_fastest_point_per_ck():
    one = _table([_entry("a", 1.0, curve=[(1, 9.0), (4, 3.0)])], "2026-01-01T00:00:00+00:00")
    two = _table([_entry("a", 2.0, curve=[(1, 8.0), (16, 2.0)])], "2026-01-01T00:00:00+00:00")
    curve = merge_tables([one, two], ["1", "2"]).table["entries"][0]["curve"]
    assert [(p["config"]["concurrent_kernels"], p["ms_per_sssp"]) for p in curve] == [(1, 8.0), (4, 3.0), (16, 2.0)]


def test_the_merged_list_of_fastest_configurations_keeps_each_once_at_its_fastest():
    one = _entry("a", 1.0)
    two = _entry("a", 2.0)
    fast, slow = CRAUSER.uniform(64, concurrent_kernels=64), CRAUSER.uniform(512, concurrent_kernels=64)
    one["x-top"] = [measured(fast, 1.0, True), measured(slow, 3.0, True)]
    two["x-top"] = [measured(slow, 2.0, True), measured(fast, 2.5, True)]
    merged = merge_tables([_table([one], "2026-01-01T00:00:00+00:00"), _table([two], "2026-01-01T00:00:00+00:00")],
                          ["1", "2"]).table["entries"][0]["x-top"]
    assert [(p["config"]["kernels"]["relax"]["block_size"], p["ms_per_sssp"]) for p in merged] == [(64, 1.0), (512, 2.0)]


def test_tables_of_other_gpus_are_refused():
    one = _table([_entry("a", 1.0)], "2026-01-01T00:00:00+00:00")
    h200 = _table([_entry("a", 1.0)], "2026-01-01T00:00:00+00:00", device={**DEVICE, "name": "NVIDIA H200"})
    with pytest.raises(InputError, match="h200.json: tuned on 'NVIDIA H200'.*merge the tables of one GPU"):
        merge_tables([one, h200], ["h100.json", "h200.json"])
    with pytest.raises(InputError, match="at least one table"):
        merge_tables([], [])


def test_tables_of_several_algorithms_merge_into_an_auto_table_keeping_each_algorithm_s_best():
    from autotune.algorithms import get

    delta = get("delta")
    fast_batch = delta.uniform(512, concurrent_kernels=64)
    fast_query = delta.uniform(512, concurrent_kernels=1, params={"loop": "persistent", "blocks": 64})
    crauser = _table([_entry("a", 2.0, curve=[(1, 9.0), (64, 2.0)])], "2026-01-01T00:00:00+00:00")
    deltas = build_table(DEVICE, [make_entry(
        {"name": "a", "vertices": 1000, "edges": 4000, "mean_degree": 4.0, "stress_ratio": 0.1, "stress_class": "low",
         "degree_class": "low"},
        best=measured(fast_batch, 1.0, True), algorithm="delta",
        curve=[measured(fast_query, 3.0, True), measured(fast_batch, 1.0, True)])], algorithm="delta",
        created="2026-01-02T00:00:00+00:00")
    merged = merge_tables([crauser, deltas], ["crauser.json", "delta.json"]).table
    write_table("/dev/null", merged)  # it validates
    (entry,) = merged["entries"]
    assert merged["algorithm"] == "auto" and entry["algorithm"] == "delta"
    assert entry["by_algorithm"]["crauser"]["ms_per_sssp"] == 2.0 and entry["by_algorithm"]["delta"]["ms_per_sssp"] == 1.0
    assert {p["config"]["concurrent_kernels"]: p["config"]["algorithm"] for p in entry["curve"]} == {1: "delta", 64: "delta"}
    assert [p["ms_per_sssp"] for p in entry["curve"]] == [3.0, 1.0]


def test_an_entry_s_per_algorithm_bests_survive_a_faster_sweep_of_one_algorithm():
    # an auto table's entry (its best per algorithm kept) beaten by a later sweep of that algorithm alone,
    # whose entry keeps none: the merged entry keeps them, with the faster best
    shipped = _entry("a", 2.0)
    shipped["by_algorithm"] = {"crauser": shipped["best"]}
    merged = merge_tables([_table([shipped], "2026-01-01T00:00:00+00:00", algorithm="auto"),
                           _table([_entry("a", 1.0)], "2026-02-01T00:00:00+00:00")], ["auto.json", "sweep.json"]).table
    write_table("/dev/null", merged)  # it validates
    (entry,) = merged["entries"]
    assert entry["best"]["ms_per_sssp"] == 1.0
    assert {name: part["ms_per_sssp"] for name, part in entry["by_algorithm"].items()} == {"crauser": 1.0}
    plain = merge_tables([_table([_entry("b", 2.0)], "2026-01-01T00:00:00+00:00"),
                          _table([_entry("b", 1.0)], "2026-02-01T00:00:00+00:00")], ["1", "2"]).table
    assert "by_algorithm" not in plain["entries"][0]  # none kept, none made up for one algorithm


def test_graph_features_are_filled_from_the_graph_and_its_sha256_is_checked():
    graph = random_graph(256, 4, GraphOptions(seed=3), "random256-d4")
    entry = make_entry({"name": "random256-d4", "vertices": 256, "edges": graph.n_edges, "mean_degree": 4.0,
                        "stress_ratio": 0.01, "stress_class": "low", "degree_class": "low", "sha256": graph.sha256,
                        "seed": 3}, best=measured(CRAUSER.uniform(256), 1.0, True))
    wrong = make_entry({**entry["graph"], "name": "other", "sha256": "0" * 64}, best=entry["best"])
    table = _table([entry, wrong], "2026-01-01T00:00:00+00:00")
    missed = fill_graph_features(table, lambda g: graph)
    assert table["entries"][0]["graph"]["degree_cv"] == pytest.approx(float(graph.out_degrees.std() / 4.0))
    assert "degree_cv" not in table["entries"][1]["graph"]
    assert missed == ["other: the graph loaded under its name is not the one tuned (sha256 differs)"]


def test_merge_and_show_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    write_table(tmp_path / "a.json", _table([_entry("a", 1.0, curve=[(1, 9.0)])], "2026-01-01T00:00:00+00:00"))
    write_table(tmp_path / "b.json", _table([_entry("a", 0.5), _entry("b", 2.0)], "2026-01-02T00:00:00+00:00"))
    out = tmp_path / "gpu.json"
    assert main(["table", "merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "a: " in printed and f"wrote {out}: 2 graph(s) from 2 table(s)" in printed
    merged = read_table(out)
    assert [e["best"]["ms_per_sssp"] for e in merged["entries"]] == [0.5, 2.0]
    assert merged["entries"][0]["curve"][0]["ms_per_sssp"] == 9.0
    assert json.loads(out.read_text())["x-merged-from"][0]["table"] == str(tmp_path / "a.json")
    assert main(["table", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "NVIDIA H100" in shown and "crauser CK 64" in shown and "1: 9" in shown


def test_merge_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{")
    assert main(["table", "merge", str(tmp_path / "bad.json"), "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"autotune: {tmp_path / 'bad.json'}") and err.count("\n") == 1
    assert not (tmp_path / "o.json").exists()


def test_tables_of_two_gpus_of_one_compute_capability_are_not_merged(tmp_path, capsys):
    """An H100's and an H200's tables (both 9.0, 132 SMs, measured live: profile "auto") are two GPUs'
    (issue 67: they merged into one labelled H100)."""
    from autotune.cli import main

    out = tmp_path / "merged.json"
    assert main(["table", "merge", "tables/h100.json", "tables/h200.json", "-q", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "tuned on 'NVIDIA H200', but tables/h100.json on 'NVIDIA H100 80GB HBM3'; merge the tables of one GPU" in err
    assert not out.exists()


def test_a_gpu_s_table_is_not_looked_up_for_another_gpu_of_its_kind():
    from autotune.table.lookup import DeviceMismatch, Table

    h100 = Table.load("tables/h100.json")
    h200 = {"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132}
    with pytest.raises(DeviceMismatch, match="tuned on 'NVIDIA H100 80GB HBM3', not on 'NVIDIA H200'"):
        h100.lookup(vertices=1000, mean_degree=4.0, device=h200)
    assert h100.lookup(vertices=1000, mean_degree=4.0, device=h200, allow_other_device=True).config
