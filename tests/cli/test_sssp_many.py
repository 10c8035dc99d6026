"""`sssp --sources all|N --save-dir`: many sources in batches, the sample verified first (no GPU:
a solver that answers with the CPU oracle's distances)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autotune.algorithms.delta import DELTA
from autotune.cli import main
from autotune.cli import sssp_many
from autotune.cli.sssp_many import DistanceWriter, batches, parse_sources, solve_many, solve_order, verification_sample
from autotune.errors import AutotuneError, InputError
from autotune.graphs.generate import random_graph
from autotune.graphs.options import GraphOptions
from autotune.reference import reference_distances

INF = 2**31 - 1


class OracleSolver:
    """Solves with scipy (INF for unreachable), optionally wrong from one source; logs the batches."""

    def __init__(self, graph, wrong_source=None):
        self.graph, self.wrong_source, self.batches = graph, wrong_source, []

    def solve(self, config, sources):
        assert len(sources) == config.concurrent_kernels
        self.batches.append(list(sources))
        rows = reference_distances(self.graph, sources).astype(np.int64)
        rows[rows < 0] = INF
        rows = rows.astype(np.int32)
        for k, s in enumerate(sources):
            if s == self.wrong_source:
                rows[k, -1] += 1
        return SimpleNamespace(distances=rows, elapsed_ms=0.5)


@pytest.fixture
def graph():
    return random_graph(40, 3, GraphOptions(seed=1), "random40-d3")


def test_sources_parse_as_a_count_or_all():
    assert parse_sources("all") == "all" and parse_sources("12") == 12 and parse_sources(None) is None
    for bad in ("0", "-3", "many"):
        with pytest.raises(InputError, match="--sources: expected a count of at least 1 or 'all'"):
            parse_sources(bad)


def test_the_sample_runs_first_and_the_last_batch_is_padded():
    sources = list(range(10))
    sample = verification_sample(sources, 3)
    assert sample == [0, 4, 9] and verification_sample(sources, 50) == sources
    order = solve_order(sources, sample)
    assert order[:3] == [0, 4, 9] and sorted(order) == sources
    plan = batches(order, 4)
    assert [real for _, real in plan] == [4, 4, 2] and plan[-1][0] == [order[8], order[9], order[8], order[8]]


def _expected(graph, sample):
    rows = reference_distances(graph, sample).astype(np.int64)
    rows[rows < 0] = INF
    return {s: rows[k].astype(np.int32) for k, s in enumerate(sample)}


@pytest.mark.parametrize("matrix_bytes", [sssp_many.MATRIX_BYTES, 1])
def test_every_source_is_solved_once_and_saved(graph, tmp_path, monkeypatch, matrix_bytes):
    monkeypatch.setattr(sssp_many, "MATRIX_BYTES", matrix_bytes)
    sources = list(range(graph.n_vertices))
    solver = OracleSolver(graph)
    config = DELTA.default_config().replace(concurrent_kernels=16)
    writer = DistanceWriter(tmp_path / "d", sources, graph.n_vertices, INF)
    summary = solve_many(solver, config, sources, _expected(graph, verification_sample(sources, 5)), writer)
    solved = [s for batch in solver.batches[1:] for s in batch]  # after the warm-up
    assert set(solved) == set(sources) and summary["batches"] == 3 and summary["verified_sources"] == 5
    assert summary["gpu_ms"] == pytest.approx(1.5)
    truth = reference_distances(graph, sources)
    if matrix_bytes > 1:
        assert writer.mode == "matrix"
        assert np.array_equal(np.load(tmp_path / "d" / "sources.npy"), sources)
        assert np.array_equal(np.load(tmp_path / "d" / "distances.npy"), truth)
    else:
        assert writer.mode == "files"
        assert all(np.array_equal(np.load(tmp_path / "d" / f"{s}.npy"), truth[s]) for s in sources)


def test_files_an_earlier_run_saved_are_known(graph, tmp_path, monkeypatch):
    monkeypatch.setattr(sssp_many, "MATRIX_BYTES", 1)
    sources = list(range(graph.n_vertices))
    writer = DistanceWriter(tmp_path / "d", sources, graph.n_vertices, INF)
    assert writer.saved() == set()
    writer.add(3, np.zeros(graph.n_vertices, dtype=np.int32))
    again = DistanceWriter(tmp_path / "d", sources, graph.n_vertices, INF)
    assert again.saved() == {3}
    monkeypatch.setattr(sssp_many, "MATRIX_BYTES", 10**9)
    assert DistanceWriter(tmp_path / "d", sources, graph.n_vertices, INF).saved() == set()  # a matrix: all or none


def test_a_wrong_sample_stops_before_anything_is_saved(graph, tmp_path, monkeypatch):
    monkeypatch.setattr(sssp_many, "MATRIX_BYTES", 1)
    sources = list(range(graph.n_vertices))
    sample = verification_sample(sources, 4)
    solver = OracleSolver(graph, wrong_source=sample[-1])
    writer = DistanceWriter(tmp_path / "d", sources, graph.n_vertices, INF)
    config = DELTA.default_config().replace(concurrent_kernels=2)
    with pytest.raises(AutotuneError, match=f"wrong: from source {sample[-1]}, 1 distance"):
        solve_many(solver, config, sources, _expected(graph, sample), writer)
    assert list((tmp_path / "d").iterdir()) == [] and len(solver.batches) == 3  # warm-up and the sample's two


@pytest.mark.parametrize(("argv", "message"), [
    (["sssp", "--graph", "random64-d2", "--sources", "none"], "--sources: expected a count"),
    (["sssp", "--graph", "random64-d2", "--cpu", "--sources", "all"], "--sources applies to GPU solves"),
    (["sssp", "--graph", "random64-d2", "--cpu", "--save-dir", "x"], "--save-dir applies to GPU solves"),
    (["sssp", "--graph", "random64-d2", "--sources", "all", "--verify", "0"], "--verify: expected a number >= 1"),
    (["sssp", "--graph", "random64-d2", "--verify", "3"], "--verify applies to --sources and --save-dir"),
    (["sssp", "--graph", "random64-d2", "--sources", "8", "--source", "1"], "--source solves from one source"),
    (["sssp", "--graph", "random64-d2", "--save-dir", "d", "--save", "x.npy"], "--save writes one source's"),
])
def test_bad_many_source_options_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
