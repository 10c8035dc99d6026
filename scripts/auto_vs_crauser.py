"""Issue 12's target "`--algorithm auto` never more than 3% slower than the best Crauser
configuration recorded in reports/h100/sweeps": each auto table's best against the best of that
graph's recorded Crauser sweeps (exhaustive and bayes), as a markdown table.

    python3 scripts/auto_vs_crauser.py AUTO_TABLE.json... [--recorded reports/h100/sweeps]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench_delta import RECORDED_SWEEPS, recorded_crauser_best  # scripts/ is this script's import path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", type=Path)
    parser.add_argument("--recorded", type=Path, default=RECORDED_SWEEPS)
    args = parser.parse_args()
    recorded = recorded_crauser_best(args.recorded)
    print("| graph | auto: winner | auto ms/SSSP | recorded Crauser best | ratio | within 3% |")
    print("|---|---|---|---|---|---|")
    for path in args.tables:
        for entry in json.loads(path.read_text())["entries"]:
            graph, best = entry["graph"]["name"], entry["best"]
            crauser = recorded.get(graph)
            ratio = best["ms_per_sssp"] / crauser if crauser else None
            print(f"| {graph} | {best['config']['algorithm']} | {best['ms_per_sssp']:.4g} | "
                  f"{crauser:.4g} | {ratio:.2f}x | {'yes' if ratio <= 1.03 else 'NO'} |"
                  if crauser else f"| {graph} | - | - | not recorded | | |")


if __name__ == "__main__":
    main()
