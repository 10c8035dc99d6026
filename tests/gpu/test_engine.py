"""The thesis engine (GPU Crauser, GPU Martín): every launch parameter gives the CPU reference's
distances (run with `pytest -m gpu`)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graphs import load_graph
from autotune.measure import Protocol, Status, choose_sources
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.algorithms.thesis import CRAUSER

pytestmark = pytest.mark.gpu

GRAPHS = ["rmat12", "random3000-d8", "rome99.gr.gz", "Email-Enron.txt.gz", "delaunay_n16.mtx.gz",
          "rgg_n_2_15_s0.graph.gz"]


def _spec(name: str, data_dir) -> str:
    return str(data_dir / name) if name.endswith(".gz") else name


def _timer(graph, algorithm="crauser", sources=8, launch_mode="batched"):
    from autotune.gpu import CudaEventTimer
    from autotune.algorithms import get
    from autotune.algorithms.thesis.engine import ThesisSolver

    solver = ThesisSolver(graph, get(algorithm), launch_mode)
    protocol = Protocol(sample=sources, min_repetitions=1, max_repetitions=1)
    return solver, CudaEventTimer(solver, choose_sources(graph, sources, seed=1), protocol)


def _assert_ok(measurement):
    assert measurement.status is Status.OK, measurement.reason
    assert measurement.ms_per_sssp > 0
    assert set(measurement.kernel_ms) >= {"relax", "minimum", "update"}


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
@pytest.mark.parametrize("name", GRAPHS)
def test_default_config_is_correct_on_every_graph(session, data_dir, name, algorithm):
    graph = load_graph(_spec(name, data_dir))
    solver, timer = _timer(graph, algorithm)
    with solver:
        measurement = timer.measure(CRAUSER.default_config().replace(algorithm=algorithm))
    _assert_ok(measurement)
    assert measurement.iterations >= 1


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
@pytest.mark.parametrize("cache", list(CacheState))
@pytest.mark.parametrize("block_size", [32, 96, 192, 480, 1024])
def test_every_cache_state_and_block_size(session, cache, block_size, algorithm):
    graph = load_graph("rmat12")
    solver, timer = _timer(graph, algorithm)
    with solver:
        _assert_ok(timer.measure(CRAUSER.uniform(block_size, cache).replace(algorithm=algorithm)))


@pytest.mark.parametrize("name", ["rmat11", "random3000-d8", "Email-Enron.txt.gz"])
@pytest.mark.parametrize("lanes", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("ck", [1, 2, 3, 16, 32, 64])
def test_concurrent_kernels_and_lanes(session, data_dir, name, ck, lanes):
    graph = load_graph(_spec(name, data_dir))
    solver, timer = _timer(graph, sources=48)
    with solver:
        _assert_ok(timer.measure(CRAUSER.uniform(128, concurrent_kernels=ck, lanes=lanes)))


def test_mixed_kernels_and_streams_mode(session):
    graph = load_graph("random2000-d20")
    config = LaunchConfig(4, {
        "relax": KernelLaunch(480, CacheState.PREFER_L1, 8),
        "minimum": KernelLaunch(96, CacheState.NO_L1),
        "update": KernelLaunch(1024, CacheState.PREFER_SHARED),
    })
    for mode in ("batched", "streams"):
        solver, timer = _timer(graph, launch_mode=mode)
        with solver:
            _assert_ok(timer.measure(config))


def test_memory_refusal_is_invalid_and_the_process_stays_usable(session, monkeypatch):
    import pycuda.driver as driver

    graph = load_graph("rmat10")
    solver, timer = _timer(graph)
    with solver:
        real = driver.mem_get_info
        monkeypatch.setattr(driver, "mem_get_info", lambda: (1024, real()[1]))
        refused = timer.measure(CRAUSER.uniform(256, concurrent_kernels=64))
        monkeypatch.setattr(driver, "mem_get_info", real)
        assert refused.status is Status.INVALID
        assert "GiB" in refused.reason
        _assert_ok(timer.measure(CRAUSER.default_config()))


def test_a_block_larger_than_the_kernel_allows_is_invalid(session, monkeypatch):
    import pycuda.driver as driver

    from autotune.gpu import compile as compiled

    graph = load_graph("rmat10")
    solver, timer = _timer(graph)

    class SmallLimit:  # a compiled kernel that allows 64 threads per block
        def __init__(self, function):
            self.function = function

        def get_attribute(self, attribute):
            if attribute == driver.function_attribute.MAX_THREADS_PER_BLOCK:
                return 64
            return self.function.get_attribute(attribute)

        def __getattr__(self, name):
            return getattr(self.function, name)

    with solver:
        real = compiled.kernel_function
        monkeypatch.setattr(compiled, "kernel_function", lambda *args: SmallLimit(real(*args)))
        refused = timer.measure(CRAUSER.uniform(128))
        monkeypatch.setattr(compiled, "kernel_function", real)
        assert refused.status is Status.INVALID and "exceeds" in refused.reason
        _assert_ok(timer.measure(CRAUSER.uniform(128)))


def test_an_allocation_that_fails_is_invalid_and_the_process_stays_usable(session, monkeypatch):
    import pycuda.driver as driver

    graph = load_graph("rmat10")
    solver, timer = _timer(graph)
    with solver:
        real = driver.mem_alloc

        def refuse(nbytes):
            raise driver.MemoryError("cuMemAlloc failed: out of memory")

        monkeypatch.setattr(driver, "mem_alloc", refuse)
        refused = timer.measure(CRAUSER.uniform(256, concurrent_kernels=32))
        monkeypatch.setattr(driver, "mem_alloc", real)
        assert refused.status is Status.INVALID and "out of GPU memory" in refused.reason
        _assert_ok(timer.measure(CRAUSER.uniform(256, concurrent_kernels=32)))


def test_a_launch_that_fails_is_invalid_and_the_process_stays_usable(session, monkeypatch):
    import pycuda.driver as driver

    from autotune.gpu.engine import PackedLaunch

    graph = load_graph("rmat10")
    solver, timer = _timer(graph)
    with solver:
        real = PackedLaunch.__call__

        def fail(self, stream, variant=0):
            raise driver.LaunchError("cuLaunchKernel failed: too many resources requested for launch")

        monkeypatch.setattr(PackedLaunch, "__call__", fail)
        refused = timer.measure(CRAUSER.uniform(512))
        monkeypatch.setattr(PackedLaunch, "__call__", real)
        assert refused.status is Status.INVALID and "too many resources" in refused.reason
        _assert_ok(timer.measure(CRAUSER.uniform(512)))


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
def test_gpu_iterations_equal_the_cpu_solvers(session, algorithm):
    from autotune import algorithms
    from autotune.algorithms import open_solver

    graph = load_graph("rmat12")
    sources = list(choose_sources(graph, 4, seed=3))
    entry = algorithms.get(algorithm)
    with open_solver(graph, algorithm) as solver:
        result = solver.solve(entry.uniform(256, concurrent_kernels=4), sources)
    expected = [entry.solve_cpu(graph, s).iterations for s in sources]
    assert result.iterations.tolist() == expected


def test_sssp_command_on_the_gpu(capsys, tmp_path):
    import json

    import numpy as np

    from autotune.cli import main

    saved = tmp_path / "d.npy"
    status = main(["sssp", "--graph", "rmat10", "--json", "--save", str(saved),
                   "--config", json.dumps(CRAUSER.uniform(96, "no_l1", 2, 4).to_json())])
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] is True and report["ms_per_sssp"] > 0
    assert report["config"]["concurrent_kernels"] == 2
    assert np.load(saved).dtype == np.int64


def test_sssp_command_with_a_table(capsys, tmp_path):
    import json

    from autotune.cli import main

    table = tmp_path / "t.json"
    assert main(["predict", "--graph", "rmat10", "--device", "auto", "-o", str(table)]) == 0
    capsys.readouterr()
    assert main(["sssp", "--graph", "rmat11", "--json", "--table", str(table)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] is True


@pytest.mark.parametrize("mode", ["batched", "streams"])
def test_a_warm_up_past_its_limit_stops_on_time_and_the_solver_stays_usable(session, data_dir, mode):
    """A limit far below a road network's solve: the warm-up stops near it (the host checks every
    iteration), the measurement is pruned with the time it ran, and the next solve is correct."""
    graph = load_graph(str(data_dir / "rome99.gr.gz"))
    solver, timer = _timer(graph, launch_mode=mode)
    config = CRAUSER.uniform(256, concurrent_kernels=8)
    with solver:
        whole = timer.measure(config)
        _assert_ok(whole)
        stopped = timer.measure(config, limit_ms=whole.ms_per_sssp / 10)
        assert stopped.status is Status.PRUNED and "during the warm-up" in stopped.reason
        assert stopped.warm_up_ms < whole.ms_per_sssp / 2
        _assert_ok(timer.measure(config, profile=True))


def test_the_delta_host_loop_stops_at_its_deadline(session, data_dir):
    from autotune.algorithms import get
    from autotune.algorithms import open_solver
    from autotune.gpu.engine import Overtime

    graph = load_graph(str(data_dir / "usa-roads.gr.gz"))
    default = get("delta").default_config()
    with open_solver(graph, "delta") as solver:
        with pytest.raises(Overtime) as stopped:
            solver.solve(default.replace(loop="host", delta=10), [0], deadline_ms=0.5)  # thousands of phases
        assert stopped.value.elapsed_ms < 50
        assert solver.solve(default, [0]).iterations[0] > 0  # usable afterwards


def test_the_iterations_a_host_loop_queued_return_at_once_past_its_deadline(session):
    """The host runs up to `POLL_DEPTH` iterations ahead: at the deadline it sets the done flags, and
    those iterations do nothing (delta_lanes at CK 1,024 on urand24 ran 45 s past a sweep's budget)."""
    from autotune.algorithms import get, open_solver
    from autotune.gpu.engine import Overtime
    from autotune.reference.cache import INF
    from autotune.reference.oracle import reference_distances

    graph = load_graph("rmat18")
    config = get("delta_lanes").default_config().replace(concurrent_kernels=1024, delta="inf")
    sources = list(choose_sources(graph, 1024))
    with open_solver(graph, "delta_lanes") as solver:
        solver.solve(config, sources)  # warm
        whole = solver.solve(config, sources)
        assert whole.iterations.max() >= 8  # more iterations than the host queues
        with pytest.raises(Overtime) as stopped:
            solver.solve(config, sources, deadline_ms=0.5)
        assert stopped.value.elapsed_ms < whole.elapsed_ms / 3
        again = solver.solve(config, sources[:1] * 1024)  # usable afterwards, and right
        expected = reference_distances(graph, sources[:1])[0]
        assert np.array_equal(again.distances[5], np.where(expected < 0, INF, expected))


@pytest.mark.parametrize("blocks", [128, 1])  # solve_grid's blocks read the error at their barriers, solve_block's
def test_a_persistent_delta_solve_stops_at_its_deadline(session, data_dir, blocks):
    """A persistent kernel is one launch: the host writes its instances' error fields at the deadline
    (`engine.stopped_at_deadline`); grid24's sweep at d3bc23d ran 107 s past its budget."""
    from autotune.algorithms import get
    from autotune.algorithms import open_solver
    from autotune.gpu.engine import Overtime
    from autotune.reference.cache import INF
    from autotune.reference.oracle import reference_distances

    graph = load_graph(str(data_dir / "usa-roads.gr.gz"))
    default = get("delta").default_config()
    slow = default.replace(loop="persistent", blocks=blocks, delta=1)  # a phase per unit of distance: seconds
    with open_solver(graph, "delta") as solver:
        with pytest.raises(Overtime) as stopped:
            solver.solve(slow, [0], deadline_ms=5.0)
        assert stopped.value.elapsed_ms < 200
        whole = solver.solve(default, [0])  # usable afterwards, and right
        expected = reference_distances(graph, [0])[0]
        assert np.array_equal(whole.distances[0], np.where(expected < 0, INF, expected))
