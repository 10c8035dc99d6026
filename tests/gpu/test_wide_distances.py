"""64-bit distances on the GPU (`pytest -m gpu`): on a graph whose shortest paths pass 2^31 the
algorithms with 64-bit builds solve exactly (scipy's int64 rows, the CPU solvers' iterations), the
check on the GPU, the per-source summaries and the shortest-path trees read their rows, and
`autotune sssp` saves every source's distances, checked."""
from __future__ import annotations

import json

import numpy as np
import pytest

from autotune import algorithms
from autotune.cli import main
from autotune.graphs import load_graph
from autotune.many.reductions import summarize_rows
from autotune.many.store import load_distances
from autotune.measure import Protocol, Status, choose_sources
from autotune.reference import reference_distances
from autotune.reference.cache import ReferenceCache
from autotune.reference.distance_range import WIDE, width_for

pytestmark = pytest.mark.gpu

SPEC = "grid12-w100000000-200000000"  # 4,096 vertices, shortest paths up to about 2^34
WIDE_ALGORITHMS = [a.name for a in algorithms.all_algorithms() if a.wide_distances]
CK = 24  # the sample's 8 sources three times over


@pytest.fixture(scope="module")
def heavy():
    graph = load_graph(SPEC)
    assert width_for(graph) is WIDE
    return graph


@pytest.fixture(scope="module")
def sample(heavy):
    sample = list(choose_sources(heavy, 8, seed=1))
    expected = ReferenceCache(None).distances(heavy, sample)
    assert max(int(row[row != WIDE.inf].max()) for row in expected.values()) > 2**32
    return sample, expected


@pytest.mark.parametrize("algorithm", WIDE_ALGORITHMS)
def test_a_wide_graph_solves_exactly_and_as_many_iterations_as_the_cpu_solver(session, heavy, sample, algorithm):
    from autotune.algorithms import open_solver

    sources, expected = sample
    entry = algorithms.get(algorithm)
    batch = [sources[k % len(sources)] for k in range(CK)]
    with open_solver(heavy, algorithm) as solver:
        result = solver.solve(entry.default_config().replace(concurrent_kernels=CK), batch)
        assert result.distances.dtype == np.int64
        for k, source in enumerate(batch):
            assert np.array_equal(result.distances[k], expected[source]), source
        if algorithm in ("crauser", "martin"):  # (delta_lanes counts a group's 32 lanes together, PHAST's
            # upward search rounds where the CPU's sweep counts levels, ADDS the buckets its window visited)
            assert result.iterations[0] == entry.solve_cpu(heavy, batch[0]).iterations


@pytest.mark.parametrize("algorithm", WIDE_ALGORITHMS)
def test_the_checks_summaries_and_trees_read_64_bit_rows(session, heavy, sample, monkeypatch, algorithm):
    from autotune.algorithms import open_solver
    from autotune.gpu import CudaEventTimer, timer
    from autotune.gpu.queries import tree_costs
    from autotune.gpu.summary import RowSummaries
    from autotune.gpu.verify import DeviceCheck

    sources, expected = sample
    monkeypatch.setattr(timer, "DEVICE_CHECK_BYTES", 0)  # every batch checked on the GPU
    config = algorithms.get(algorithm).default_config().replace(concurrent_kernels=CK)
    batch = [sources[k % len(sources)] for k in range(CK)]
    with open_solver(heavy, algorithm) as solver:
        protocol = Protocol(sample=8, min_repetitions=1, max_repetitions=1)
        assert CudaEventTimer(solver, sources, protocol, expected=expected).measure(config).status is Status.OK
        solver.solve(config, batch)
        wrong = {**expected, sources[2]: expected[sources[2]].copy()}
        far = int(np.argmax(np.where(wrong[sources[2]] == WIDE.inf, -1, wrong[sources[2]])))
        wrong[sources[2]][far] += 2**32  # a difference only the high word holds
        differs = DeviceCheck(solver, wrong, sources).first_differences(batch)
        assert differs.tolist() == [far if s == sources[2] else -1 for s in batch]
        summaries, _ms = RowSummaries(solver).summarize(CK)
        assert np.array_equal(summaries, summarize_rows(np.stack([expected[s] for s in batch]), WIDE.inf))
        costs, trees = tree_costs(solver, config, sources[:2], expected, repetitions=1)
        assert len(costs) == 2 and set(trees) == set(sources[:2])


