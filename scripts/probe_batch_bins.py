#!/usr/bin/env python3
"""Time Delta-stepping's batch-end prediction with every block size and warp-bin threshold of a
small grid, and the shipped table's batch-end best, in one process on the same 32 sources (every
solve checked against scipy's Dijkstra): the evidence for the model's rules 5 and 6
(`autotune.algorithms.delta.rules`), which the classout suite found wrong on graphs where the batch
end's best differs from the prediction only there (mesh-bcsstk25: warp threshold 64 against the
predicted 32, +22%).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_batch_bins.py OUT.jsonl [GRAPH,GRAPH,...]

Default graphs: the shipped table's whose queries curve ends in Delta-stepping. Each row is one
configuration of one graph: {"graph", "class": "bins grid" | "table best", "config", "status",
"ms_per_sssp", "rounds"}.
"""
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autotune import algorithms  # noqa: E402
from autotune.launch import KernelLaunch, LaunchConfig  # noqa: E402
from benchmarks import data  # noqa: E402
from benchmarks.classout import profile_of  # noqa: E402
from benchmarks.probes import probe_rows  # noqa: E402

BLOCK_SIZES = (128, 256, 512, 1024)
WARP_THRESHOLDS = (32, 64, "off")
SAMPLE, ROUNDS = 32, 2


def grid(predicted: LaunchConfig) -> list[LaunchConfig]:
    """The prediction with each block size and warp threshold (canonical, duplicates dropped)."""
    entry = algorithms.get("delta")
    return list(dict.fromkeys(
        entry.canonical(LaunchConfig(predicted.concurrent_kernels,
                                     {k: KernelLaunch(size, launch.cache) for k, launch in predicted.kernels.items()},
                                     predicted.algorithm, {**predicted.params, "warp_threshold": warp}))
        for size, warp in itertools.product(BLOCK_SIZES, WARP_THRESHOLDS)))


def main(out_path: str, names: str = "") -> None:
    from autotune.gpu import device_description, gpu_session
    from autotune.model.features import GraphFeatures

    with gpu_session(0) as device:
        gpu = device_description(device)
        path, table = data.load_shipped_table(gpu)
        if not names:
            names = ",".join(e.name for e in table.entries if e.curve and e.curve[-1].algorithm == "delta")
        profile = profile_of(str(gpu["name"]))
        with open(out_path, "w") as out:
            for name, graph, sources, expected in data.suite_graphs(names, SAMPLE):
                predicted = algorithms.get("delta").predict(GraphFeatures.from_graph(graph), profile).config
                best = table.lookup(graph, device=gpu, allow_other_device=False).config
                for row in probe_rows(name, graph, grid(predicted), best, sources, expected, ROUNDS, "bins grid"):
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    config = row["config"]
                    print(name, row["class"], next(iter(config["kernels"].values()))["block_size"],
                          config.get("params", {}).get("warp_threshold"), row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
