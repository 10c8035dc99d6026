"""The reference distances kept on disk: `ensure` computes only what is missing and reads nothing."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graphs import build_csr
from autotune.reference.cache import ReferenceCache
from autotune.resources import usable_cores


def _graph():
    return build_csr("g", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([4, 0, 7]))


def test_ensure_computes_the_missing_sources_only_and_reads_none(tmp_path):
    cache = ReferenceCache(tmp_path)
    assert cache.ensure(_graph(), [0, 1, 0]) == 2 and cache.computed == 2
    kept = tmp_path / _graph().sha256 / "0.npy"
    kept.write_bytes(b"not read by ensure")
    assert cache.ensure(_graph(), [0, 1, 2]) == 1 and cache.computed == 3
    # distances reads what is kept (another process's cache): the damaged row is computed again (and kept)
    reader = ReferenceCache(tmp_path)
    assert reader.distances(_graph(), [0])[0].tolist() == [0, 4, 4, 11] and reader.computed == 1
    assert np.load(kept).tolist() == [0, 4, 4, 11]


def test_the_rows_kept_or_read_last_are_held_in_memory_read_only_for_one_graph(tmp_path):
    """A sweep's timers of one graph, one per algorithm, read its sample's rows one after the other."""
    from autotune.graphs import load_graph

    cache, other = ReferenceCache(tmp_path), load_graph("rmat8", use_cache=False)
    assert cache.ensure(_graph(), [0, 1]) == 2
    for kept in (tmp_path / _graph().sha256).glob("*.npy"):
        kept.unlink()  # held: not read again
    rows = cache.distances(_graph(), [0, 1])
    assert cache.computed == 2 and rows[0].tolist() == [0, 4, 4, 11] and rows[1].tolist()[:2] == [2**31 - 1, 0]
    with pytest.raises(ValueError):
        rows[0][1] = 0
    cache.distances(other, [0])  # another graph's rows replace them
    assert cache.distances(_graph(), [0])[0].tolist() == [0, 4, 4, 11] and cache.computed == 4


def test_ensure_without_a_directory_computes_nothing(tmp_path):
    cache = ReferenceCache(None)
    assert cache.ensure(_graph(), [0, 1]) == 0 and cache.computed == 0


def test_the_forked_workers_find_scipy_and_the_graphs_array_loaded_before_the_fork():
    """A worker forked while another thread of the parent held an import lock (the kernels' builds
    run side by side) would wait for it forever if it imported: the parent loads what they use first."""
    import subprocess
    import sys

    code = ("import sys; from autotune.graphs import load_graph; from autotune.reference import oracle; "
            "from autotune.reference.cache import forked_workers, worker_graph; g = load_graph('rmat8'); "
            "assert 'scipy.sparse.csgraph' not in sys.modules\n"
            "with forked_workers(g, 2) as pool:\n"
            "    assert 'scipy.sparse.csgraph' in sys.modules and oracle._scipy_graphs.get(g) is not None\n"
            "    print(sorted(pool.map(_imported, [0, 1])))")
    helper = ("import sys\n"
              "def _imported(_):\n"
              "    from autotune.reference import oracle\n"
              "    from autotune.reference.cache import worker_graph\n"
              "    return oracle._scipy_graphs.get(worker_graph()) is not None\n")
    done = subprocess.run([sys.executable, "-c", helper + code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[True, True]"


def test_the_workers_rows_equal_scipys():
    """Past `PARALLEL_EDGES` the rows are computed by forked workers, one source each, written into
    memory shared with the parent (a wide graph's: tests/test_distance_width.py)."""
    from autotune.graphs import load_graph
    from autotune.reference.cache import INF, PARALLEL_EDGES, compute
    from autotune.reference.oracle import reference_distances

    graph = load_graph("rmat14", use_cache=False)
    assert graph.n_edges >= PARALLEL_EDGES
    rows = compute(graph, [0, 5, 77, 5])
    assert list(rows) == [0, 5, 77]
    for source, row in zip(rows, reference_distances(graph, [0, 5, 77])):
        assert rows[source].dtype == np.int32 and np.array_equal(rows[source], np.where(row < 0, INF, row))


def test_a_large_graphs_references_are_said_on_stderr_with_their_time(tmp_path, monkeypatch, capsys):
    from autotune.graphs import load_graph
    from autotune.reference import cache

    graph = load_graph("rmat10", use_cache=False)
    ReferenceCache(tmp_path).distances(graph, [0, 1])
    assert capsys.readouterr().err == ""  # a small graph: nothing said
    monkeypatch.setattr(cache, "NOTED_EDGES", graph.n_edges)
    ReferenceCache(tmp_path / "other").distances(graph, [0, 1])
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "autotune: rmat10: the CPU references (scipy's Dijkstra) of 2 sources on " \
        f"{min(2, usable_cores())} core{'s' if usable_cores() > 1 else ''} ..."
    assert err[1].startswith("autotune: rmat10: the CPU references of 2 sources: ") and err[1].endswith(" s")
    monkeypatch.setattr(cache, "usable_cores", lambda: 1)  # a process kept to one core (taskset) forks no worker
    ReferenceCache(tmp_path / "third").distances(graph, [0, 1])
    assert capsys.readouterr().err.splitlines()[0].endswith("of 2 sources on 1 core ...")


def test_references_started_ahead_fork_their_workers_at_once_and_are_waited_for_and_kept_once(tmp_path, monkeypatch):
    """A sweep starts its references before it opens the GPU and builds its kernels in threads: the
    workers are forked by `start`, and `ensure` (or `distances`) waits for them and keeps the rows
    (two cores to fork on, however many this process may run on: `taskset -c 0 pytest` has one)."""
    import multiprocessing

    monkeypatch.setattr("autotune.reference.cache.usable_cores", lambda: 2)

    from autotune.graphs import load_graph
    from autotune.reference.cache import INF
    from autotune.reference.oracle import reference_distances

    graph = load_graph("rmat14", use_cache=False)
    cache = ReferenceCache(tmp_path)
    cache.start(graph, [0, 5, 77])
    assert multiprocessing.active_children()  # forked now, not when waited for
    assert cache.ensure(graph, [0, 5, 77, 100]) == 4  # the three started, and one more
    assert cache.computed == 4 and cache.ensure(graph, [0, 5, 77, 100]) == 0
    rows = cache.distances(graph, [0, 100])
    for source, row in zip((0, 100), reference_distances(graph, [0, 100])):
        assert np.array_equal(rows[source], np.where(row < 0, INF, row))
    ReferenceCache(None).start(graph, [0])  # nothing kept, nothing started


def test_references_started_and_abandoned_stop_their_workers_at_once(tmp_path, monkeypatch):
    """A sweep that fails or is interrupted between starting its references and waiting for them
    stops the workers instead of waiting for their Dijkstras, and keeps nothing."""
    import multiprocessing
    import time

    monkeypatch.setattr("autotune.reference.cache.usable_cores", lambda: 2)  # workers to fork, as above

    from autotune.graphs import load_graph

    graph = load_graph("rmat14", use_cache=False)
    cache = ReferenceCache(tmp_path)
    cache.start(graph, list(range(0, 16000, 250)))
    assert multiprocessing.active_children()
    started = time.perf_counter()
    cache.abandon()
    assert time.perf_counter() - started < 5.0 and not multiprocessing.active_children()
    assert cache.computed == 0 and not list(tmp_path.rglob("*.npy"))
    assert cache.ensure(graph, [0]) == 1  # started afresh where asked again


def _kept_rows(graph, sources):
    from autotune.reference.cache import INF
    from autotune.reference.oracle import reference_distances

    rows = reference_distances(graph, sources)
    return {s: np.where(row < 0, INF, row).astype(np.int32) for s, row in zip(sources, rows)}


def test_a_large_graphs_sample_past_a_few_sources_is_finished_by_a_gpu_solve_checked_on_the_cpus(
        tmp_path, monkeypatch, capsys):
    """The CPU computes `CPU_CHECKED` sources and the GPU the rest, kept only because its rows of the
    CPU's sources equal scipy's; below `GPU_SHARE_EDGES` arcs the CPU computes every one."""
    from autotune.graphs import load_graph
    from autotune.reference import cache

    graph = load_graph("rmat10", use_cache=False)
    sample = [3, 7, 11, 40, 99]
    right = _kept_rows(graph, sample)
    asked: list[list[int]] = []

    def gpu_rows(sources):
        asked.append(list(sources))
        return np.stack([right[s] for s in sources])

    monkeypatch.setattr(cache, "CPU_CHECKED", 2)
    small = ReferenceCache(tmp_path / "small")
    small.start(graph, sample, gpu_share=True)
    assert small.ensure(graph, sample, gpu_rows) == 5 and asked == []  # below GPU_SHARE_EDGES: every row the CPU's

    monkeypatch.setattr(cache, "GPU_SHARE_EDGES", graph.n_edges)
    references = ReferenceCache(tmp_path / "large")
    references.start(graph, sample, gpu_share=True)
    assert references.ensure(graph, sample, gpu_rows) == 5
    assert asked == [[3, 7, 11, 40, 99]]  # the CPU's two, checked, and the three it left
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        "autotune: rmat10: the references of 3 more sources solved on the GPU in ")
    kept = ReferenceCache(tmp_path / "large").distances(graph, sample)
    assert all(np.array_equal(kept[s], right[s]) for s in sample)


