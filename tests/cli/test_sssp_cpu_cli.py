"""`autotune sssp --cpu`, run in-process."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from autotune.cli import main
from autotune.graphs import load_graph
from autotune.reference import reference_distances


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(directory))
    return directory


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["sssp", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("autotune: ") and captured.out == ""
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("algorithm", ["dijkstra", "crauser", "martin"])
def test_json_and_save(capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path,
                       algorithm: str) -> None:
    graph_path = str(data_dir / "rome99.gr.gz")
    out = tmp_path / "d.npy"
    result = run_json(capsys, "--graph", graph_path, "--cpu", "--algorithm", algorithm,
                      "--source", "5", "--save", str(out))
    assert result["algorithm"] == algorithm and result["source"] == 5
    assert result["reached"] == 3353 and result["vertices"] == 3353 and result["time_s"] >= 0
    assert result["iterations"] >= 1
    saved = np.load(out)
    assert saved.dtype == np.int64
    assert np.array_equal(saved, reference_distances(load_graph(graph_path), [5])[0])
    assert "d.npy" in [p.name for p in tmp_path.iterdir()]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_text_output_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sssp", "--graph", "random2000-d4", "--cpu"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("crauser (cpu) on random2000-d4 from source 0: ")
    assert line.endswith("2,000 of 2,000 vertices reached")


def test_unreachable_saved_as_minus_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("0 1\n2 0\n")
    out = tmp_path / "d.npy"
    result = run_json(capsys, "--graph", str(path), "--cpu", "--weights", "1-1", "--save", str(out))
    assert result["reached"] == 2
    assert np.load(out).tolist() == [0, 1, -1]


def test_zero_weights(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = {}
    for algorithm in ("dijkstra", "crauser", "martin"):
        path = tmp_path / f"{algorithm}.npy"
        run_json(capsys, "--graph", "rmat10", "--cpu", "--weights", "0-5", "--algorithm",
                 algorithm, "--source", "3", "--save", str(path))
        out[algorithm] = np.load(path)
    assert np.array_equal(out["dijkstra"], out["crauser"])
    assert np.array_equal(out["dijkstra"], out["martin"])


@pytest.mark.parametrize("argv, fragment", [
    (["sssp", "--graph", "rmat8", "--cpu", "--source", "256"], "--source: 256 is not a vertex"),
    (["sssp", "--graph", "rmat8", "--cpu", "--source", "-1"], "--source: -1"),
    (["sssp", "--graph", "nope", "--cpu"], "unknown graph spec 'nope'"),
    (["sssp", "--graph", "rmat8", "--algorithm", "dijkstra"], "runs only on the CPU"),
    (["sssp", "--graph", "rmat8", "--cpu", "--preset", "default"], "--preset applies to GPU"),
    (["sssp", "--graph", "rmat8", "--cpu", "--weights", "x"], "--weights"),
    (["sssp", "--graph", "rmat8", "--graph", "rmat9", "--cpu"], "--graph: this command takes one"),
])
def test_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> None:
    assert fragment in error_line(capsys, argv)


def test_save_creates_its_directory(tmp_path: Path) -> None:
    target = tmp_path / "new" / "dir" / "d.npy"
    assert main(["sssp", "--graph", "rmat8", "--cpu", "--save", str(target)]) == 0
    assert target.stat().st_size > 0


def test_unwritable_save(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    line = error_line(capsys, ["sssp", "--graph", "rmat8", "--cpu", "--save", str(tmp_path / "a-file" / "d.npy")])
    assert line.startswith("autotune: --save: ") and "cannot write the distances" in line


def test_gpu_mode_without_pycuda_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("PyCUDA is installed; the GPU mode is tested under tests/gpu")
    error_line(capsys, ["sssp", "--graph", "rmat8"])
