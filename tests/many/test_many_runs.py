"""Many-source runs without a GPU (`autotune.many`): the CPU oracle's workers go through the same
plan, shards, store and executors (this process, or a local Dask cluster) as the GPU's."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from autotune.cli import main
from autotune.errors import OutputError, WrongResult
from autotune.graphs.generate import random_graph
from autotune.graphs.options import GraphOptions
from autotune.many import work
from autotune.many.plan import ShardPlan, verification_sample
from autotune.many.run import ManyRequest, run_many
from autotune.many.store import MANIFEST, load_distances
from autotune.many.work import SolverSpec
from autotune.reference.cache import INF
from autotune.reference import reference_distances

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def graph():
    return random_graph(300, 4, GraphOptions(seed=3), "random300-d4")


def expected_rows(graph, sample):
    rows = reference_distances(graph, sample)
    return {s: np.where(rows[k] < 0, INF, rows[k]).astype(np.int32) for k, s in enumerate(sample)}


def request(graph, directory=None, workers=1, cluster=False, reductions=(), keep_rows=True, shard_size=40):
    sources = list(range(graph.n_vertices))
    sample = verification_sample(sources, 5)
    return ManyRequest(graph, sources, expected_rows(graph, sample), [SolverSpec(None, None, 16)] * workers,
                       cluster=cluster, directory=directory, keep_rows=keep_rows, reductions=reductions,
                       shard_size=shard_size, progress=io.StringIO())


def test_every_source_is_solved_once_and_its_distances_saved(graph, tmp_path):
    summary = run_many(request(graph, tmp_path / "d"))
    assert summary["solved"] == graph.n_vertices and summary["shards"] == 8 and summary["verified_sources"] == 5
    sources, rows = load_distances(tmp_path / "d")
    assert sorted(sources.tolist()) == list(range(graph.n_vertices))
    assert np.array_equal(rows, reference_distances(graph, sources))


def test_reductions_are_those_of_the_rows(graph, tmp_path):
    run_many(request(graph, tmp_path / "d", reductions=("reached", "eccentricity", "closeness"), keep_rows=False))
    sources = np.load(tmp_path / "d" / "sources.npy")
    rows = reference_distances(graph, sources).astype(np.float64)
    reached = (rows >= 0).sum(axis=1)
    finite = np.where(rows >= 0, rows, 0)
    assert np.array_equal(np.load(tmp_path / "d" / "reached.npy"), reached)
    assert np.array_equal(np.load(tmp_path / "d" / "eccentricity.npy"), finite.max(axis=1))
    assert np.allclose(np.load(tmp_path / "d" / "closeness.npy"), (reached - 1) / finite.sum(axis=1))
    assert not list((tmp_path / "d").glob("distances-*"))  # --reduce keeps no rows


def test_a_local_dask_cluster_writes_the_same_files(graph, tmp_path):
    run_many(request(graph, tmp_path / "one"))
    summary = run_many(request(graph, tmp_path / "two", workers=2, cluster=True))
    assert summary["workers"] == 2 and len(summary["per_worker"]) == 2  # both worker processes took shards
    one = json.loads((tmp_path / "one" / MANIFEST).read_text())
    two = json.loads((tmp_path / "two" / MANIFEST).read_text())
    assert one["done"] == two["done"] and len(one["done"]) == 8


def test_a_second_run_solves_only_the_shards_it_does_not_find(graph, tmp_path):
    run_many(request(graph, tmp_path / "d"))
    whole = json.loads((tmp_path / "d" / MANIFEST).read_text())
    (tmp_path / "d" / "distances-00003.npy").unlink()
    manifest = json.loads(json.dumps(whole))
    del manifest["done"]["00003"], manifest["done"]["00005"]  # 5: written, not recorded (killed between)
    (tmp_path / "d" / MANIFEST).write_text(json.dumps(manifest))
    second = run_many(request(graph, tmp_path / "d"))
    assert second["solved"] == len(ShardPlan.of(range(300), [], 40).shard(3)) and second["already_saved"] == 260
    assert json.loads((tmp_path / "d" / MANIFEST).read_text()) == whole  # shard 5 adopted, shard 3 the same again


def test_a_directory_of_another_run_or_of_other_files_is_refused(graph, tmp_path):
    run_many(request(graph, tmp_path / "d"))
    with pytest.raises(OutputError, match="holds a run of other options \\(shard_size differ"):
        run_many(request(graph, tmp_path / "d", shard_size=32))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="not empty and not a run's directory"):
        run_many(request(graph, tmp_path / "other"))


def test_a_wrong_sample_stops_before_anything_is_saved(graph, tmp_path, monkeypatch):
    solve = work.OracleSolver.solve

    def wrong(self, config, sources):
        result = solve(self, config, sources)
        result.distances[0, -1] += 1
        return result

    monkeypatch.setattr(work.OracleSolver, "solve", wrong)
    with pytest.raises(WrongResult, match="from source 0, 1 distance"):
        run_many(request(graph, tmp_path / "d"))
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == [MANIFEST, "sources.npy"]


def test_a_killed_run_started_again_ends_with_the_same_files(tmp_path):
    """The command killed (its whole process group, Dask's workers included) once some shards are
    saved, then run again: the same shards and checksums as a run never interrupted."""
    argv = [sys.executable, "-m", "autotune", "sssp", "--graph", "random3000-d4", "--cpu", "--sources", "all",
            "--shard-size", "64", "--workers", "2", "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([*argv, "--save-dir", str(tmp_path / "whole")], env=env, check=True, capture_output=True)
    killed = subprocess.Popen([*argv, "--save-dir", str(tmp_path / "killed")], env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = tmp_path / "killed" / MANIFEST
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and killed.poll() is None:
        if manifest.exists() and len(json.loads(manifest.read_text() or "{}").get("done", {})) >= 3:
            break
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()
    done = json.loads(manifest.read_text())["done"]
    assert 3 <= len(done) < 47, "the run should be killed part way"
    again = subprocess.run([*argv, "--save-dir", str(tmp_path / "killed")], env=env, check=True,
                           capture_output=True, text=True)
    assert json.loads(again.stdout)["already_saved"] >= 3 * 64
    whole = json.loads((tmp_path / "whole" / MANIFEST).read_text())
    assert json.loads(manifest.read_text())["done"] == whole["done"]
    names = sorted(p.name for p in (tmp_path / "whole").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "killed").iterdir())
    for name in names:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "killed" / name).read_bytes(), name


@pytest.mark.parametrize(("argv", "message"), [
    (["--sources", "none"], "--sources: expected a count"),
    (["--cpu", "--sources", "all", "--algorithm", "delta"], "--cpu --sources solves with dijkstra"),
    (["--sources", "all", "--verify", "0"], "--verify: expected a number >= 1"),
    (["--verify", "3"], "--verify applies to --sources and --save-dir"),
    (["--reduce", "closeness"], "--reduce applies to --sources and --save-dir"),
    (["--devices", "0,1"], "--devices applies to --sources"),
    (["--sources", "8", "--source", "1"], "--source solves from one source"),
    (["--save-dir", "d", "--save", "x.npy"], "--save writes one source's"),
    (["--sources", "all", "--reduce", "diameter"], "--reduce: unknown reduction 'diameter'"),
    (["--sources", "all", "--devices", "first"], "--devices: 'first' is not a GPU index"),
    (["--cpu", "--sources", "all", "--devices", "0"], "--devices picks GPUs"),
    (["--sources", "all", "--workers", "2"], "--workers applies to --cpu"),
    (["--cpu", "--sources", "all", "--workers", "0"], "--workers: expected a number >= 1"),
    (["--sources", "all", "--devices", "0", "--cluster", "tcp://h:8786"], "--cluster runs on the cluster's"),
])
def test_bad_many_source_options_are_one_line(argv, message, capsys):
    assert main(["sssp", "--graph", "random64-d2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_interrupted_run_says_how_far_it_got_and_exits_130(tmp_path):
    argv = [sys.executable, "-m", "autotune", "sssp", "--graph", "random3000-d4", "--cpu", "--sources", "all",
            "--shard-size", "32", "--save-dir", str(tmp_path / "d")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    manifest = tmp_path / "d" / MANIFEST
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if manifest.exists() and len(json.loads(manifest.read_text() or "{}").get("done", {})) >= 2:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "of 94 shards saved in" in err and "the same command goes on from there" in err
    assert "Traceback" not in err


def test_an_existing_dask_cluster_runs_the_same_shards(graph, tmp_path):
    from distributed import LocalCluster

    run_many(request(graph, tmp_path / "here"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with_cluster = request(graph, tmp_path / "there")
        with_cluster.address = cluster.scheduler_address
        summary = run_many(with_cluster)
    assert summary["workers"] == 2
    assert json.loads((tmp_path / "there" / MANIFEST).read_text())["done"] == \
        json.loads((tmp_path / "here" / MANIFEST).read_text())["done"]


def test_the_estimate_says_when_one_device_would_finish_sooner_than_a_local_cluster():
    from autotune.many.run import CLUSTER_START_S, estimate_line

    short = estimate_line(87_575, 18, 2, 0.0037)  # usa-roads, every source: 0.32 s on one H200
    long = estimate_line(65_536, 16, 2, 0.50)  # rmat20: 33 s on one H200, 2.00x on two
    assert "one device (no --devices) finishes" in short and "about 0.2 s of solving" in short
    assert "finishes" not in long and "about 16.4 s of solving" in long
    assert "finishes" not in estimate_line(1_000, 1, 1, 1.0)  # one worker: nothing to compare
    edge = 2 * CLUSTER_START_S * 1000  # ms of solving on one device where two break even
    assert "finishes" in estimate_line(1, 1, 2, edge) and "finishes" not in estimate_line(1, 1, 2, edge * 1.01)
