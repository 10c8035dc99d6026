"""Where a sweep's measuring time went: wall seconds of its records by phase, role and status.

    python3 scripts/sweep_time_breakdown.py RECORDS.jsonl

Each record's `wall_s` is the time its measurement took (warm-up, repetitions, profiled solve),
and `times` how many times each record holds (its timed repetitions; a pruned one's, what it
had measured when it stopped), listed per record or summed;
roles name the specials (default, baseline candidates, the model's prediction), phase `search`
the trials and `remeasure` the finalists' interleaved rounds.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from autotune.search.records import read_records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path)
    args = parser.parse_args(argv)
    seconds: dict[tuple[str, str, str], float] = defaultdict(float)
    times: dict[tuple[str, str, str], list[int]] = defaultdict(list)  # per record, its count of times
    for record in read_records(args.records):
        key = (record.phase, ",".join(record.roles) or "trial", str(record.measurement.status))
        seconds[key] += record.wall_s or 0.0
        times[key].append(len(record.measurement.times_ms))
    total = sum(seconds.values())
    print(f"{'phase':<10} {'role':<28} {'status':<8} {'records':>7} {'seconds':>8} {'share':>6}  times")
    for key in sorted(seconds, key=lambda k: -seconds[k]):
        each = times[key]
        listed = ", ".join(map(str, each)) if len(each) <= 6 else f"{sum(each)} in all"
        print(f"{key[0]:<10} {key[1]:<28} {key[2]:<8} {len(times[key]):>7} {seconds[key]:>8.1f} {seconds[key] / total:>6.1%}"
              f"  {listed}")
    print(f"{'total':<48} {sum(map(len, times.values())):>7} {total:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
