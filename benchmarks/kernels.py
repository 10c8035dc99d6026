"""Suite `kernels` (one GPU): one query and batches on the GPU against scipy's Dijkstra on one CPU
core of the same machine, with the configurations a tuned table gives each graph.

Per graph: `Table.lookup(graph, queries=1)` (one query: the table's latency point) and
`Table.lookup(graph)` (a batch: its best time per SSSP) are measured by the sweep's
`CudaEventTimer` (a warm-up, then `--repetitions` timed passes over a sample of 32 sources, CUDA
events around the launches, launches included; every solve's distances compared with scipy's, a
wrong one recorded as such), and scipy's Dijkstra is timed from `--cpu-sources` of the same sources
in this process (one core). Peers (Gunrock) are measured where installed; none is on the lent
machines, which the results say. A run of some graphs keeps the other graphs' rows of the results
it finds (each row names the commit that measured it).
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any, Sequence

from benchmarks import data
from benchmarks.results import Results, command_line, commit, earlier_rows, host, now

SAMPLE = 32


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--graphs", default=",".join(data.REAL + ("rmat17", "rmat20")),
                        help="the suite's graphs (comma-separated names of tests/data files or generator specs)")
    parser.add_argument("--table", type=Path, default=None,
                        help="the tuned table to look the configurations up in (default tables/<gpu>.json)")
    parser.add_argument("--repetitions", type=int, default=5, help="timed passes over the sample (default 5)")
    parser.add_argument("--cpu-sources", type=int, default=8, help="sources scipy solves per graph (default 8)")


def scipy_ms(graph: Any, sources: Sequence[int]) -> list[float]:
    """scipy's Dijkstra from each source, one at a time, in this process (one core), milliseconds."""
    from scipy.sparse.csgraph import dijkstra

    from autotune.reference.oracle import _scipy_graph

    matrix = _scipy_graph(graph)
    dijkstra(matrix, directed=True, indices=sources[0])  # warm-up: scipy's own set-up
    times = []
    for source in sources:
        start = time.perf_counter()
        dijkstra(matrix, directed=True, indices=source)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def run(args: argparse.Namespace) -> Results:
    from autotune.gpu import CudaEventTimer, device_description, gpu_session, open_solver
    from autotune.measure import Protocol

    rows = []
    with gpu_session(0) as device:
        gpu = device_description(device)
        table_path, table = data.load_shipped_table(gpu, args.table)
        protocol = Protocol(sample=SAMPLE, min_repetitions=args.repetitions, max_repetitions=args.repetitions)
        for name, graph, sample, expected in data.suite_graphs(args.graphs, SAMPLE):
            cpu = scipy_ms(graph, list(sample[: args.cpu_sources]))
            row: dict[str, Any] = {"graph": name, "vertices": graph.n_vertices, "edges": graph.n_edges,
                                   "scipy_ms": statistics.median(cpu), "scipy_times_ms": cpu, "commit": commit(),
                                   "date": now()}
            for label, queries in (("one_query", 1), ("batch", None)):
                match = table.lookup(graph, queries=queries, device=gpu)
                with open_solver(graph, match.config.algorithm) as solver:
                    measured = CudaEventTimer(solver, sample, protocol, expected=expected).measure(match.config)
                row[label] = {"config": match.config.to_json(), "entry": match.graph_name, "source": match.source,
                              "status": str(measured.status), "reason": measured.reason,
                              "ms_per_sssp": measured.ms_per_sssp, "times_ms": list(measured.times_ms)}
                if measured.ok:
                    row[f"{label}_vs_scipy"] = row["scipy_ms"] / measured.ms_per_sssp
            rows.append(row)
            print(f"kernels: {name}: one query {row['one_query']['ms_per_sssp']} ms, batch "
                  f"{row['batch']['ms_per_sssp']} ms per SSSP, scipy {row['scipy_ms']:.3f} ms", flush=True)
    measured = {r["graph"] for r in rows}
    rows += [r for r in earlier_rows("kernels", args.results, gpu.get("name")) if r["graph"] not in measured]
    ok = [r for r in rows if "one_query_vs_scipy" in r]
    summary = {"graphs": len(rows), "verified": sum(r["one_query"]["status"] == "ok" and r["batch"]["status"] == "ok"
                                                    for r in rows),
               "worst_one_query_vs_scipy": min((r["one_query_vs_scipy"] for r in ok), default=None),
               "peers": "Gunrock: not installed on the lent machine, not measured"}
    return Results("kernels", {**gpu, "table": data.shown(table_path)}, command_line(), commit(), now(), host(),
                   {"graphs": args.graphs, "repetitions": args.repetitions, "cpu_sources": args.cpu_sources,
                    "sample": SAMPLE}, tuple(rows), summary)


def _ms(part: dict[str, Any]) -> str:
    """A measurement's time and its configuration's algorithm, or its status."""
    if part.get("ms_per_sssp") is None:
        return part.get("status", "-")
    return f"{part['ms_per_sssp']:.4g} ({part['config'].get('algorithm', '-')})"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"{results.gpu_name}, configurations from `{results.gpu.get('table')}` (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}; a row of another commit was kept from an "
                  "earlier run, which the last column names); milliseconds per SSSP, medians of "
                  f"{results.parameters['repetitions']} passes over {results.parameters['sample']} sources, every "
                  "solve verified; scipy: Dijkstra on one core of the same machine.", "",
                  "| graph | vertices | edges | one query (ms) | vs scipy | batch (ms per SSSP) | CK | vs scipy "
                  "| scipy (ms) | commit |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in results.measurements:
            one, batch = r["one_query"], r["batch"]
            ratio = lambda key: f"{r[key]:.1f}x" if key in r else "-"  # noqa: E731
            lines.append(f"| {r['graph']} | {r['vertices']:,} | {r['edges']:,} | {_ms(one)} "
                         f"| {ratio('one_query_vs_scipy')} | {_ms(batch)} | {batch['config']['concurrent_kernels']} "
                         f"| {ratio('batch_vs_scipy')} | {r['scipy_ms']:.3g} | {r.get('commit', results.commit)} |")
        lines += ["", f"Peers: {results.summary.get('peers')}.", ""]
    return lines
