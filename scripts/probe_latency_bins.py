#!/usr/bin/env python3
"""Time Delta-stepping's one-query grid prediction (`autotune predict --algorithm delta --queries
1` where rule 1 gives a grid: `autotune.algorithms.delta.latency`) at every block threshold of the
domain crossed with the block sizes `SIZES`, and at the grid sizes `BLOCKS` with its own bins,
beside the shipped table's one-query best, in one process on the same 32 sources (every solve
checked against scipy's Dijkstra): `latency bins grid` rows, on which the grid's block size and
block threshold (rules 3 and 4) can be fitted by the time they cost rather than as the winners'
medians. Suite `classout` at f71269e found them the one K = 1 miss on the H100 (ca-HepPh +16%:
threshold 256 and blocks of 672 predicted, 128 and 704 best).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_latency_bins.py OUT.jsonl [GRAPH,GRAPH,...]

Default graphs: `GRAPHS`, the H100 table's graphs whose one-query winner is a Delta-stepping
grid. A graph whose prediction is one block is skipped. Each row is one configuration of one
graph: {"graph", "class": "latency bins grid" | "table best", "config", "status", "ms_per_sssp",
"rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import one_query_shapes, probe_rows  # noqa: E402

GRAPHS = ("Email-Enron.txt.gz,anybeat,ca-CondMat,ca-HepPh,p2p-Gnutella31,sx-askubuntu,web-Stanford,random24k-d2,"
          "random24k-d20,random49k-d2,random49k-d20,random98k-d2,random98k-d20,rmat17,rmat18,rmat19,rmat20")
SIZES = (256, 384, 512, 672, 768, 1024)
BLOCKS = (32, 128)
SAMPLE, ROUNDS = 32, 2


def bins_grid(predicted, thresholds) -> list:
    """`predicted` first, then each block threshold at each block size, then the other grid sizes."""
    from autotune.launch import KernelLaunch

    sized = [predicted.replace(block_threshold=t, **{k: KernelLaunch(size, launch.cache)
                                                     for k, launch in predicted.kernels.items()})
             for size in SIZES for t in thresholds]
    return list(dict.fromkeys([predicted, *sized, *(predicted.replace(blocks=b) for b in BLOCKS)]))


def main(out_path: str, names: str = GRAPHS) -> None:
    from autotune import algorithms

    delta = algorithms.get("delta")
    with open(out_path, "w") as out:
        for name, graph, sources, expected, predicted, best in one_query_shapes(names, SAMPLE):
            if predicted.params.get("blocks", 1) == 1:
                print(name, "one block: skipped", flush=True)
                continue
            configs = bins_grid(predicted, delta.parameter("block_threshold").domain(graph))
            for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS, "latency bins grid"):
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(name, len(configs), "configurations", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
