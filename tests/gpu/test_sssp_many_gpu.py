"""`autotune sssp --sources` on the GPU (`pytest -m gpu`): every source of a real graph solved once in
batches and shards, the saved distances equal to scipy's all-pairs distances, the reductions computed
on the GPU equal to the CPU's, and the same run on a local Dask cluster of every GPU."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from autotune import algorithms
from autotune.cli import main
from autotune.graphs import load_graph
from autotune.many.store import MANIFEST, load_distances
from autotune.reference import reference_distances

pytestmark = pytest.mark.gpu

GRAPHS = Path(__file__).resolve().parents[1] / "data"
ROME = GRAPHS / "rome99.gr.gz"


def config_text(algorithm: str, ck: int) -> str:
    return json.dumps(algorithms.get(algorithm).default_config().replace(concurrent_kernels=ck).to_json())


@pytest.mark.parametrize("algorithm", ["delta", "crauser", "delta_lanes"])
def test_all_pairs_of_rome99_equal_scipy_s(tmp_path, capsys, algorithm):
    assert main(["sssp", "--graph", str(ROME), "--sources", "all", "--config", config_text(algorithm, 64),
                 "--save-dir", str(tmp_path / "d"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    graph = load_graph(str(ROME))
    assert summary["sources"] == summary["solved"] == graph.n_vertices and summary["verified_sources"] == 16
    assert summary["sssp_per_s"] > 0 and summary["device_clock"] == "CUDA events"
    sources, rows = load_distances(tmp_path / "d")
    assert sorted(sources.tolist()) == list(range(graph.n_vertices))
    assert np.array_equal(rows, reference_distances(graph, sources))


def test_all_pairs_of_a_heavy_grid_whose_n_times_its_largest_weight_passes_32_bits(tmp_path, capsys):
    """grid12 with weights up to 10^6: (n - 1) x 10^6 passes 2^31 (every source was refused before);
    its distances do not, by `longest_path_bound`: all of them solved and saved, equal to scipy's."""
    spec = "grid12-w1-1000000"
    assert main(["sssp", "--graph", spec, "--sources", "all", "--config", config_text("delta", 64),
                 "--save-dir", str(tmp_path / "d"), "--json"]) == 0
    graph = load_graph(spec)
    assert json.loads(capsys.readouterr().out)["solved"] == graph.n_vertices
    sources, rows = load_distances(tmp_path / "d")
    assert rows.max() > 10**7 and np.array_equal(rows, reference_distances(graph, sources))


@pytest.mark.parametrize("algorithm", ["delta", "delta_lanes", "phast"])
def test_reductions_on_the_gpu_equal_the_cpu_s(tmp_path, capsys, algorithm):
    assert main(["sssp", "--graph", str(ROME), "--sources", "500", "--algorithm", algorithm, "--reduce",
                 "reached,eccentricity,closeness", "--save-dir", str(tmp_path / "d"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["solved"] == 500 and not list((tmp_path / "d").glob("distances-*"))
    sources = np.load(tmp_path / "d" / "sources.npy")
    rows = reference_distances(load_graph(str(ROME)), sources).astype(np.float64)
    finite = np.where(rows >= 0, rows, 0)
    reached = (rows >= 0).sum(axis=1)
    assert np.array_equal(np.load(tmp_path / "d" / "reached.npy"), reached)
    assert np.array_equal(np.load(tmp_path / "d" / "eccentricity.npy"), finite.max(axis=1))
    assert np.allclose(np.load(tmp_path / "d" / "closeness.npy"), (reached - 1) / finite.sum(axis=1), rtol=0, atol=0)


def test_a_count_of_sources_without_saving_reports_the_time(capsys):
    """--sources N is the many-source mode too: N random sources, each solved once."""
    path = GRAPHS / "Email-Enron.txt.gz"
    assert main(["sssp", "--graph", str(path), "--sources", "300", "--algorithm", "delta", "--verify", "4"]) == 0
    out = capsys.readouterr().out
    assert "300 sources in" in out and "verified: 4 sources" in out and "SSSPs per second" in out


def test_a_second_run_solves_only_the_shards_the_first_did_not_save(tmp_path, capsys):
    argv = ["sssp", "--graph", str(ROME), "--sources", "200", "--config", config_text("delta", 16),
            "--save-dir", str(tmp_path / "d"), "--shard-size", "32", "--verify", "4", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["solved"] == 200 and first["already_saved"] == 0 and first["shards"] == 7
    manifest = json.loads((tmp_path / "d" / MANIFEST).read_text())
    (tmp_path / "d" / "distances-00002.npy").unlink()
    del manifest["done"]["00002"]
    (tmp_path / "d" / MANIFEST).write_text(json.dumps(manifest))
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["solved"] == 32 and second["already_saved"] == 168
    assert json.loads((tmp_path / "d" / MANIFEST).read_text())["done"]["00002"]["sha256"] == \
        first_sha(tmp_path, "00002")


def first_sha(tmp_path, key):
    return json.loads((tmp_path / "d" / MANIFEST).read_text())["done"][key]["sha256"]


def test_every_gpu_through_dask_writes_what_one_gpu_does(tmp_path, capsys):
    """`--devices all` (a local Dask cluster, one worker per GPU; one GPU is a cluster of one)."""
    common = ["sssp", "--graph", str(ROME), "--sources", "all", "--config", config_text("delta", 64), "--json"]
    assert main([*common, "--save-dir", str(tmp_path / "one")]) == 0
    capsys.readouterr()
    assert main([*common, "--devices", "all", "--save-dir", str(tmp_path / "all")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["workers"] >= 1 and summary["solved"] == summary["sources"]
    one = json.loads((tmp_path / "one" / MANIFEST).read_text())["done"]
    assert json.loads((tmp_path / "all" / MANIFEST).read_text())["done"] == one
