#!/usr/bin/env python3
"""The shipped kernels under compute-sanitizer: each case solves a small graph with a configuration
the shipped table hands out (`Table.lookup`'s point for K sources at once of the named entry, or
that entry's best of one algorithm; for a loop mode no entry picks, such a configuration with its
parameters replaced; for adds, its default), through `autotune sssp --config`, every solve checked
against scipy's Dijkstra by the command itself; each tool (memcheck: out-of-bounds and misaligned
accesses; racecheck: shared-memory hazards; synccheck: barriers a block does not reach together)
runs it once. Prints a row per case and tool (the sanitizer's summary, the exit status, seconds)
and writes them as JSON lines.

    python3 scripts/sanitize_kernels.py OUT.jsonl [TABLE] [--only NAME,...] [--tools T,...] [--jobs N]

Graphs are read where `python3 -m benchmarks graphs` and tests/data keep them; PHAST cases need
the graph's hierarchy kept (`AUTOTUNE_CACHE_DIR`, `autotune graph hierarchy G`).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOOLS = ("memcheck", "racecheck", "synccheck")
TIMEOUT_S = 300  # a run past it is recorded as such (a grid barrier without resident blocks would hang)
SUMMARY = re.compile(r"(?:ERROR|RACECHECK) SUMMARY: .*")


class Case(NamedTuple):
    name: str  # what --only names it by
    graph: str  # what `autotune sssp --graph` reads
    entry: str  # the table entry whose configuration it runs ("": the algorithm's default configuration)
    queries: int  # the entry's point for this many sources at once (`Table.lookup`)
    sources: int  # how many sources it solves (and checks); 0: from vertex 0 (`--paths`, `--target`)
    algorithm: str | None = None  # instead: the entry's best of this algorithm (`by_algorithm`)
    extra: tuple[str, ...] = ()
    params: dict[str, Any] | None = None  # these parameters replace the configuration's


CASES = (
    Case("grid", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 1, 4),
    Case("grid-defer", "rmat12", "rmat17", 1, 4),
    Case("grid-tree", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 1, 0, extra=("--paths",)),
    Case("grid-target", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 1, 0,
         extra=("--target", "17")),
    Case("blocks-16", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 16, 16),
    Case("blocks-16-of-8", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 16, 8),  # 8 instances: 64 blocks
    Case("blocks-16-small", "tests/data/rome99.gr.gz", "Email-Enron.txt.gz", 16, 8),  # less work a block
    Case("batch", "tests/data/Email-Enron.txt.gz", "Email-Enron.txt.gz", 1024, 64),
    Case("one-block", "benchmarks/graphs/mesh-bcsstk25.csr.npz", "mesh-bcsstk25.csr.npz", 1, 4),
    Case("lanes", "rmat12", "rmat17", 1024, 64),
    Case("crauser", "random24k-d200", "random49k-d200", 1024, 64),
    Case("martin", "random24k-d200", "random98k-d200", 1024, 64, algorithm="martin"),
    Case("phast-shared", "benchmarks/graphs/power-pegase2869.csr.npz", "power-pegase2869.csr.npz", 1, 4),
    Case("phast-global", "benchmarks/graphs/delaunay_n15.csr.npz", "delaunay_n15.csr.npz", 1, 4),
    Case("phast-tree", "benchmarks/graphs/power-pegase2869.csr.npz", "power-pegase2869.csr.npz", 1, 0,
         extra=("--paths",)),
    Case("phast-target", "benchmarks/graphs/power-pegase2869.csr.npz", "power-pegase2869.csr.npz", 1, 0,
         extra=("--target", "17")),
    Case("phast-batch", "tests/data/rome99.gr.gz", "rome99.gr.gz", 1024, 64),
    Case("adds", "tests/data/Email-Enron.txt.gz", "", 1, 4, algorithm="adds"),  # experimental, in no table
    # loop modes no table entry picks now: the graph in shared memory, and a launch a phase
    Case("shared-loop", "tests/data/rome99.gr.gz", "mesh-bcsstk25.csr.npz", 1, 4,
         params={"loop": "shared", "blocks": 1, "delta": 4096}),
    Case("host-loop", "tests/data/rome99.gr.gz", "mesh-bcsstk25.csr.npz", 1, 2,
         params={"loop": "host", "blocks": 1, "delta": 4096}),
)


def configuration(table: Any, case: Case) -> dict[str, Any]:
    """The configuration of the case's entry: its best of `case.algorithm`, else the fastest curve
    point with CK <= `case.queries` (no entry: `case.algorithm`'s default); `case.params` replace its
    parameters."""
    from autotune import algorithms

    if not case.entry:
        return algorithms.get(str(case.algorithm)).default_config().to_json()
    entry = next((e for e in table.entries if e.name == case.entry), None)
    if entry is None:
        raise SystemExit(f"{case.name}: the table has no entry {case.entry}")
    point = entry.by_algorithm.get(case.algorithm) if case.algorithm else entry.fastest_within(case.queries)
    if point is None:
        raise SystemExit(f"{case.name}: {case.entry} has no point for {case.algorithm or case.queries}")
    config = dict(point.config_json)
    if case.params:
        config["params"] = {**config.get("params", {}), **case.params}
    return config


def solved(case: Case) -> list[str]:
    """The sources option of the case's command: N sources, each checked, or vertex 0."""
    if case.sources:
        return ["--sources", str(case.sources), "--verify", str(case.sources)]
    return ["--source", "0"]


def sanitized(case: Case, config: Path, algorithm: str, tool: str) -> dict[str, Any]:
    """One run of the case (its configuration written to `config`) under `tool`: the sanitizer's
    summary line, the exit status, seconds."""
    command = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", sys.executable, "-m", "autotune",
               "sssp", "--graph", case.graph, "--config", str(config), *solved(case), *case.extra]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_S)
        returncode, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, output = None, f"timed out after {TIMEOUT_S} s\n{expired.stdout or ''}{expired.stderr or ''}"
    found = SUMMARY.findall(output)
    row = {"case": case.name, "tool": tool, "graph": case.graph, "entry": case.entry, "queries": case.queries,
           "algorithm": algorithm, "returncode": returncode,
           "summary": found[-1] if found else None, "seconds": round(time.perf_counter() - start, 1),
           "command": " ".join(command[:5] + ["python3"] + command[6:])}
    if returncode or not found:
        row["tail"] = output[-3000:]
    return row


