#!/usr/bin/env python3
"""Time a grid of asynchronous Delta-stepping (`adds`) configurations of one query against
near-far Delta-stepping's tuned one query (the configuration in the committed kernels benchmark,
benchmarks/results/nvidia-h100-80gb-hbm3/kernels.json), in the same process on the same GPU; every
solve is checked against scipy's Dijkstra (the sweep's timer).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_one_query.py OUT.jsonl GRAPH[,GRAPH...] '{"blocks": [32], "delta": ["mid"]}'

The grid names adds parameters; `delta` takes low, mid, mid4 and mid16 (the middle of the
graph's Delta domain, two steps below it, 4x and 16x above it); `block` the block size.
"""
import itertools
import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autotune import algorithms  # noqa: E402
from autotune.algorithms.delta import INFINITE, delta_values  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.launch import CacheState, KernelLaunch, LaunchConfig  # noqa: E402
from autotune.measure import Protocol, choose_sources  # noqa: E402
from autotune.model.features import graph_statistics  # noqa: E402

KERNELS = ROOT / "benchmarks/results/nvidia-h100-80gb-hbm3/kernels.json"
PROTOCOL = Protocol(sample=8, min_repetitions=3, max_repetitions=3)


def adds_config(block: int, params: dict) -> LaunchConfig:
    entry = algorithms.get("adds")
    return entry.validate(LaunchConfig(1, {"solve": KernelLaunch(block, CacheState.DEFAULT)}, "adds",
                                       {**entry.default_params(), **params}))


def grid_configs(graph, grid: dict) -> list[LaunchConfig]:
    deltas = [d for d in delta_values(SimpleNamespace(**graph_statistics(graph))) if d != INFINITE]
    middle = len(deltas) // 2
    named = {"low": deltas[max(0, middle - 2)], "mid": deltas[middle], "mid4": deltas[min(len(deltas) - 1, middle + 2)],
             "mid16": deltas[min(len(deltas) - 1, middle + 4)]}
    keys = sorted(grid)
    configs = []
    for values in itertools.product(*(grid[k] for k in keys)):
        params = dict(zip(keys, values))
        if "delta" in params:
            params["delta"] = named.get(params["delta"], params["delta"])
        configs.append(adds_config(int(params.pop("block", 256)), params))
    return list(dict.fromkeys(configs))


def main(out_path: str, graph_names: str, grid_text: str = "{}") -> None:
    from autotune.gpu import CudaEventTimer, gpu_session, open_solver

    tuned = {r["graph"]: r["one_query"]["config"] for r in json.loads(KERNELS.read_text())["measurements"]}
    with open(out_path, "w") as out, gpu_session():
        for name in graph_names.split(","):
            graph = load_graph(str(ROOT / "tests/data" / name) if name.endswith(".gz") else name)
            sources = choose_sources(graph, PROTOCOL.sample, seed=1)
            runs = [("adds", grid_configs(graph, json.loads(grid_text)))]
            if name in tuned:
                runs.insert(0, ("delta", [algorithms.config_from_json(tuned[name])]))
            for algorithm, configs in runs:
                with open_solver(graph, algorithm) as solver:
                    timer = CudaEventTimer(solver, sources, PROTOCOL)
                    for config in configs:
                        m = timer.measure(config)
                        ms = m.ms_per_sssp if m.times_ms else None
                        row = {"graph": name, "config": config.to_json(), "status": m.status.value, "ms_per_sssp": ms,
                               "times_ms": list(m.times_ms), "iterations": m.iterations, "reason": m.reason}
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                        print(name, algorithm, json.dumps(config.params), m.status.value,
                              "-" if ms is None else f"{ms:.4f}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
