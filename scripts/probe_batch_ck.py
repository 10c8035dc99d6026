#!/usr/bin/env python3
"""Time Delta-stepping's batch-end prediction (its block size from the level width: rule 5) at
every CK and block size of a small grid, and the shipped table's batch-end best, in one process on the same 32
sources (every solve checked against scipy's Dijkstra): the evidence for the model's rule 4
(`autotune.algorithms.delta.rules`: the largest CK). The H100's table re-swept at 9ce6f1c has its batch
best at CK 128 on the random graphs, Email-Enron and sx-askubuntu, 1.26x to 1.85x faster than its
CK 1,024 point; its curve points were tuned apart, so this probe holds the rest of the configuration
and moves CK and the block size (rule 5's ladder was fitted at CK 1,024).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_batch_ck.py OUT.jsonl [GRAPH,GRAPH,...]

Each row is one configuration of one graph: {"graph", "class": "ck grid" | "table best", "config",
"status", "ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import batch_shapes, probe_rows  # noqa: E402

CONCURRENT = (64, 128, 256, 512, 1024)
BLOCK_SIZES = (128, 256, 512, 1024)
GRAPHS = ("Email-Enron.txt.gz,sx-askubuntu,random98k-d2,random49k-d20,anybeat,ca-CondMat,p2p-Gnutella31,"
          "web-Stanford,usa-roads.gr.gz")
SAMPLE, ROUNDS = 32, 2


def main(out_path: str, names: str = GRAPHS) -> None:
    with open(out_path, "w") as out:
        for name, graph, sources, expected, shaped, best in batch_shapes(names, SAMPLE):
            configs = [shaped(ck, size) for ck in CONCURRENT for size in BLOCK_SIZES]
            for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS, "ck grid"):
                out.write(json.dumps(row) + "\n")
                out.flush()
                config = row["config"]
                print(name, row["class"], config["concurrent_kernels"],
                      next(iter(config["kernels"].values()))["block_size"], row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
