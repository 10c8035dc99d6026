"""`autotune sssp --paths` and `--target T` on the GPU: a shortest-path tree, or a solve that stops
once T's distance is final, each timed against the plain solve of the same sources and checked on
the CPU (`autotune.gpu.queries`).

`--paths` prints the solve's and the tree's median times over the sources (the sample, or
`--source`), and with `--save-paths FILE.npy` and `--source` writes the tree: int64, a predecessor
per vertex, -1 for the source and for unreachable vertices. `--target T` prints the full solve's
and the early stop's median times, and T's distance from each source.
"""
from __future__ import annotations

import argparse
import json
import statistics
from typing import Any, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from autotune.errors import AutotuneError, InputError, WrongResult
from autotune.graphs.csr import CSRGraph
from autotune.launch import LaunchConfig
from autotune.reference.cache import ReferenceCache


def check_query_options(args: argparse.Namespace, graph: CSRGraph) -> None:
    """`--paths`, `--save-paths` and `--target` checked against each other and the graph.

    Raises:
        InputError: a bad combination or a target that is not a vertex.
    """
    if args.save_paths is not None and not args.paths:
        raise InputError("--save-paths writes the tree that --paths builds; add --paths")
    if args.save_paths is not None and args.source is None:
        raise InputError("--save-paths writes one source's tree; give --source")
    if args.target is not None and not 0 <= args.target < graph.n_vertices:
        raise InputError(f"--target: {args.target} is not a vertex of {graph.name} (0..{graph.n_vertices - 1})")


def run_queries(args: argparse.Namespace, graph: CSRGraph, config: LaunchConfig, sources: Sequence[int],
                solver, device_info: dict) -> int:
    """Measure --paths and/or --target with `solver` (open on `graph`) and print them."""
    from autotune.many.distances import save_distances
    from autotune.gpu.queries import target_costs, tree_costs

    expected = ReferenceCache(None).distances(graph, sources)
    summary: dict[str, Any] = {"graph": graph.info(), "device": device_info, "algorithm": config.algorithm,
                               "config": config.to_json()}
    try:
        if args.paths:
            costs, trees = tree_costs(solver, config, sources, expected)
            summary["paths"] = {"solve_ms": statistics.median(c.solve_ms for c in costs),
                                "tree_ms": statistics.median(c.tree_ms for c in costs),
                                "share": statistics.median(c.share for c in costs),
                                "verified": len(costs), "per_source": [c.to_json() for c in costs]}
            if args.save_paths is not None:
                save_distances(trees[sources[0]], args.save_paths, "--save-paths")
        if args.target is not None:
            costs_t = target_costs(solver, config, [(s, args.target) for s in sources], expected)
            summary["target"] = {"target": args.target,
                                 "full_ms": statistics.median(c.full_ms for c in costs_t),
                                 "target_ms": statistics.median(c.target_ms for c in costs_t),
                                 "speedup": statistics.median(c.speedup for c in costs_t),
                                 "verified": len(costs_t), "per_source": [c.to_json() for c in costs_t]}
    except WrongResult as error:
        raise AutotuneError(f"wrong: {error}") from None
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        render(summary, len(sources), solver.width.inf)
    return 0


def render(summary: dict[str, Any], count: int, inf: int) -> None:
    graph, device = summary["graph"], summary["device"]
    table = RichTable(title=escape(f"{summary['algorithm']} on {device['name']}: {graph['name']}"), show_header=False)
    table.add_row("configuration", escape(json.dumps(summary["config"]["params"])))
    where = f"median over {count} sources" if count > 1 else "median of the repetitions"
    if "paths" in summary:
        paths = summary["paths"]
        table.add_row("distances (ms)", f"{paths['solve_ms']:.3f} ({where})")
        table.add_row("shortest-path tree (ms)", f"+{paths['tree_ms']:.3f} (+{100 * paths['share']:.0f}%), "
                                                 f"{paths['verified']} trees checked on the CPU")
    if "target" in summary:
        target = summary["target"]
        distances = sorted({c["distance"] for c in target["per_source"]})
        table.add_row("full solve (ms)", f"{target['full_ms']:.3f} ({where})")
        table.add_row(f"to target {target['target']} (ms)",
                      f"{target['target_ms']:.3f} ({target['speedup']:.2f}x faster), its distance checked on the CPU")
        shown = ["unreachable" if d == inf else str(d) for d in distances[:8]]
        table.add_row("distance to the target", ", ".join(shown) + (" ..." if len(distances) > 8 else ""))
    Console().print(table)


__all__ = ["check_query_options", "run_queries"]