@pytest.mark.parametrize("failure, said", [
    ("wrong", "the GPU's reference solve differs from the kept (scipy's) row of source 7: the CPU computes the 2 "
              "sources left"),
    ("fails", "the GPU's reference solve failed (cuMemAlloc failed: out of memory): the CPU computes the 2 sources "
              "left"),
])
def test_a_gpu_solve_that_differs_from_scipys_on_a_checked_source_or_fails_leaves_the_rest_to_the_cpu(
        tmp_path, monkeypatch, capsys, failure, said):
    from autotune.graphs import load_graph
    from autotune.reference import cache

    graph = load_graph("rmat10", use_cache=False)
    sample = [3, 7, 11, 40]
    right = _kept_rows(graph, sample)

    def gpu_rows(sources):
        if failure == "fails":
            raise MemoryError("cuMemAlloc failed: out of memory")
        rows = np.stack([right[s] for s in sources])
        rows[sources.index(7), int(np.argmax(right[7] > 0))] += 1  # one reached vertex one too far
        rows[sources.index(40)] += 1  # and every distance of a row the CPU did not compute
        return rows

    monkeypatch.setattr(cache, "CPU_CHECKED", 2)
    monkeypatch.setattr(cache, "GPU_SHARE_EDGES", graph.n_edges)
    references = ReferenceCache(tmp_path)
    references.start(graph, sample, gpu_share=True)
    assert references.ensure(graph, sample, gpu_rows) == 4
    assert said in capsys.readouterr().err
    kept = ReferenceCache(tmp_path).distances(graph, sample)
    assert all(np.array_equal(kept[s], right[s]) for s in sample)


def test_a_graph_whose_distances_may_pass_32_bits_keeps_every_reference_on_the_cpu(monkeypatch):
    from autotune.graphs import build_csr
    from autotune.reference import cache

    fits = build_csr("fits", 3, np.array([0, 1]), np.array([1, 2]), np.array([2**29, 2**29]))
    heavy = build_csr("heavy", 3, np.array([0, 1]), np.array([1, 2]), np.array([2**30, 2**30]))
    monkeypatch.setattr(cache, "GPU_SHARE_EDGES", 0)
    assert cache.cpu_share(fits, [2, 0, 1, 0], checked=2) == [2, 0]
    assert cache.cpu_share(heavy, [2, 0, 1], checked=2) == [2, 0, 1]  # 2 x 2^30 + 2^30 passes 2^31 - 1
