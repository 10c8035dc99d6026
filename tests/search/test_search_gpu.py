"""On the GPU (`pytest -m gpu`): the CUDA timer keeps the Timer contract, and a sweep runs end to end."""
from __future__ import annotations

import json

import pytest

from autotune import algorithms
from autotune.cli import main
from autotune.graphs import load_graph
from autotune.search import read_records
from autotune.table.format import validate_table

from test_search_replay import TimerContract

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda_timer():
    from autotune.gpu import CudaEventTimer, gpu_session
    from autotune.algorithms import open_solver
    from autotune.graphs import load_graph
    from autotune.measure import Protocol, choose_sources

    graph = load_graph("rmat10", use_cache=False)
    with gpu_session(), open_solver(graph, "crauser") as solver:
        yield CudaEventTimer(solver, choose_sources(graph, 16, seed=0), Protocol(sample=16, min_repetitions=2))


class TestCudaEventTimer(TimerContract):
    @pytest.fixture(autouse=True)
    def _timer(self, cuda_timer):
        self.timer = cuda_timer

    def make_timer(self):
        return self.timer

    def test_an_invalid_configuration_is_a_measurement_with_a_reason(self):
        pytest.skip("every configuration of the space launches on current GPUs")


def test_a_model_sweep_on_the_gpu_writes_a_valid_table(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    table_path = tmp_path / "t.json"
    status = main(["sweep", "--graph", "rmat10", "--strategy", "model", "--sources", "16", "--repetitions", "2",
                   "--storage", "memory", "-o", str(table_path), "-q"])
    assert status == 0
    table = json.loads(table_path.read_text())
    validate_table(table)
    entry = table["entries"][0]
    assert entry["best"]["verified"] and entry["evaluations"] >= 3
    records = read_records(tmp_path / "t.records.jsonl")
    assert all(r.wall_s > 0 for r in records)


def test_an_auto_sweep_tunes_every_algorithm_and_names_the_winner(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))
    table_path = tmp_path / "t.json"
    status = main(["sweep", "--graph", "rmat10", "--algorithm", "auto", "--strategy", "bayes", "--trials", "12",
                   "--sources", "8", "--repetitions", "1", "--storage", "memory", "-o", str(table_path), "-q"])
    assert status == 0
    table = json.loads(table_path.read_text())
    validate_table(table)
    (entry,) = table["entries"]
    assert entry["algorithm"] in algorithms.names() and entry["best"]["verified"]
    assert entry["best"]["config"]["algorithm"] == entry["algorithm"]
    records = read_records(tmp_path / "t.records.jsonl")
    graph = load_graph("rmat10")  # phast: its hubs get no contraction hierarchy, and auto leaves it out
    assert {r.algorithm for r in records} == {a.name for a in algorithms.resolve("auto") if a.admits(graph) is None}


def test_an_auto_sweep_builds_a_road_network_s_hierarchy_beside_its_measurements_and_tunes_phast(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    table_path = tmp_path / "t.json"
    status = main(["sweep", "--graph", "tests/data/rome99.gr.gz", "--trials", "6", "--sources", "8",
                   "--repetitions", "1", "--storage", "memory", "-o", str(table_path), "-q"])
    assert status == 0
    err = capsys.readouterr().err
    assert "rome99.gr.gz: building its contraction hierarchy" in err and "levels built in" in err
    validate_table(json.loads(table_path.read_text()))
    records = read_records(tmp_path / "t.records.jsonl")
    assert {"phast", "delta"} <= {r.algorithm for r in records}
    assert all(r.measurement.verified for r in records if r.measurement.status == "ok")
