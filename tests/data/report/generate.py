"""Regenerate the SYNTHETIC inputs of the report tests (no GPU: `autotune.search.timers.synthetic`).

    python3 tests/data/report/generate.py        # everything
    python3 tests/data/report/generate.py cpu    # cpu-times.jsonl only

Two real graphs (rmat10 and rmat12, seed 0, weights 1-100) swept with made-up times
(`SyntheticTimer`, 2 % noise, a different landscape per graph) on a device named "Synthetic GPU
(hopper-h100 profile, no hardware)": an exhaustive sweep (block sizes 64-512, every cache state,
CK 1, 4, 16, lanes 1 and 4) and a Bayesian one (TPE, 30 trials) per graph, written as tables and
records (the records' device is cut to its name, compute capability and SM count, to keep the
files small). `cpu-times.jsonl` is real: `CPU_COMMAND` below (scripts/cpu_baseline.py on the machine
that ran it: the first 16 sources of a pool of 16, Dijkstra 4 sources per call).
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from autotune.graphs import load_graph  # noqa: E402
from autotune.search import (  # noqa: E402
    Bayes, Exhaustive, GraphPlan, SearchSpace, StudyKey, open_storage, open_study, records_of, sweep_graph,
)
from autotune.search.run import specials as sp  # noqa: E402
from autotune.search.results.records import write_records  # noqa: E402
from autotune.search.timers.synthetic import SyntheticLandscape, SyntheticTimer, synthetic_device  # noqa: E402
from autotune.search.results.entries import sweep_table, write_sweep_table  # noqa: E402

SPACE = dict(block_sizes="64,128,256,512", caches=None, ck="1,4,16", lanes="1,4")
LANDSCAPES = {"rmat10": dict(best_lanes=4, best_ck_log2=2.0), "rmat12": dict(best_lanes=1, best_ck_log2=4.0)}
HEADER = "SYNTHETIC measurements (autotune.search.timers.synthetic.SyntheticTimer, no GPU); see tests/data/report/generate.py"
CPU_COMMAND = ["scripts/cpu_baseline.py", *LANDSCAPES, "--sources", "16", "--batch", "4", "--date", "2026-11-21",
               "-o", "tests/data/report/cpu-times.jsonl"]


def sweep(strategy, name: str):
    graph = load_graph(name, use_cache=False)
    device = synthetic_device()
    profile = sp.profile_from_json(device)
    info = sp.classify_graph(sp.graph_info(graph, seed=0), profile)
    space = SearchSpace.from_options("crauser", **SPACE)
    storage, url = open_storage("memory")
    key = StudyKey(info.sha256, "crauser", device["name"], strategy.label, space.digest(), {})
    handle = open_study(storage, url, key, strategy.sampler(space), resume=False)
    timer = SyntheticTimer(SyntheticLandscape(edges=graph.n_edges, **LANDSCAPES[name]), noise=0.02, seed=12)
    return sweep_graph(timer, GraphPlan(info, space, strategy, sp.model_specials(info, profile)), handle, device)


def cpu_times() -> None:
    """cpu-times.jsonl (run from the repository root, so that the recorded command is relative)."""
    subprocess.run([sys.executable, *CPU_COMMAND], cwd=ROOT, check=True)


def main() -> None:
    if sys.argv[1:] == ["cpu"]:
        cpu_times()
        return
    for strategy, stem in ((Exhaustive(), "exhaustive"), (Bayes(trials=30, seed=0), "bayes")):
        results = [sweep(strategy, name) for name in LANDSCAPES]
        device = results[0].device
        table = sweep_table(results, device, "crauser", command=f"tests/data/report/generate.py ({stem})")
        table["created"] = "2026-11-21T00:00:00+00:00"
        write_sweep_table(HERE / f"{stem}.json", table)
        short = {key: device[key] for key in ("name", "compute_capability", "sm_count")}
        records = [dataclasses.replace(r, device=short) for result in results for r in records_of(result)]
        write_records(HERE / f"{stem}.records.jsonl", records, header=HEADER)
    cpu_times()


if __name__ == "__main__":
    main()
