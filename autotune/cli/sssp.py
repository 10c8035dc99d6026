"""`autotune sssp --graph SPEC [--cpu] ...`: solve shortest paths and report time and iterations.

`--cpu` runs a CPU solver: scipy's Dijkstra (the oracle) or an algorithm's CPU reference
(`autotune.algorithms`). Without it the solve runs on the GPU: that mode is `autotune.cli.sssp_gpu`.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from autotune import algorithms
from autotune.many.distances import save_distances
from autotune.cli.options import add_graph_options, delta_param, graph_specs, load_one_graph
from autotune.cli.sssp_many import add_many_options, check_many_options, parse_sources
from autotune.errors import InputError
from autotune.files import NPY_MAGIC, check_outputs, check_replaceable, starts_with
from autotune.graphs import CSRGraph
from autotune.launch import DEFAULT_ALGORITHM
from autotune.measure import DEFAULT_SAMPLE
from autotune.reference import SolveResult

GPU_ONLY_OPTIONS = ("config", "preset", "table", "paths", "save_paths", "target")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sssp", help="solve single-source shortest paths on the GPU or the CPU",
        description="Solve single-source shortest paths and print the time, iterations and "
                    "reached vertices.",
    )
    add_graph_options(parser)
    parser.add_argument("--cpu", action="store_true",
                        help="solve on the CPU (dijkstra is scipy's; the others are numpy versions of the "
                             "GPU algorithms)")
    parser.add_argument("--algorithm", choices=algorithms.cpu_solver_names(), default=None,
                        help="default crauser (or the --config's); dijkstra only with --cpu")
    parser.add_argument("--delta", metavar="D", default=None,
                        help="--algorithm delta: the bucket width, an integer or inf (default: inf on the CPU, "
                             "the configuration's on the GPU)")
    parser.add_argument("--source", type=int, metavar="S", default=None,
                        help="source vertex (--cpu default: 0)")
    parser.add_argument("--sources", metavar="N|all", default=None,
                        help="solve from N random sources (all: from every vertex) once each, in batches of "
                             "the configuration's CK (--cpu: with scipy's Dijkstra), and report the total time and "
                             "SSSPs per second (all-pairs); "
                             "without it, one configuration is timed (warm-up, repetitions) on a sample of "
                             f"{DEFAULT_SAMPLE} sources, or from --source")
    parser.add_argument("--save-dir", metavar="DIR", type=Path, default=None,
                        help="with --sources (default all), keep the run in DIR: the distances in shards "
                             "(DIR/distances-KKKKK.npy, int64, -1 for unreachable; rows in the order of sources.npy) "
                             "or with --reduce DIR/<reduction>.npy; a run started again goes on where it stopped")
    parser.add_argument("--verify", type=int, metavar="K", default=None,
                        help="with --sources or --save-dir: how many sources, spread over them, are checked "
                             "against the CPU oracle before the rest run (default 16)")
    add_many_options(parser)
    parser.add_argument("--config", metavar="FILE_OR_JSON", default=None,
                        help="GPU: launch configuration, a JSON file or inline JSON")
    parser.add_argument("--preset", metavar="NAME", default=None,
                        help="GPU: a named launch configuration, e.g. default")
    parser.add_argument("--table", metavar="FILE", default=None,
                        help="GPU: take the launch configuration from a tuned table (its entry for the graph, "
                             "else the table's model: Table.lookup)")
    parser.add_argument("--no-hierarchy", action="store_true",
                        help="with --table, for a graph the table does not hold: build no contraction hierarchy, so "
                             "that the model may pick PHAST only where one is kept (by default one is built and kept "
                             "where the graph qualifies)")
    parser.add_argument("--allow-other-device", action="store_true",
                        help="GPU: use --table even if it was tuned on another GPU")
    parser.add_argument("--save", metavar="FILE.npy", type=Path, default=None,
                        help="write the distances as int64 .npy, -1 for unreachable")
    parser.add_argument("--paths", action="store_const", const=True, default=None,
                        help="GPU: also build each source's shortest-path tree (a predecessor per vertex), check it "
                             "on the CPU and report what it costs over the distances alone")
    parser.add_argument("--save-paths", metavar="FILE.npy", type=Path, default=None,
                        help="with --paths and --source: write the tree as int64 .npy, -1 for the source and "
                             "unreachable vertices")
    parser.add_argument("--target", type=int, metavar="T", default=None,
                        help="GPU: stop each solve once T's distance is final (delta stops early; other algorithms "
                             "solve everything) and report the time against the full solve")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.cpu:
        given = [f"--{name.replace('_', '-')}" for name in GPU_ONLY_OPTIONS if getattr(args, name) is not None]
        if given:
            raise InputError(f"{', '.join(given)} applies to GPU solves; drop it or drop --cpu")
    elif args.algorithm == algorithms.DIJKSTRA:
        raise InputError(f"--algorithm {args.algorithm} runs only on the CPU; add --cpu or use "
                         f"{' or '.join(algorithms.names())}")
    args.sources = parse_sources(args.sources)
    many = args.sources is not None or args.save_dir is not None
    if args.cpu and many and args.algorithm not in (None, algorithms.DIJKSTRA):
        raise InputError(f"--cpu --sources solves with {algorithms.DIJKSTRA} (the CPU oracle); drop --algorithm")
    if args.verify is not None and args.verify < 1:
        raise InputError(f"--verify: expected a number >= 1, found {args.verify}")
    check_many_options(args, many)
    if args.delta is not None and (args.cpu or args.algorithm):
        delta_param(args.algorithm or DEFAULT_ALGORITHM, args.delta)  # an algorithm without Delta fails here, fast
    from autotune.cli.sssp_gpu import many_sources

    many_sources(args)  # mixed modes fail before the graph loads and the GPU opens
    inputs = [*(("--graph", spec) for spec in graph_specs(args)), ("--table", args.table), ("--config", args.config)]
    check_outputs({"--save": args.save, "--save-dir": args.save_dir, "--save-paths": args.save_paths}, inputs)
    for option, path in (("--save", args.save), ("--save-paths", args.save_paths)):
        if path is not None:  # only a .npy array (an earlier --save's) is written over
            check_replaceable(path, lambda existing: starts_with(existing, NPY_MAGIC), f"a .npy array ({option})")
    graph = load_one_graph(args)
    if args.source is not None and not 0 <= args.source < graph.n_vertices:
        raise InputError(f"--source: {args.source} is not a vertex of {graph.name} "
                         f"(0..{graph.n_vertices - 1})")
    if args.cpu and many:
        from autotune.cli.sssp_many import cpu_many

        return cpu_many(args, graph)
    return _run_cpu(args, graph) if args.cpu else _run_gpu(args, graph)


def _run_cpu(args: argparse.Namespace, graph: CSRGraph) -> int:
    source = 0 if args.source is None else args.source
    if graph.n_vertices == 0:
        raise InputError(f"{graph.name} has no vertices to solve from")
    name = args.algorithm or DEFAULT_ALGORITHM
    params = {} if args.delta is None else delta_param(name, args.delta)
    start = time.perf_counter()
    result = algorithms.cpu_solver(name)(graph, source, params)
    elapsed_s = time.perf_counter() - start
    if args.save is not None:
        save_distances(result.distances, args.save)
    summary = cpu_summary(graph, result, elapsed_s)
    print(json.dumps(summary, indent=2) if args.json else render_cpu(summary))
    return 0


def cpu_summary(graph: CSRGraph, result: SolveResult, elapsed_s: float) -> dict[str, object]:
    """The data `sssp --cpu` prints (as JSON with --json)."""
    return {
        "graph": graph.name,
        "vertices": graph.n_vertices,
        "edges": graph.n_edges,
        "device": "cpu",
        "algorithm": result.algorithm,
        "source": result.source,
        "time_s": elapsed_s,
        "iterations": result.iterations,
        "reached": result.reached,
        **({"stats": dict(result.stats)} if result.stats else {}),
    }


def render_cpu(summary: dict[str, object]) -> str:
    return (f"{summary['algorithm']} (cpu) on {summary['graph']} from source {summary['source']}: "
            f"{float(summary['time_s']):.4f} s, {summary['iterations']:,} iterations, "  # type: ignore[arg-type]
            f"{summary['reached']:,} of {summary['vertices']:,} vertices reached")


def _run_gpu(args: argparse.Namespace, graph: CSRGraph) -> int:
    """GPU mode: see `autotune.cli.sssp_gpu` (imports PyCUDA only when called)."""
    from autotune.cli.sssp_gpu import run_gpu

    return run_gpu(args, graph)
