"""Issue 12's target "`--algorithm auto` never more than 3% slower than the best Crauser
configuration recorded in reports/h100/sweeps": each auto table's best against the best of that
graph's recorded Crauser sweeps (exhaustive and bayes), as a markdown table. A partial table (a
sweep stopped before it finished) is marked so: its best is the best measured until then, which the
finished sweep could only better (or confirm within its re-measurement's noise).

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
        table = json.loads(path.read_text())
        for entry in table["entries"]:
            graph, best = entry["graph"]["name"], entry["best"]
            winner = best["config"]["algorithm"] + (" (partial sweep)" if table.get("x-partial") else "")
            crauser = recorded.get(graph)
            ratio = best["ms_per_sssp"] / crauser if crauser else None
            print(f"| {graph} | {winner} | {best['ms_per_sssp']:.4g} | "
                  f"{crauser:.4g} | {ratio:.2f}x | {'yes' if ratio <= 1.03 else 'NO'} |"
                  if crauser else f"| {graph} | - | - | not recorded | | |")


if __name__ == "__main__":
    main()
