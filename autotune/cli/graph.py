"""`autotune graph info SPEC [--json] [--seed N] [--weights LO-HI]`, `autotune graph hierarchy SPEC`."""
from __future__ import annotations

import argparse
import json
from typing import Any

from autotune.cli.options import add_graph_options, load_one_graph
from autotune.graphs import CSRGraph


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("graph", help="inspect graphs",
                                   description="Inspect the graphs specs name.")
    commands = parser.add_subparsers(dest="graph_command", metavar="SUBCOMMAND", required=True)
    info = commands.add_parser(
        "info", help="print a graph's size, degrees, weights and depth",
        description="Print a graph's name, vertices, edges, mean and max out-degree, the number of "
                    "vertices without out-edges, and its shape: the skew of its degrees, the spread of its "
                    "weights and its depth (breadth-first levels from a few sampled sources, with the share "
                    "of the graph they reach and the vertices a level). Generated graphs are cached.",
    )
    add_graph_options(info, positional=True)
    info.add_argument("--json", action="store_true",
                      help="print JSON with keys name, vertices, edges, mean_degree, max_degree, "
                           "sinks, sha256, weights (min_positive_weight, max_weight, mean_weight) and shape "
                           "(degree_cv, degree_ratio, weight_cv, zero_weights, hop_depth, reach, level_width, sources, "
                           "lightest_weight): every figure the exported header's autotune_model reads")
    info.set_defaults(run=run_info)
    hierarchy = commands.add_parser(
        "hierarchy", help="build and keep a graph's contraction hierarchy (for --algorithm phast)",
        description="Build the graph's contraction hierarchy (compiled: seconds for a road network of a "
                    "million vertices; progress every 5 s) and keep it in the cache directory, where phast, "
                    "--algorithm auto and sweep find it; print its levels and arcs. A graph with hubs, or one the "
                    "contraction densifies, gets none (exit 2, with why), refused as soon as its cost shows it. "
                    "Kept hierarchies are read, not rebuilt (sweep, predict and sssp build one themselves).",
    )
    add_graph_options(hierarchy, positional=True)
    hierarchy.add_argument("--quiet", "-q", action="store_true", help="print no progress")
    hierarchy.set_defaults(run=run_hierarchy)


def render_info(info: dict[str, Any]) -> str:
    """The text `graph info` prints for `CSRGraph.info()` and, under `shape`, `GraphShape.to_json()`."""
    vertices = int(info["vertices"])
    sinks = int(info["sinks"])
    share = f" ({100 * sinks / vertices:.1f}%)" if vertices else ""
    lines = [
        f"{info['name']}",
        f"  vertices          {vertices:,}",
        f"  edges             {int(info['edges']):,}",
        f"  mean out-degree   {float(info['mean_degree']):.2f}",
        f"  max out-degree    {int(info['max_degree']):,}",
        f"  no out-edges      {sinks:,}{share}",
    ]
    shape = info.get("shape")
    if shape:
        ratio = f", max / mean {shape['degree_ratio']:.1f}" if shape["degree_ratio"] is not None else ""
        lines.append(f"  degree skew       cv {shape['degree_cv']:.2f}{ratio}")
        if shape["weight_cv"] is not None:
            lightest, weights = shape.get("lightest_weight"), info.get("weights") or {}
            span = (f", {weights['min_positive_weight']:,} to {weights['max_weight']:,} (mean {weights['mean_weight']:,.1f})"
                    if weights.get("min_positive_weight") is not None else "")
            lines.append(f"  weights           cv {shape['weight_cv']:.2f}, {100 * shape['zero_weights']:.1f}% zero{span}"
                         + (f", lightest out-arc {lightest:.1f} on average (Delta's unit)" if lightest is not None else ""))
        if shape["hop_depth"] is not None:
            lines.append(f"  depth             {shape['hop_depth']:,} levels (median from {len(shape['sources'])} "
                         f"sampled sources, which reach {100 * shape['reach']:.1f}% of the graph)")
            lines.append(f"  level width       {shape['level_width']:,.0f} vertices a level (the widest source's)")
    if info.get("distance_bits") is not None:
        wide = info["distance_bits"] == 64
        lines.append(f"  distances         {info['distance_bits']}-bit" + (
            " (a shortest path may pass 2^31 - 1: solved with the kernels' 64-bit builds)" if wide else ""))
    lines.append(f"  sha256            {info['sha256']}")
    return "\n".join(lines)


def run_info(args: argparse.Namespace) -> int:
    from autotune.model.shape import ShapeCache
    from autotune.reference.distance_range import width_for

    graph: CSRGraph = load_one_graph(args)
    from autotune.model.features import graph_statistics

    statistics = graph_statistics(graph)
    weights = {key: statistics[key] for key in ("min_positive_weight", "max_weight", "mean_weight")}
    info: dict[str, Any] = {**graph.info(), "weights": weights, "shape": ShapeCache.from_env().shape(graph),
                            "distance_bits": width_for(graph).bits}
    print(json.dumps(info, indent=2) if args.json else render_info(info))
    return 0


def run_hierarchy(args: argparse.Namespace) -> int:
    import sys
    import time

    from autotune.errors import InputError
    from autotune.hierarchy import HierarchyStore, Unsuited, default_directory
    from autotune.hierarchy.build import timed_progress

    graph: CSRGraph = load_one_graph(args)
    store = HierarchyStore(default_directory())
    start = time.perf_counter()
    progress = None if args.quiet else timed_progress(graph.name, sys.stderr, every_s=5.0)
    try:
        h = store.hierarchy(graph, progress)
    except Unsuited as why:
        raise InputError(f"{graph.name}: no contraction hierarchy: {why}") from None
    how = f"built in {time.perf_counter() - start:.1f} s" if store.built else "kept already"
    sizes = h.level_sizes()
    print(f"{graph.name}: {h.levels} levels (largest {int(sizes.max()) if len(sizes) else 0:,} vertices), "
          f"{h.n_arcs:,} arcs with shortcuts ({h.n_arcs / max(graph.n_edges, 1):.2f}x); {how}; "
          f"in {store.directory}")
    return 0
