#!/usr/bin/env python3
"""What one query would take on each Delta-stepping graph of suite `kernels` if its iterations relaxed
nothing, against issue 29's 20x-Gunrock budget (Gunrock's time over 20): the launch and its init
plus the table's mean iterations of the one-query configuration times an empty iteration's cost
(no GPU; from committed measurements).

The floor's two figures default to docs/notes/kernels.md's: an empty iteration of a grid 4.4 us
(run AF: 4.3-4.6 us, a path from its first vertex, Email-Enron's grid of 64 blocks) and of one
block 1.9 us (run AE), the launch and init about 23 us (run AE). Gunrock's time and ours are the
suite's (`benchmarks/results/<gpu>/kernels.json`), the iterations the table's point it timed.

    python3 scripts/one_query_floor.py [--results FILE] [--table FILE] [--grid-us 4.4] [--block-us 1.9] [--launch-us 23]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from autotune.files import read_json
    from benchmarks.choice import winner

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="benchmarks/results/nvidia-h100-80gb-hbm3/kernels.json")
    parser.add_argument("--table", default="tables/h100.json")
    parser.add_argument("--grid-us", type=float, default=4.4, help="an empty grid iteration (default 4.4 us)")
    parser.add_argument("--block-us", type=float, default=1.9, help="an empty one-block iteration (default 1.9 us)")
    parser.add_argument("--launch-us", type=float, default=23.0, help="the launch and its init (default 23 us)")
    args = parser.parse_args()
    results = read_json(ROOT / args.results)
    entries = {e["graph"]["name"]: e for e in read_json(ROOT / args.table)["entries"]}
    print(f"{args.results} ({results['measurements'][0].get('commit')}...), {args.table}; empty iteration "
          f"{args.grid_us} us (grid) or {args.block_us} us (one block), launch and init {args.launch_us} us")
    print("| graph | ours (ms) | Gunrock (ms) | ratio | 20x budget (us) | iterations | blocks | floor (us) | floor over budget |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    over = 0
    rows = [m for m in results["measurements"] if m["one_query"]["config"]["algorithm"] == "delta"
            and (m.get("gunrock") or {}).get("ms")]
    for row in rows:
        query = row["one_query"]
        point = winner(entries[query["entry"]], 1)
        blocks = int(point["config"]["params"]["blocks"])
        iteration = args.block_us if blocks == 1 else args.grid_us
        floor = args.launch_us + point["iterations"] * iteration
        budget = row["gunrock"]["ms"] / 20 * 1000
        over += floor > budget
        print(f"| {row['graph']} | {query['ms_per_sssp']:.3f} | {row['gunrock']['ms']:.3f} | "
              f"{row['gunrock']['ms'] / query['ms_per_sssp']:.1f}x | {budget:.0f} | {point['iterations']:.1f} | "
              f"{blocks} | {floor:.0f} | {'yes' if floor > budget else 'no'} |")
    print(f"{over} of {len(rows)} graphs: the floor alone is over the 20x budget")


if __name__ == "__main__":
    main()