def test_sssp_saves_every_sources_64_bit_distances_with_auto_and_a_named_algorithm(session, heavy, tmp_path, capsys):
    assert main(["sssp", "--graph", SPEC, "--sources", "256", "--save-dir", str(tmp_path / "d"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["solved"] == 256
    saved, rows = load_distances(tmp_path / "d")
    want = reference_distances(heavy, saved)
    assert want.max() > 2**32 and np.array_equal(rows, want)
    assert main(["sssp", "--graph", SPEC, "--source", "3", "--save", str(tmp_path / "one.npy")]) == 0
    assert np.array_equal(np.load(tmp_path / "one.npy"), reference_distances(heavy, [3])[0])
    assert main(["sssp", "--graph", SPEC, "--source", "3", "--algorithm", "delta", "--save", str(tmp_path / "d.npy")]) == 0
    assert np.array_equal(np.load(tmp_path / "d.npy"), reference_distances(heavy, [3])[0])


def test_a_sweep_of_a_wide_graph_tunes_the_algorithms_with_64_bit_builds(session, tmp_path, capsys):
    out = tmp_path / "wide.json"
    assert main(["sweep", "--graph", SPEC, "--budget", "20", "--output", str(out), "--quiet"]) == 0
    assert "auto leaves" not in capsys.readouterr().err  # every algorithm of auto has 64-bit builds
    (entry,) = json.loads(out.read_text())["entries"]
    assert entry["best"]["verified"] and set(entry["by_algorithm"]) <= set(WIDE_ALGORITHMS)
    assert entry["x-distance_bits"] == 64
    assert {point["config"]["algorithm"] for point in entry["curve"]} <= set(WIDE_ALGORITHMS)


def test_delta_stepping_in_64_bits_in_every_loop_mode_with_hubs_and_targets(session, heavy, sample):
    """Every loop mode of kernels/delta.cu's 64-bit builds (the host loop, one block, a grid with and
    without deferral, the graph in shared memory), hubs cut into chunks and expanded by blocks and
    warps on a skewed graph, and the TARGETED build's early stops: scipy's distances."""
    import solves
    from autotune.algorithms import open_solver
    from autotune.algorithms.delta import INFINITE, OFF

    loops = [{"loop": "host", "blocks": 4}, {"loop": "persistent", "blocks": 1}, {"loop": "persistent", "blocks": 4},
             {"loop": "persistent", "blocks": 4, "defer_work": 400000000}, {"loop": "shared", "blocks": 1}]
    configs = [solves.config("delta", 4, 256, 256, "default", delta=d, **loop)
               for d in (2**27, 2**30, INFINITE) for loop in loops]
    solves.assert_all_ok(solves.measure(heavy, "delta", configs, 4))
    skewed = load_graph("rmat12", weights="1000000000-2000000000")
    assert width_for(skewed) is WIDE
    hubs = [solves.config("delta", 2, 256, 256, "default", delta=2**28, warp_threshold=8, block_threshold=hub, **loop)
            for hub in (64, OFF) for loop in loops[:3]]
    solves.assert_all_ok(solves.measure(skewed, "delta", hubs, 2))
    sources, expected = sample
    targets = [(7 * s + 1) % heavy.n_vertices for s in sources[:4]]
    with open_solver(heavy, "delta") as solver:
        for loop in loops[:3]:
            shape = solves.config("delta", 4, 256, 256, "default", delta=2**28, **loop)
            early = solver.solve_to(shape, sources[:4], targets)
            assert [int(early.distances[k][t]) for k, t in enumerate(targets)] == \
                [int(expected[s][t]) for s, t in zip(sources[:4], targets)], loop


@pytest.mark.parametrize("algorithm", WIDE_ALGORITHMS)
def test_every_64_bit_build_launches_blocks_of_1024_threads(session, heavy, sample, algorithm):
    """A table's configuration, tuned on 32-bit builds, may launch blocks of 1,024 threads: every
    64-bit build takes them too (delta_lanes' advance took 72 registers, 896 threads at most)."""
    from autotune.algorithms import open_solver
    from autotune.launch import CacheState, KernelLaunch, LaunchConfig

    sources, expected = sample
    entry = algorithms.get(algorithm)
    default = entry.default_config()
    ck = max(4, min(entry.concurrent_kernels))
    config = entry.validate(LaunchConfig(ck, {k: KernelLaunch(1024, CacheState.DEFAULT) for k in default.kernels},
                                         algorithm, default.params))
    batch = [sources[k % len(sources)] for k in range(ck)]
    with open_solver(heavy, algorithm) as solver:
        result = solver.solve(config, batch)
        assert all(np.array_equal(result.distances[k], expected[s]) for k, s in enumerate(batch))


@pytest.mark.parametrize("algorithm", WIDE_ALGORITHMS)
def test_source_target_queries_in_64_bits(session, heavy, sample, algorithm):
    """`Solver.solve_to` on a graph needing 64 bits: each target's distance is scipy's (PHAST's two
    searches with their distances in global memory and in shared memory, Δ-stepping's TARGETED
    build, the others' full solves)."""
    from autotune.algorithms import open_solver

    sources, expected = sample
    entry = algorithms.get(algorithm)
    ck = max(4, min(entry.concurrent_kernels))
    batch = [sources[k % len(sources)] for k in range(ck)]
    targets = [(7 * s + 1) % heavy.n_vertices for s in batch]
    default = entry.default_config().replace(concurrent_kernels=ck)
    configs = [default] + ([default.replace(distances="shared")] if algorithm == "phast" else [])
    with open_solver(heavy, algorithm) as solver:
        for config in configs:
            early = solver.solve_to(config, batch, targets)
            assert [int(early.distances[k][t]) for k, t in enumerate(targets)] == \
                [int(expected[s][t]) for s, t in zip(batch, targets)], config
