"""What the probe scripts (`scripts/probe_*.py`) share: their graphs with a prediction and the
shipped table's best, in one GPU session, and their records, a grid of configurations timed
beside that best (`answers.timed_together`: every solve checked against scipy's Dijkstra).
"""
from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

from benchmarks import answers, data

SPAN = 64  # the Deltas of a Delta grid: the domain's within this factor of the predicted one
LANES_SIZES = (256, 512, 1024)  # the lanes grid's block sizes (both kernels)
LANES_WEIGHTS = (1, 4, 16)  # ... and its finite Deltas, in the graph's largest weights (then INF)


def probe_rows(name: str, graph: Any, grid: Sequence[Any], reference: Any, sources: Sequence[int], expected: dict,
               rounds: int, grid_class: str) -> Iterator[dict[str, Any]]:
    """A probe's records: the configurations of `grid` and the table's best (`reference`) timed
    together (`answers.timed_together`), each as {"graph", "class": `grid_class` or "table best",
    "config", "status", "ms_per_sssp", "rounds"}."""
    measured = answers.timed_together(graph, [*grid, reference], sources, expected, rounds)
    for config in dict.fromkeys([*grid, reference]):
        timing = measured[config]
        yield {"graph": name, "class": grid_class if config in grid else "table best", "config": config.to_json(),
               "status": "ok" if timing["ms_per_sssp"] is not None else "failed", **timing}


def deltas_around(predicted: object, domain: tuple) -> list:
    """The finite Deltas of `domain` within SPAN of `predicted` (every finite one if it is INF)."""
    finite = [d for d in domain if isinstance(d, int)]
    if not isinstance(predicted, int):
        return finite
    return [d for d in finite if abs(math.log2(d / predicted)) <= math.log2(SPAN)]


def delta_grid(predicted: Any, domain: tuple) -> list[Any]:
    """`predicted` with each Delta of `deltas_around` it, itself first (an INF Delta included)."""
    return list(dict.fromkeys([predicted, *(predicted.replace(delta=d)
                                            for d in deltas_around(predicted.params["delta"], domain))]))


def lanes_grid(predicted: Any, features: Any) -> list[Any]:
    """`predicted` (a `delta_lanes` configuration) and every configuration of block size (`LANES_SIZES`,
    both kernels, its L1 state kept), blocks per SM (the parameter's values) and Delta (`LANES_WEIGHTS` x
    the graph's largest weight, the nearest power of two of its domain, and INF) at its CK, for a graph of
    `features` (`GraphFeatures`): the rows that the lane-interleaved model's constants are fitted on
    (`autotune.algorithms.delta_lanes.fit`)."""
    from autotune.algorithms import get
    from autotune.algorithms.delta.rules import nearest_power
    from autotune.launch import KernelLaunch

    algorithm = get("delta_lanes")
    domain = algorithm.parameter("delta").domain(features)
    deltas = dict.fromkeys([*(nearest_power(m * features.max_weight, domain) for m in LANES_WEIGHTS), domain[-1]])
    return list(dict.fromkeys([predicted, *(
        predicted.replace(delta=delta, blocks_per_sm=per_sm,
                          **{k: KernelLaunch(size, launch.cache) for k, launch in predicted.kernels.items()})
        for size in LANES_SIZES for per_sm in algorithm.parameter("blocks_per_sm").values for delta in deltas)]))


def batch_shapes(names: str, sample: int) -> Iterator[tuple[str, Any, Any, Any, Any, Any]]:
    """The batch probes' graphs (`scripts/probe_batch_ck.py`, `probe_batch_bitmaps.py`,
    `probe_delta_grid.py`), in one GPU session: each graph of `names` with its sources and their
    distances (`data.suite_graphs`), Delta-stepping's batch-end prediction with the graph's level
    width measured, a function that gives it another CK and block size (`shaped()`: the prediction
    itself; `shaped.profile`: the GPU's profile), and the shipped table's batch best."""
    from autotune import algorithms
    from autotune.gpu import device_description, gpu_session
    from autotune.launch import KernelLaunch
    from autotune.model.device import load_device
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import level_width

    with gpu_session(0) as device:
        gpu = device_description(device)
        _, table = data.load_shipped_table(gpu)
        profile = load_device(f"hopper-{data.gpu_file(str(gpu['name']))}")
        for name, graph, sources, expected in data.suite_graphs(names, sample):
            delta = algorithms.get("delta")
            predicted = delta.predict(delta.with_level_width(GraphFeatures.from_graph(graph), lambda: level_width(graph)),
                                      profile).config

            def shaped(ck: int | None = None, size: int | None = None, predicted=predicted) -> Any:
                if size is None:
                    return predicted.replace(concurrent_kernels=ck or predicted.concurrent_kernels)
                return predicted.replace(concurrent_kernels=ck or predicted.concurrent_kernels,
                                         **{k: KernelLaunch(size, launch.cache) for k, launch in predicted.kernels.items()})

            shaped.profile = profile  # type: ignore[attr-defined]  # the GPU's profile, for other predictions
            yield name, graph, sources, expected, shaped, table.lookup(graph, device=gpu, allow_other_device=False).config


def one_query_shapes(names: str, sample: int, queries: int = 1) -> Iterator[tuple[str, Any, Any, Any, Any, Any]]:
    """The one-query probe's graphs (`scripts/probe_latency_grid.py`), in one GPU session: each
    graph of `names` (default: the shipped table's real graphs) with its sources and their
    distances, Delta-stepping's prediction as `autotune predict --algorithm delta --queries K`
    gives it (the shipped choice model's one-query rules, the level width measured; for a few
    queries, one query's shape shared out over them), and the shipped table's best for K."""
    from autotune.predict.auto import predicted
    from autotune.gpu import device_description, gpu_session
    from autotune.predict.choice import shipped_choice
    from autotune.model.device import load_device
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import level_width

    with gpu_session(0) as device:
        gpu = device_description(device)
        path, table = data.load_shipped_table(gpu)
        names = names or ",".join(e.name for e in table.entries if data.is_real(e.name))
        profile = load_device(f"hopper-{data.gpu_file(str(gpu['name']))}")
        chooser = shipped_choice(profile)
        for name, graph, sources, expected in data.suite_graphs(names, sample):
            config, _ = predicted("delta", GraphFeatures.from_graph(graph), profile, "auto", queries,
                                  chooser.latency if chooser else None, lambda g=graph: level_width(g))
            yield name, graph, sources, expected, config, table.lookup(graph, device=gpu, allow_other_device=False,
                                                                       queries=queries).config
