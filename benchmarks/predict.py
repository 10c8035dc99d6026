"""Suite `predict` (no GPU): how long `autotune predict --algorithm auto` takes on a graph of about
1M vertices and 30M arcs (rmat20), on one CPU core, as a user waits for it: a process of its own,
start-up included, once with an empty graph cache (the graph generated and cached) and then with
the cache warm (`--predict-runs` times, their median).

Target (issue 28): under 2 s for a graph of 1M vertices and 30M edges on one CPU core.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Sequence

from autotune.arguments import positive_int
from benchmarks import data
from benchmarks.results import Results, command_line, commit, host, now

TARGET_S = 2.0


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--predict-graph", default="rmat20", help="suite predict: the graph (default rmat20)")
    parser.add_argument("--predict-runs", type=positive_int, default=5, help="suite predict: runs with a warm cache (default 5)")


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Seconds one `autotune` process takes, pinned to one core where the OS allows."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    start = time.perf_counter()
    subprocess.run([*pin, sys.executable, "-m", "autotune", *argv], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def cpu_model() -> str:
    """The CPU's model name (Linux), else what Python's platform says."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as file:
            return next(line.split(":", 1)[1].strip() for line in file if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def run(args: argparse.Namespace) -> Results:
    graph = getattr(args, "predict_graph", "rmat20")
    runs = getattr(args, "predict_runs", 5)
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "AUTOTUNE_CACHE_DIR": cache}
        for queries in (1, 1024):
            argv = ["predict", "--graph", data.spec(graph), "--device", "hopper-h100", "--algorithm", "auto",
                    "--queries", str(queries)]
            cold = timed(argv, env) if queries == 1 else None  # the first run generates and caches the graph
            warm = [timed(argv, env) for _ in range(runs)]
            rows.append({"graph": graph, "queries": queries, "cold_s": cold, "warm_s": warm,
                         "median_s": statistics.median(warm)})
    return Results("predict", {"name": data.RECORDS_GPU["name"]}, command_line(), commit(), now(), host(),
                   {"graph": graph, "runs": runs, "cpu": cpu_model()}, tuple(rows),
                   {"worst_median_s": max(r["median_s"] for r in rows), "target_s": TARGET_S,
                    "met": all(r["median_s"] < TARGET_S for r in rows)})


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = results.summary
        cpu = results.parameters.get("cpu", "this host's CPU")
        lines += [f"`autotune predict --algorithm auto` on {results.parameters['graph']}, one core of {cpu} "
                  f"(`{results.command}`, {results.date[:10]}, commit {results.commit}), a process each, start-up "
                  f"included: median of {results.parameters['runs']} runs with the graph cached. Target under "
                  f"{s['target_s']:g} s: **{'met' if s['met'] else 'not met'}**.", "",
                  "| K | median (s) | runs (s) | first run, graph not cached (s) |", "|---:|---:|---|---:|"]
        for r in results.measurements:
            cold = "-" if r["cold_s"] is None else f"{r['cold_s']:.2f}"
            lines.append(f"| {r['queries']} | {r['median_s']:.2f} | {', '.join(f'{t:.2f}' for t in r['warm_s'])} | {cold} |")
        lines.append("")
    return lines
