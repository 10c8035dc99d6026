"""What the Delta-stepping GPU tests share: a configuration of both kernels, measuring
configurations with the sweep's timer (every solve checked against scipy's Dijkstra), and the
check that all of them were right."""
from __future__ import annotations

from autotune import algorithms
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.measure import Protocol, Status, choose_sources


def config(algorithm: str, ck: int, block: int, split_block: int, cache: str, **params) -> LaunchConfig:
    """`advance` of `block` and `split` of `split_block` threads, both in `cache`; the algorithm's
    default parameters updated with `params`."""
    entry = algorithms.get(algorithm)
    kernels = {"advance": KernelLaunch(block, CacheState(cache)), "split": KernelLaunch(split_block, CacheState(cache))}
    return entry.validate(LaunchConfig(ck, kernels, algorithm, {**entry.default_params(), **params}))


def measure(graph, algorithm: str, configs, sample: int):
    """One repetition of each configuration over a sample of `sample` sources."""
    from autotune.gpu import CudaEventTimer

    from autotune.algorithms import open_solver

    protocol = Protocol(sample=sample, min_repetitions=1, max_repetitions=1)
    with open_solver(graph, algorithm) as solver:
        timer = CudaEventTimer(solver, choose_sources(graph, sample, seed=1), protocol)
        return [timer.measure(c) for c in configs]


def assert_all_ok(measurements) -> None:
    wrong = [f"{m.config}: {m.status} {m.reason}" for m in measurements if m.status is not Status.OK]
    assert not wrong, "\n".join(wrong)
    assert all(m.ms_per_sssp > 0 and m.iterations >= 1 for m in measurements)
