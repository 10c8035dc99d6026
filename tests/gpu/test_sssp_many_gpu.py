"""`autotune sssp --sources all --save-dir` on the GPU (`pytest -m gpu`): every source of a real
graph solved once in batches, the saved matrix equal to scipy's all-pairs distances."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from autotune import algorithms
from autotune.cli import main
from autotune.graphs import load_graph
from autotune.reference import reference_distances

pytestmark = pytest.mark.gpu

GRAPHS = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("algorithm", ["delta", "crauser"])
def test_all_pairs_of_rome99_equal_scipy_s(tmp_path, capsys, algorithm):
    ck = 64 if algorithm == "delta" else 16
    config = json.dumps(algorithms.get(algorithm).default_config().replace(concurrent_kernels=ck).to_json())
    path = GRAPHS / "rome99.gr.gz"
    assert main(["sssp", "--graph", str(path), "--sources", "all", "--config", config, "--save-dir",
                 str(tmp_path / "d"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    graph = load_graph(str(path))
    assert summary["sources"] == graph.n_vertices and summary["saved"]["layout"] == "matrix"
    assert summary["verified_sources"] == 16 and summary["sssp_per_s"] > 0
    saved = np.load(tmp_path / "d" / "distances.npy")
    assert np.array_equal(np.load(tmp_path / "d" / "sources.npy"), np.arange(graph.n_vertices))
    assert np.array_equal(saved, reference_distances(graph, range(graph.n_vertices)))


def test_a_count_of_sources_without_saving_reports_the_time(capsys):
    """--sources N is the many-source mode too: N random sources, each solved once."""
    path = GRAPHS / "Email-Enron.txt.gz"
    assert main(["sssp", "--graph", str(path), "--sources", "300", "--algorithm", "delta", "--verify", "4"]) == 0
    out = capsys.readouterr().out
    assert "300 sources in" in out and "verified: 4 sources" in out and "SSSPs per second" in out


def test_a_second_run_solves_only_what_the_first_did_not_save(tmp_path, capsys, monkeypatch):
    from autotune.cli import sssp_many

    monkeypatch.setattr(sssp_many, "MATRIX_BYTES", 1)  # one file per source
    path = GRAPHS / "rome99.gr.gz"
    argv = ["sssp", "--graph", str(path), "--sources", "200", "--algorithm", "delta", "--save-dir",
            str(tmp_path / "d"), "--verify", "4", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["sources"] == 200 and first["already_saved"] == 0
    solved = sorted(int(p.stem) for p in (tmp_path / "d").glob("[0-9]*.npy"))
    (tmp_path / "d" / f"{solved[1]}.npy").unlink()  # the sample is the 1st, 67th, 134th and 200th
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["already_saved"] == 200 - 4 - 1 and second["sources"] == 4 + 1
