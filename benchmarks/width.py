"""Suite `width` (one GPU): what the 64-bit builds cost (`-DWIDE_DISTANCES=1`, the builds a graph
whose distances may pass 32 bits runs), measured on graphs that do not need them.

Per graph of `--width-graphs`, per algorithm with 64-bit builds (`Algorithm.wide_distances`) that
admits the graph (PHAST's hierarchy built first where it qualifies, as `sssp --table` does), per
CK of `--width-cks` that the algorithm runs: its default configuration at that CK timed by the
tuner's protocol (`CudaEventTimer`: warm-up, repetitions over the same `--width-sources` sources,
median) on the graph as it is (32-bit distances) and on `distance_range.widened(graph)` (the same
arrays, 64-bit distances), one after the other in one GPU session; every solve is checked against
scipy's distances of the sample, computed once (as int64 rows for the widened copy). The cost is the
ratio of the two medians.
"""
from __future__ import annotations

import argparse
from typing import Any, Iterator

from autotune.arguments import positive_int
from benchmarks import data
from benchmarks.results import Results, command_line, commit, host, now

DEFAULT_GRAPHS = ("rmat18", "grid18")


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--width-graphs", default=",".join(DEFAULT_GRAPHS),
                        help="suite width: its graphs (comma-separated; default rmat18,grid18)")
    parser.add_argument("--width-cks", default="1,32", help="suite width: the CKs timed (default 1,32; an "
                        "algorithm skips those below its smallest)")
    parser.add_argument("--width-sources", type=positive_int, default=32,
                        help="suite width: sources per graph (default 32)")


def run(args: argparse.Namespace) -> Results:
    from autotune.gpu import device_description, gpu_session

    cks = [int(ck) for ck in args.width_cks.split(",") if ck]
    with gpu_session(0) as device:
        gpu = device_description(device)
        rows = [row for name, graph, sources, expected in data.suite_graphs(args.width_graphs, args.width_sources)
                for row in graph_rows(name, graph, sources, expected, cks)]
    costs = [row["cost"] for row in rows if row["cost"] is not None]
    summary = {"rows": len(rows), "failed": sum(row["cost"] is None for row in rows),
               "largest_cost": max(costs, default=None), "smallest_cost": min(costs, default=None)}
    return Results("width", gpu, command_line(), commit(), now(), host(),
                   {"graphs": args.width_graphs, "cks": cks, "sources": args.width_sources}, tuple(rows), summary)


def graph_rows(name: str, graph: Any, sources: tuple[int, ...], expected: dict, cks: list[int]
               ) -> Iterator[dict[str, Any]]:
    """A row per (algorithm with 64-bit builds, CK): both widths' medians and their ratio (None
    where either was not measured right)."""
    import numpy as np

    from autotune import algorithms
    from autotune.reference.distance_range import NARROW, WIDE, widened

    wide_graph = widened(graph)
    wide_expected = {s: np.where(row == NARROW.inf, np.int64(WIDE.inf), row.astype(np.int64))
                     for s, row in expected.items()}  # unreachable: the 64-bit INF
    for algorithm in algorithms.all_algorithms():
        if not algorithm.wide_distances or algorithm.admits(graph, prepare=True) is not None:
            continue  # (PHAST on a graph of hubs; where the graph qualifies, its hierarchy is built here)
        configs = [algorithm.default_config().replace(concurrent_kernels=ck)
                   for ck in cks if ck >= min(algorithm.concurrent_kernels)]
        narrow, wide = (timed(g, algorithm.name, configs, sources, rows)
                        for g, rows in ((graph, expected), (wide_graph, wide_expected)))
        for config, at_32, at_64 in zip(configs, narrow, wide):
            both = at_32["ms_per_sssp"] is not None and at_64["ms_per_sssp"] is not None
            yield {"graph": name, "algorithm": algorithm.name, "ck": config.concurrent_kernels,
                   "config": config.to_json(), "narrow": at_32, "wide": at_64,
                   "cost": at_64["ms_per_sssp"] / at_32["ms_per_sssp"] if both else None}


def timed(graph: Any, algorithm: str, configs: list[Any], sources: tuple[int, ...], expected: dict
          ) -> list[dict[str, Any]]:
    """Each of `configs` timed on `graph` by the tuner's protocol (one solver and timer for all of
    them), its distances checked against `expected` (the reference rows in the graph's width)."""
    from autotune import algorithms, gpu
    from autotune.measure import Protocol

    with algorithms.open_solver(graph, algorithm) as solver:
        timer = gpu.CudaEventTimer(solver, sources, Protocol(sample=len(sources)), expected=expected)
        measurements = [timer.measure(config) for config in configs]
    return [{"status": m.status.value, "ms_per_sssp": m.ms_per_sssp if m.ok else None,
             "spread_ms": m.spread_ms if m.ok else None, "reason": m.reason} for m in measurements]


def render(found: list[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"{results.gpu_name} (`{results.command}`, {results.date[:10]}, commit {results.commit}): each "
                  f"algorithm's default configuration, {results.parameters['sources']} sources, the tuner's protocol "
                  "(median ms per SSSP, the repetitions' range in brackets), on the graph with 32-bit distances and "
                  "on the same arrays with 64-bit ones; every solve checked against scipy's. Where the ranges "
                  "overlap, the cost is within the noise.", "",
                  "| graph | algorithm | CK | 32-bit (ms per SSSP) | 64-bit (ms per SSSP) | cost |",
                  "|---|---|---:|---:|---:|---:|"]
        for r in results.measurements:
            narrow, wide = r["narrow"], r["wide"]
            cost = f"{100 * (r['cost'] - 1):+.0f}%" if r["cost"] is not None else \
                f"not measured ({narrow['status']}, {wide['status']})"
            lines.append(f"| {r['graph']} | {r['algorithm']} | {r['ck']} | {shown(narrow)} | {shown(wide)} | {cost} |")
        lines.append("")
    return lines


def shown(timing: dict[str, Any]) -> str:
    """The median and the repetitions' range, or the status."""
    if timing["ms_per_sssp"] is None:
        return timing["status"]
    low, high = timing["spread_ms"] or (timing["ms_per_sssp"],) * 2
    return f"{timing['ms_per_sssp']:.3f} ({low:.3f}-{high:.3f})"