def main() -> None:
    from autotune.table import Table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="the rows, as JSON lines")
    parser.add_argument("table", nargs="?", default=str(ROOT / "tables" / "h100.json"))
    parser.add_argument("--only", default="", help="the cases to run, by name (default: all)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"the tools (default {','.join(TOOLS)})")
    parser.add_argument("--jobs", type=int, default=4, help="runs at once (default 4)")
    args = parser.parse_args()
    table = Table.load(args.table)
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    unknown = only - {case.name for case in CASES}
    if unknown:
        raise SystemExit(f"--only: no case {', '.join(sorted(unknown))}; the cases: {', '.join(c.name for c in CASES)}")
    cases = [case for case in CASES if not only or case.name in only]
    with tempfile.TemporaryDirectory(prefix="sanitize-") as folder:
        runs = []
        for index, case in enumerate(cases):
            config, path = configuration(table, case), Path(folder) / f"case{index}.json"
            path.write_text(json.dumps(config))
            runs += [(case, path, config["algorithm"], tool) for tool in args.tools.split(",")]
        with ThreadPoolExecutor(args.jobs) as pool, open(args.output, "w") as out:
            for row in pool.map(lambda run: sanitized(*run), runs):
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{row['case']:28} {row['tool']:10} rc {str(row['returncode']):4} {row['seconds']:6.1f} s  "
                      f"{row['summary']}", flush=True)


if __name__ == "__main__":
    main()
