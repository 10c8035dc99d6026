"""Suite `fleet` (two GPUs or more of one host): the same sweep of several graphs in one process on
one GPU and with one worker per GPU (`--devices all`, one shared Optuna study per graph), back to
back on one host; the speed-up is the ratio of their wall times. Before the timed runs the graphs
are generated, every kernel compiled and the CPU reference distances computed, so that neither run
pays for them; each run has a fresh journal file.

Target (issue 27): the default (auto) sweep at least 1.8x faster on two GPUs than on one. Both runs
search every trial (`--budget none`): a budget would bound the one-GPU run's wall time, not its
work. `--fleet-option` narrows both runs alike (e.g. `--fleet-option=--trials --fleet-option=20`).
Until commit 444d422 a multi-GPU run did not prune an algorithm against the others' bests: it
searched GPU Crauser's and Martín's studies whole, and on rmat17 and usa-roads (`--trials 20`, two
H100s, 2026-11-26) had not finished in the 400-odd seconds of the call left after the one-GPU run's
64.5 s. The default (five real graphs and rmat17, `--budget none`) on two H200s at 1a5fe48: one GPU
176.6 s, both 95.0 s (1.86x); the tables kept by `--fleet-keep` agree on every graph's best within 0.6%.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from autotune.table import Table
from benchmarks import data
from benchmarks.results import Results, command_line, commit, host, now


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fleet-graphs", default=",".join((*data.REAL, "rmat17")),
                        help="the graphs the timed sweeps tune (default: the first suite's five real graphs and "
                        "rmat17)")
    parser.add_argument("--fleet-option", action="append", default=None, metavar="OPTION",
                        help="an option of both timed sweeps (repeatable; default: --budget none, the default "
                        "sweep searching every trial, as a fleet does)")
    parser.add_argument("--fleet-keep", type=Path, default=None, metavar="DIR",
                        help="keep both runs' tables (their x-workers say who measured what) in DIR")


def autotune(*argv: str) -> tuple[int, float]:
    start = time.perf_counter()
    status = subprocess.run([sys.executable, "-m", "autotune", *argv], capture_output=True, text=True).returncode
    return status, time.perf_counter() - start


def run(args: argparse.Namespace) -> Results:
    from autotune.gpu import device_count, device_description, device_handle

    options = ["--budget", "none"] if args.fleet_option is None else args.fleet_option
    specs = [data.spec(g) for g in args.fleet_graphs.split(",") if g]
    graphs = [arg for spec in specs for arg in ("--graph", spec)]
    gpus = device_count()
    gpu = device_description(device_handle(0))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        autotune("sweep", "--graph", "rmat10", "--algorithm", "auto", "--objective", "throughput", "--strategy", "model",
                 "--storage", "memory", "-q", "-o", str(work / "warm.json"))  # compiles every kernel
        autotune("sweep", *graphs, "--strategy", "model", "--storage", "memory", "-q", "-o", str(work / "refs.json"))
        for label, extra in (("one GPU", []), ("all GPUs", ["--devices", "all"])):
            out = work / f"{label.replace(' ', '-')}.json"
            status, wall = autotune("sweep", *graphs, *options, *extra, "--storage",
                                    str(work / f"{label.replace(' ', '-')}.journal"), "-q", "-o", str(out))
            best = {}
            if out.exists():
                best = {e.name: e.best.ms_per_sssp for e in Table.load(out).entries if e.best}
            rows.append({"run": label, "status": status, "wall_s": wall, "best_ms": best})
            if args.fleet_keep is not None and out.exists():
                args.fleet_keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(out, args.fleet_keep / out.name)
            print(f"fleet: {label}: exit {status} in {wall:.1f} s", flush=True)  # a run cut short still says this
    speedup = rows[0]["wall_s"] / rows[1]["wall_s"] if rows[1]["wall_s"] > 0 else None
    return Results("fleet", {**gpu, "gpus": gpus}, command_line(), commit(), now(), host(),
                   {"graphs": args.fleet_graphs, "options": options}, tuple(rows),
                   {"gpus": gpus, "speedup": speedup, "met": speedup is not None and speedup >= 1.8})


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        one, every = results.measurements
        s = results.summary
        lines += [f"{s['gpus']} x {results.gpu_name}, graphs {results.parameters['graphs']} (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}): one GPU {one['wall_s']:.1f} s, all GPUs "
                  f"{every['wall_s']:.1f} s: **{s['speedup']:.2f}x** (target 1.8x: {'met' if s['met'] else 'not met'}).",
                  ""]
    return lines
