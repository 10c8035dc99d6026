"""All-pairs shortest paths as one SSSP per source: `autotune sssp --sources all` on the GPU
against scipy's Dijkstra over every source on the same machine's CPU (issue 13; the Kemp thesis,
../shared/seeds/003, compares all-pairs algorithms on the GPU).

Per graph, in one run on one machine:
1. tune: `autotune sweep --graph G --algorithm ALG --strategy bayes --trials T` (throughput: the
   least time per SSSP at any CK), written to OUT/G.table.json;
2. GPU: `autotune sssp --graph G --sources all --table OUT/G.table.json --json`, every vertex a
   source once, in batches of the table's CK, 16 sources verified against scipy before the rest
   run; the wall time of all batches counts launches and the copy of every distance to the host;
3. CPU: scipy.sparse.csgraph.dijkstra over every source, (a) in one process when the graph has at
   most --one-core-max vertices, and (b) always in a pool of every core, sources in chunks. The
   one-core time of a larger graph is also given as its measured rate on --sample sources times
   the vertex count (an extrapolation, said so).

    python3 scripts/bench_allpairs.py -o OUT --graphs tests/data/rome99.gr.gz,tests/data/delaunay_n16.mtx.gz
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import dijkstra

from autotune.graphs import load_graph

_MATRIX = None


def _init(data, indices, indptr, n):
    global _MATRIX
    _MATRIX = scipy.sparse.csr_array((data, indices, indptr), shape=(n, n))


def _chunk(sources):
    start = time.perf_counter()
    dijkstra(_MATRIX, directed=True, indices=sources)
    return time.perf_counter() - start


def scipy_all_pairs(graph, processes: int, chunk: int, sources=None) -> float:
    """Wall seconds of scipy's Dijkstra from `sources` (default every vertex) in `processes` processes."""
    sources = np.arange(graph.n_vertices) if sources is None else np.asarray(sources)
    matrix = scipy.sparse.csr_array((graph.weights.astype(np.float64), graph.columns, graph.row_offsets),
                                    shape=(graph.n_vertices, graph.n_vertices))
    chunks = [sources[i:i + chunk] for i in range(0, len(sources), chunk)]
    start = time.perf_counter()
    if processes == 1:
        _init(matrix.data, matrix.indices, matrix.indptr, graph.n_vertices)
        for part in chunks:
            _chunk(part)
    else:
        with ProcessPoolExecutor(processes, initializer=_init,
                                 initargs=(matrix.data, matrix.indices, matrix.indptr, graph.n_vertices)) as pool:
            list(pool.map(_chunk, chunks))
    return time.perf_counter() - start


def run(command: list[str]) -> str:
    print("$", " ".join(command), flush=True)
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--graphs", required=True, help="comma-separated graph specs or files")
    parser.add_argument("--algorithm", default="delta")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--one-core-max", type=int, default=20_000)
    parser.add_argument("--sample", type=int, default=1024)
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    results = []
    for spec in args.graphs.split(","):
        graph = load_graph(spec)
        name = graph.name
        table = args.output / f"{Path(name).name}.table.json"
        started = time.perf_counter()
        run([sys.executable, "-m", "autotune", "sweep", "--graph", spec, "--algorithm", args.algorithm,
             "--strategy", "bayes", "--trials", str(args.trials), "--quiet", "-o", str(table),
             "--records", str(table.with_suffix(".records.jsonl"))])
        tuning_s = time.perf_counter() - started
        gpu = json.loads(run([sys.executable, "-m", "autotune", "sssp", "--graph", spec, "--sources", "all",
                              "--table", str(table), "--json"]))
        row = {"graph": name, "vertices": graph.n_vertices, "edges": graph.n_edges, "tuning_s": tuning_s,
               "gpu": {k: gpu[k] for k in ("wall_s", "gpu_ms", "ms_per_sssp", "sssp_per_s", "batches",
                                           "concurrent_kernels", "verified_sources", "config", "device")}}
        row["scipy_pool_s"] = scipy_all_pairs(graph, cores, chunk=256)
        row["scipy_pool_processes"] = cores
        if graph.n_vertices <= args.one_core_max:
            row["scipy_one_core_s"] = scipy_all_pairs(graph, 1, chunk=256)
        else:
            rng = np.random.default_rng(0)
            sample = rng.choice(graph.n_vertices, size=args.sample, replace=False)
            rate = scipy_all_pairs(graph, 1, chunk=256, sources=sample) / args.sample
            row["scipy_one_core_s_extrapolated"] = rate * graph.n_vertices
            row["scipy_one_core_sample"] = args.sample
        results.append(row)
        print(json.dumps(row), flush=True)
    (args.output / "allpairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    lines = ["| graph | vertices | GPU all-pairs (s) | ms/SSSP | CK | scipy, every core (s) | scipy, one core (s) | "
             "vs every core | vs one core |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        one = r.get("scipy_one_core_s")
        label = f"{one:.2f}" if one is not None else f"{r['scipy_one_core_s_extrapolated']:.1f} (from {r['scipy_one_core_sample']} sources)"
        one = one if one is not None else r["scipy_one_core_s_extrapolated"]
        g = r["gpu"]
        lines.append(f"| {r['graph']} | {r['vertices']:,} | {g['wall_s']:.3f} | {g['ms_per_sssp']:.4f} | "
                     f"{g['concurrent_kernels']} | {r['scipy_pool_s']:.2f} ({r['scipy_pool_processes']} processes) | "
                     f"{label} | {r['scipy_pool_s'] / g['wall_s']:.0f}x | {one / g['wall_s']:.0f}x |")
    (args.output / "allpairs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
