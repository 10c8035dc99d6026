#!/usr/bin/env python3
"""Time Delta-stepping's batch shapes under three rules for `solve_block`'s duplicate bitmaps
(`autotune.algorithms.delta_shared.bitmap_words`), in one process on the same 32 sources, every
solve checked against scipy's Dijkstra:

- "sms": bitmaps only while CK is at most the SM count (the engine before a9bcd3b);
- "residency": also beyond, where they do not lower the blocks an SM holds (the engine since);
- "any ck": wherever they fit the block's shared memory.

The question was whether rule 4's CK 128 (one instance per SM) beat CK 1,024 only because the
bitmaps stopped at CK 132: at a block of 1,024 threads the registers already allow one block per
SM, so bitmaps there cost no residency at any CK. Each pass times the grid with the shipped
table's batch best beside it, so that the passes can be compared through it.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_batch_bitmaps.py OUT.jsonl [GRAPH,GRAPH,...]

Each row is one configuration of one graph in one pass: {"graph", "class": "<pass> grid" |
"<pass> table best", "config", "status", "ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autotune.algorithms import delta_shared  # noqa: E402
from autotune.gpu import delta_engine  # noqa: E402
from benchmarks.probes import batch_shapes, probe_rows  # noqa: E402

SHAPES = ((128, 1024), (1024, 1024), (1024, 512), (1024, 256), (1024, 128))  # (CK, block size)
GRAPHS = ("Email-Enron.txt.gz,sx-askubuntu,random98k-d2,random49k-d20,anybeat,ca-CondMat,p2p-Gnutella31,"
          "web-Stanford,usa-roads.gr.gz,cit-HepTh,road-NY,delaunay_n16.mtx.gz,random24k-d2,random49k-d2,"
          "rgg_n_2_15_s0.graph.gz,mesh-4elt,p2p-Gnutella04")
SAMPLE, ROUNDS = 32, 2


def within_sms(n: int, ck: int, sm_count: int, free_bytes: int, resident=None) -> int:
    """`bitmap_words` without its residency condition: none beyond the SM count."""
    return delta_shared.bitmap_words(n, ck, sm_count, free_bytes)


def any_ck(n: int, ck: int, sm_count: int, free_bytes: int, resident=None) -> int:
    """`bitmap_words` without its CK and residency conditions."""
    return delta_shared.bitmap_words(n, 1, sm_count, free_bytes)


def main(out_path: str, names: str = GRAPHS) -> None:
    stock = delta_engine.bitmap_words
    with open(out_path, "w") as out:
        for name, graph, sources, expected, shaped, best in batch_shapes(names, SAMPLE):
            configs = [shaped(ck, size) for ck, size in SHAPES]
            for label, words in (("sms", within_sms), ("residency", stock), ("any ck", any_ck)):
                delta_engine.bitmap_words = words
                for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS, "grid"):
                    row["class"] = f"{label} {row['class']}"
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    config = row["config"]
                    print(name, row["class"], config["concurrent_kernels"],
                          next(iter(config["kernels"].values()))["block_size"], row["ms_per_sssp"], flush=True)
            delta_engine.bitmap_words = stock


if __name__ == "__main__":
    main(*sys.argv[1:])
