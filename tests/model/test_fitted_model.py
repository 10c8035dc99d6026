"""The fitted model (autotune/algorithms/thesis/fitted.py): fit on the committed H100 records, round trip,
predictions inside the fit's choices, and the command line (no GPU)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from autotune.cli import main
from autotune.errors import InputError
from autotune.algorithms.thesis.fitted import FittedModel, fit, recorded_choices
from autotune.search.results.records import read_records
from autotune.search.timers.replay import ReplayTimer
from autotune.table.format import read_table

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "benchmarks" / "data" / "h100" / "crauser-table.json.gz"
GRAPHS = ("random24k-d20", "random24k-d200", "rmat17")


def exhaustive(graph: str, algorithm: str = "crauser") -> list:
    """The records of a graph's exhaustive sweep on the H100 (benchmarks/data/h100)."""
    from benchmarks.data import records_by

    return records_by("h100", algorithm)[(graph, "exhaustive")]


def exhaustive_file(graph: str, directory: Path) -> Path:
    from autotune.search.results.records import write_records

    return write_records(directory / f"{graph}.jsonl", exhaustive(graph))


@pytest.fixture(scope="module")
def timers():
    return {g: ReplayTimer(exhaustive(g)) for g in GRAPHS}


@pytest.fixture(scope="module")
def features():
    return {e["graph"]["name"]: e["graph"] for e in read_table(TABLE)["entries"]}


def test_the_choices_are_the_grid_every_graph_recorded(timers):
    choices = recorded_choices(timers)
    assert choices.block_sizes == (64, 128, 256, 512, 1024) and choices.concurrent_kernels == (1, 4, 16, 64)
    assert choices.lanes == (1, 4, 32) and set(choices.caches) == {"default", "prefer_l1", "prefer_shared", "no_l1"}


def test_a_fit_predicts_inside_its_choices_near_each_graph_s_best_and_round_trips(timers, features, tmp_path):
    model = fit(timers, features, "crauser", {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0",
                                              "sm_count": 132, "max_threads_per_sm": 2048, "other": "dropped"})
    assert set(model.fit_slowdown) == set(GRAPHS) and max(model.fit_slowdown.values()) < 0.15
    for name in GRAPHS:
        config, decisions = model.predict(features[name])
        assert config.concurrent_kernels in model.choices.concurrent_kernels and config.lanes in model.choices.lanes
        assert {d.parameter for d in decisions} >= {"concurrent_kernels", "relax.block_size", "update.cache", "lanes"}
        assert timers[name].price(config) is not None  # inside the recorded grid
    path = tmp_path / "m.toml"
    path.write_text(model.to_toml())
    again = FittedModel.from_toml(path)
    assert again.predict(features["rmat17"])[0] == model.predict(features["rmat17"])[0]
    assert again.device == {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": "132",
                            "max_threads_per_sm": "2048"}
    assert model.resident_threads == 132 * 2048


def test_the_lanes_follow_the_degree_and_its_skew(timers, features):
    model = fit(timers, features, "crauser")
    sparse = model.lanes(2.0, 0.0, (1, 4, 32))
    skewed = model.lanes(28.0, 5.6, (1, 4, 32))
    assert sparse <= skewed


def test_on_a_device_the_block_sizes_are_those_of_maximal_occupancy(timers, features):
    from autotune.model import load_device

    model = fit(timers, features, "crauser")
    config, decisions = model.predict(features["rmat17"], device=load_device("fermi-gf100"))
    assert {k.block_size for k in config.kernels.values()} <= {192, 256, 384, 512, 768}
    assert any("maximal occupancy on fermi-gf100" in d.reason for d in decisions)
    # CK: the in-flight target scales with the GPU's resident threads
    small = dataclasses.replace(model, in_flight=1.0)
    assert small.concurrent_kernels(1000, (1, 4, 16, 64), 3000) == 4
    assert small.concurrent_kernels(1000, (1, 4, 16, 64), 10**6) == 64


def test_what_cannot_be_fitted_is_a_one_line_error(timers, features, tmp_path):
    with pytest.raises(InputError, match="delta's own parameters"):
        fit(timers, features, "delta")
    with pytest.raises(InputError, match="no records"):
        fit({}, features, "crauser")
    (tmp_path / "bad.toml").write_text('format = "something else"\n')
    with pytest.raises(InputError, match="not a fitted model"):
        FittedModel.from_toml(tmp_path / "bad.toml")


def test_fit_and_predict_on_the_command_line(tmp_path, capsys, monkeypatch):
    records = tmp_path / "records"
    records.mkdir()
    for name in GRAPHS:
        exhaustive_file(name, records)
    out = tmp_path / "fitted.toml"
    assert main(["model", "fit", str(records), "--features", str(TABLE), "-o", str(out)]) == 0
    assert "3 graphs" in capsys.readouterr().out
    assert main(["predict", "--graph", "rmat10", "--device", "hopper-h100", "--model", str(out), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["entries"][0]["predicted"]["rules"]["concurrent_kernels"] == "fitted: in_flight"
    assert main(["predict", "--graph", "rmat10", "--device", "hopper-h100", "--model", str(out),
                 "--algorithm", "martin"]) == 2
    assert "a model of crauser, not of martin" in capsys.readouterr().err
    assert main(["model", "fit", str(tmp_path / "none"), "--features", str(TABLE), "-o", str(out)]) == 2


@pytest.mark.parametrize(("model", "rule"), [("fitted", "fitted: in_flight"), ("auto", "4.6.4"), ("thesis", "4.6.4")])
def test_a_replayed_sweep_measures_the_model_it_is_asked_for_first(tmp_path, model, rule):
    """A replay keeps the recorded (thesis) prediction unless --model names one; the prediction is
    the search's first trial (the batch end's study alone: in the queries curve the latency end
    goes first)."""
    out = tmp_path / "t.json"
    assert main(["sweep", "--replay", str(exhaustive_file("rmat17", tmp_path)), "--strategy", "bayes", "--trials", "4",
                 "--objective", "throughput", "--model", model, "-q", "-o", str(out),
                 "--records", str(tmp_path / "r.jsonl")]) == 0
    entry = json.loads(out.read_text())["entries"][0]
    assert entry["predicted"]["rules"]["concurrent_kernels"] == rule
    first = read_records(tmp_path / "r.jsonl")[0]
    assert "prediction" in first.roles and first.measurement.config.to_json() == entry["predicted"]["config"]


def test_a_pruned_uniform_run_counts_as_recorded_and_costs_the_fit_as_unpriceable():
    """Sweeps that prune (issue 15) leave pruned uniform runs: they stay in the grid, unpriced."""
    timers = {g: ReplayTimer(exhaustive(g, "martin")) for g in GRAPHS}
    pruned = [r for t in timers.values() for r in t.records if r.measurement.status.value == "pruned"]
    assert pruned, "the Martín sweeps pruned some configurations"
    choices = recorded_choices(timers)
    assert choices.block_sizes == (64, 128, 256, 512, 1024) and choices.concurrent_kernels == (16, 64)
    assert choices.lanes == (1, 4, 32) and choices.caches == ("default", "no_l1")
    assert any(timers[r.graph.name].price(r.measurement.config) is None for r in pruned)
