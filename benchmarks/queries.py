"""Suite `queries` (one GPU): what a shortest-path tree (`sssp --paths`) and a source-target stop
(`sssp --target`) cost against the distances alone, with each graph's tuned one query.

Per graph, with `Table.lookup(graph, queries=1)`'s configuration (`autotune.gpu.queries`):
- paths: from each of `--sources` sources, a warm-up, then `--repetitions` solves each followed by
  the tree pass, CUDA events around each; the tree's median share of the solve's time, per source,
  and its median over the sources. Every tree is checked on the CPU.
- targets: the same sources, each with a target drawn uniformly among the vertices it reaches; the
  full solve and the solve that stops at the target, alternated, `--repetitions` each after a
  warm-up; "on average" is the mean full time over the mean stopping time (the pairs' total time),
  and the mean of the pairs' speed-ups is given too. Every distance is checked against scipy's.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any, Sequence

from autotune.arguments import positive_int
from benchmarks import data
from benchmarks.results import (Results, command_line, commit, earlier_rows, graph_by_graph, host, kept_rows,
                                kept_section, now)

ROAD_NETWORKS = ("usa-roads.gr.gz", "rome99.gr.gz")


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--query-graphs", default=",".join(data.REAL + ("rmat17",)),
                        help="suite queries: its graphs (comma-separated)")
    parser.add_argument("--query-table", type=Path, default=None,
                        help="suite queries: the tuned table (default tables/<gpu>.json)")
    parser.add_argument("--query-sources", type=positive_int, default=32, help="suite queries: sources per graph (default 32)")
    parser.add_argument("--query-repetitions", type=positive_int, default=3,
                        help="suite queries: timed solves per source and mode (default 3)")


def run(args: argparse.Namespace) -> Results:
    """Graph by graph; the results file is written after each, with an earlier run's rows of the
    graphs not measured again (each naming its commit)."""
    from autotune.gpu import device_description, gpu_session

    with gpu_session(0) as device:
        gpu = device_description(device)
        table_path, table = data.load_shipped_table(gpu, args.query_table)
        earlier = earlier_rows("queries", args.results, gpu.get("name"))

        def results_of(rows: list[dict[str, Any]]) -> Results:
            every = rows + kept_rows(earlier, rows)
            summary = {"graphs": len(every),
                       "worst_tree_share": max((r["paths"]["share"] for r in every), default=None),
                       "road_target_speedups": {r["graph"]: r["target"]["speedup"] for r in every if r["road_network"]},
                       "targets": "tree share <= 0.30 on every graph; road networks' target speed-up >= 2x"}
            return Results("queries", {**gpu, "table": data.shown(table_path)}, command_line(), commit(), now(), host(),
                           {"graphs": args.query_graphs, "sources": args.query_sources,
                            "repetitions": args.query_repetitions}, tuple(every), summary)

        return graph_by_graph([name for name in args.query_graphs.split(",") if name],
                              lambda name: graph_rows(name, table, gpu, args), results_of, args.results)


def graph_rows(name: str, table: Any, gpu: dict[str, Any], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The graph's row: its tuned one query's tree cost and source-target speed-up."""
    from autotune.algorithms import open_solver
    from autotune.gpu.queries import random_pairs, target_costs, tree_costs

    rows = []
    for _, graph, sources, expected in data.suite_graphs([name], args.query_sources):
        config = table.lookup(graph, queries=1, device=gpu).config
        with open_solver(graph, config.algorithm) as solver:
            trees, _ = tree_costs(solver, config, sources, expected, args.query_repetitions)
            pairs = target_costs(solver, config, random_pairs(expected, seed=0), expected, args.query_repetitions)
        full = statistics.fmean(p.full_ms for p in pairs)
        early = statistics.fmean(p.target_ms for p in pairs)
        row: dict[str, Any] = {
            "graph": name, "commit": commit(), "vertices": graph.n_vertices, "edges": graph.n_edges,
            "config": config.to_json(), "road_network": name in ROAD_NETWORKS,
            "paths": {"solve_ms": statistics.median(t.solve_ms for t in trees),
                      "tree_ms": statistics.median(t.tree_ms for t in trees),
                      "share": statistics.median(t.share for t in trees), "verified": len(trees),
                      "per_source": [t.to_json() for t in trees]},
            "target": {"full_ms": full, "target_ms": early, "speedup": full / early,
                       "mean_speedup": statistics.fmean(p.speedup for p in pairs), "verified": len(pairs),
                       "per_pair": [p.to_json() for p in pairs]}}
        rows.append(row)
        print(f"queries: {name}: tree +{100 * row['paths']['share']:.0f}%, target {row['target']['speedup']:.2f}x "
              f"(mean of pairs {row['target']['mean_speedup']:.2f}x)", flush=True)
    return rows


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"{results.gpu_name}, one-query configurations from `{results.gpu.get('table')}` (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}); {results.parameters['sources']} sources per graph, "
                  f"medians of {results.parameters['repetitions']} solves each; every tree and distance checked on "
                  "the CPU. Targets drawn among the vertices each source reaches; speed-up = mean full time / mean "
                  "time to the target.", "",
                  "| graph | distances (ms) | tree (ms) | tree's cost | full solve (ms) | to a target (ms) | speed-up "
                  "| mean of pairs | commit |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in results.measurements:
            p, t = r["paths"], r["target"]
            lines.append(f"| {r['graph']} | {p['solve_ms']:.3f} | {p['tree_ms']:.3f} | +{100 * p['share']:.0f}% | "
                         f"{t['full_ms']:.3f} | {t['target_ms']:.3f} | {t['speedup']:.2f}x | {t['mean_speedup']:.2f}x | "
                         f"{r.get('commit', results.commit)} |")
        lines += kept_section(results)
    return lines
