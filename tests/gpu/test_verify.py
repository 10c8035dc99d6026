"""The check on the GPU (`autotune.gpu.verify`) finds what the check on the CPU finds, on every
engine's rows (run with `pytest -m gpu`)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune import algorithms
from autotune.graphs import load_graph
from autotune.measure import Protocol, Status, choose_sources
from autotune.reference.cache import ReferenceCache

pytestmark = pytest.mark.gpu

CK = 40  # the sample's 8 sources five times over; delta_lanes: a group of 32 and one of 8


@pytest.fixture(scope="module")
def graph():
    return load_graph("rmat12")


@pytest.mark.parametrize("algorithm", [a.name for a in algorithms.all_algorithms()])
def test_the_gpu_check_finds_no_difference_in_a_right_solve_and_the_first_of_a_wrong_reference(session, graph, graphs,
                                                                                              algorithm):
    from autotune.algorithms import open_solver
    from autotune.gpu.verify import DeviceCheck

    if algorithm == "phast":  # rmat12's hubs get no contraction hierarchy: every configuration is refused
        graph = graphs("rome99.gr.gz")

    sample = list(choose_sources(graph, 8, seed=1))
    expected = ReferenceCache(None).distances(graph, sample)
    sources = [sample[k % len(sample)] for k in range(CK)]
    config = algorithms.get(algorithm).default_config().replace(concurrent_kernels=CK)
    with open_solver(graph, algorithm) as solver:
        result = solver.solve(config, sources)
        assert DeviceCheck(solver, expected, sample).first_differences(sources).tolist() == [-1] * CK
        reached = np.flatnonzero(expected[sample[3]] < 2**31 - 1)
        vertex = int(reached[len(reached) // 2])
        wrong = {**expected, sample[3]: expected[sample[3]].copy()}
        wrong[sample[3]][vertex] += 1
        differs = DeviceCheck(solver, wrong, sample).first_differences(sources)
        assert differs.tolist() == [vertex if s == sample[3] else -1 for s in sources]
        assert np.array_equal(result.distances[3], expected[sample[3]])  # the rows are still there to copy


@pytest.mark.parametrize("algorithm", ["delta", "delta_lanes"])
def test_the_timer_checks_large_batches_on_the_gpu_and_names_a_difference(session, graph, monkeypatch, algorithm):
    from autotune.gpu import CudaEventTimer, timer

    from autotune.algorithms import open_solver

    monkeypatch.setattr(timer, "DEVICE_CHECK_BYTES", 0)
    sample = list(choose_sources(graph, 8, seed=1))
    expected = ReferenceCache(None).distances(graph, sample)
    config = algorithms.get(algorithm).default_config().replace(concurrent_kernels=CK)
    protocol = Protocol(sample=8, min_repetitions=1, max_repetitions=1)
    with open_solver(graph, algorithm) as solver:
        assert CudaEventTimer(solver, sample, protocol, expected=expected).measure(config).status is Status.OK
        wrong = {**expected, sample[5]: expected[sample[5]].copy()}
        wrong[sample[5]][sample[5]] = 1  # the source's own distance is 0
        measured = CudaEventTimer(solver, sample, protocol, expected=wrong).measure(config)
    assert measured.status is Status.WRONG
    assert measured.reason == (f"source {sample[5]}: 1 distances differ from the CPU reference "
                               f"(vertex {sample[5]}: GPU 0, CPU 1)")


def test_the_gpu_reference_rows_equal_scipys_and_a_sweep_keeps_them_past_the_cpus_few_sources(
        session, graph, tmp_path, monkeypatch):
    """`search.run.references.gpu_reference_rows` (here Delta-stepping's default configuration) gives scipy's
    rows, unreachable as INF; through `ReferenceCache.ensure` they finish a sample the CPU's share left."""
    from autotune.reference import cache
    from autotune.search.run.references import gpu_reference_rows

    sample = list(choose_sources(graph, 6, seed=2))
    expected = ReferenceCache(None).distances(graph, sample)
    rows = gpu_reference_rows(graph, algorithms.get("delta").default_config)(sample)
    assert rows.dtype == np.int32 and all(np.array_equal(rows[k], expected[s]) for k, s in enumerate(sample))
    monkeypatch.setattr(cache, "CPU_CHECKED", 2)
    monkeypatch.setattr(cache, "GPU_SHARE_EDGES", graph.n_edges)
    references, asked = ReferenceCache(tmp_path), []
    references.start(graph, sample, gpu_share=True)
    assert references.ensure(graph, sample, lambda sources: asked.append(sources) or rows) == 6
    assert asked == [sample]  # the CPU's two to check, and the four it left
    kept = ReferenceCache(tmp_path).distances(graph, sample)
    assert all(np.array_equal(kept[s], expected[s]) for s in sample)
