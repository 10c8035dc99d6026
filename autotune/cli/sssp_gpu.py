"""`autotune sssp` on the GPU: solve with one launch configuration, verified and timed."""
from __future__ import annotations

import argparse
import json
from typing import Mapping, Sequence

import numpy as np

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from autotune import algorithms
from autotune.many.distances import save_distances, unreachable_as_minus_one
from autotune.cli.options import delta_param
from autotune.errors import AutotuneError, InputError
from autotune.graphs.csr import CSRGraph
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig
from autotune.measure import DEFAULT_SAMPLE, Measurement, Protocol, choose_sources

PRESETS = ("default",)


def config_from_args(args: argparse.Namespace) -> LaunchConfig:
    """The configuration named by --config or --preset (default preset when neither is given);
    --algorithm picks the preset's algorithm and must agree with a --config's."""
    if getattr(args, "config", None):
        config = algorithms.load_config(args.config, args.algorithm or DEFAULT_ALGORITHM)
        if args.algorithm and config.algorithm != args.algorithm:
            raise InputError(f"--config is a configuration of {config.algorithm}, not of --algorithm {args.algorithm}")
        return config
    preset = getattr(args, "preset", None) or "default"
    if preset not in PRESETS:
        raise InputError(f"--preset: unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
    return algorithms.get(args.algorithm or DEFAULT_ALGORITHM).default_config()


def config_from_table(args: argparse.Namespace, table, graph: CSRGraph, device: dict, queries: int) -> LaunchConfig:
    """The configuration `table` (--table) gives for this graph on this GPU and `queries` sources
    (`Table.lookup`: its entry's fastest with at most that many at once, else the table's model,
    PHAST admitted where the graph's hierarchy is kept or, without --no-hierarchy, built); says
    which on stderr, and warns (also with --json) when that entry's sweep was interrupted."""
    return config_and_time(args, table, graph, device, queries)[0]


def config_and_time(args: argparse.Namespace, table, graph: CSRGraph, device: dict,
                    queries: int) -> tuple[LaunchConfig, float | None]:
    """`config_from_table`, with the entry's measured milliseconds per SSSP (None where it has none)."""
    table.check_device(device, args.allow_other_device)  # before a hierarchy is built for nothing
    admits = None
    if hasattr(graph, "out_degrees") and not table.holds(graph):
        from autotune.predict.auto import admitted_on

        admits = sorted(admitted_on(graph, prepare=not getattr(args, "no_hierarchy", False)))
    match = table.lookup(graph, device=device, allow_other_device=args.allow_other_device, queries=queries,
                         admits=admits)
    console = Console(stderr=True)
    if not args.json:
        if match.source == "model":
            which = (f"the table's model for a graph it does not hold ({match.reason}; the nearest entry, "
                     f"'{match.graph_name}', at distance {match.distance:.2f} in log2 vertices, degree and skew)")
        else:
            which = f"the {match.source} configuration of its entry '{match.graph_name}'"
        console.print(escape(f"{args.table}: {which}, for {queries} source{'s' if queries != 1 else ''} at once"))
    if match.partial:
        console.print(escape(
            f"{args.table}: warning: entry '{match.graph_name}' is partial (its sweep was interrupted); "
            "this is the best configuration measured so far"))
    return match.config, match.ms_per_sssp


def asks_queries(args: argparse.Namespace) -> bool:
    """Whether the options ask for a shortest-path tree or a source-target stop (`sssp_queries`)."""
    return any(getattr(args, name, None) is not None for name in ("paths", "save_paths", "target"))


def many_sources(args: argparse.Namespace) -> bool:
    """Whether the options ask for the many-source mode (--sources, --save-dir), checked.

    Raises:
        InputError: options of the two modes mixed.
    """
    many = args.sources is not None or getattr(args, "save_dir", None) is not None
    if many and args.source is not None:
        raise InputError("--source solves from one source; --sources and --save-dir solve from many: give one")
    if many and getattr(args, "save", None) is not None:
        raise InputError("--save writes one source's distances; with --sources, --save-dir writes every source's")
    if not many and getattr(args, "verify", None) is not None:
        raise InputError("--verify applies to --sources and --save-dir")
    if many and asks_queries(args):
        raise InputError("--paths and --target time one source at a time (--source, or the sample); "
                         "drop --sources and --save-dir")
    return many


def run_gpu(args: argparse.Namespace, graph: CSRGraph) -> int:
    """Measure one configuration on the GPU; exit 0 when verified, 1 when invalid or wrong."""
    from autotune.gpu import CudaEventTimer, device_description, gpu_session

    from autotune.algorithms import open_solver

    if sum(bool(x) for x in (args.table, args.config, args.preset)) > 1:
        raise InputError("--table, --config and --preset each choose the configuration; give one")
    config = None if args.table else config_from_args(args)
    table = None
    if args.table:
        from autotune.table.lookup import Table

        table = Table.load(args.table)  # a bad table fails before the GPU is opened
    if many_sources(args):
        return _run_many(args, graph, config, table)
    if asks_queries(args):
        from autotune.cli.sssp_queries import check_query_options

        check_query_options(args, graph)
    with gpu_session(getattr(args, "device_index", 0) or 0) as device:
        if config is None:
            queries = 1 if args.source is not None else DEFAULT_SAMPLE
            config = config_from_table(args, table, graph, device_description(device), queries)
        if getattr(args, "delta", None) is not None:
            config = config.replace(**delta_param(config.algorithm, args.delta))
        if args.source is not None:
            sources: tuple[int, ...] = (args.source,)
        else:
            sources = choose_sources(graph, DEFAULT_SAMPLE, seed=int(args.seed or 0))
        with open_solver(graph, config.algorithm) as solver:
            if asks_queries(args):
                from autotune.cli.sssp_queries import run_queries

                return run_queries(args, graph, config, sources, solver, device_description(device))
            timer = CudaEventTimer(solver, sources, Protocol(len(sources)))
            measurement = timer.measure(config)
            reached = reached_counts(timer.expected, sources)
            if args.save and measurement.ok:
                _save_distances(solver, timer, config, sources[0], args.save)
            bits = solver.width.bits
        device_info = device_description(device)
    algorithm = config.algorithm
    if args.json:
        print(json.dumps({"graph": graph.info(), "device": device_info, "algorithm": algorithm,
                          **measurement.to_json(), "reached": reached, "distance_bits": bits}, indent=2))
    else:
        _render(graph, device_info, algorithm, measurement, reached, bits)
    if not measurement.ok:
        raise AutotuneError(f"{measurement.status}: {measurement.reason}")
    return 0


def _run_many(args: argparse.Namespace, graph: CSRGraph, config: LaunchConfig | None, table) -> int:
    """--sources all|N or --save-dir: every source solved once, sharded over the devices asked for
    (`autotune.cli.sssp_many`), each with the configuration --table gives on its GPU."""
    from autotune.arguments import device_indices
    from autotune.cli.sssp_many import run_many_sources
    from autotune.gpu import device_count, device_description, device_handle
    from autotune.many.work import SolverSpec

    if args.devices is not None:
        indices = device_indices(args.devices, device_count)
    else:
        indices = (getattr(args, "device_index", 0) or 0,)
    specs, estimates = [], []
    for index in indices:
        chosen, estimate = config, None
        if chosen is None:
            chosen, estimate = config_and_time(args, table, graph, device_description(device_handle(index)),
                                               args.sources if isinstance(args.sources, int) else graph.n_vertices)
        if getattr(args, "delta", None) is not None:
            chosen = chosen.replace(**delta_param(chosen.algorithm, args.delta))
        estimates.append(estimate)
        specs.append((index, chosen))
    for algorithm in dict.fromkeys(c.algorithm for _, c in specs):  # what it keeps per graph, built once here
        why = algorithms.get(algorithm).admits(graph, prepare=True)
        if why is not None:
            raise InputError(f"{graph.name}: {algorithm} cannot solve it: {why}")
    local = args.devices is None and args.cluster is None
    solver_specs = [SolverSpec(c.algorithm, c.to_json(), c.concurrent_kernels, index if local else 0)
                    for index, c in specs]
    visible = [None if local else str(index) for index, _ in specs]
    first = specs[0][1]
    return run_many_sources(args, graph, solver_specs, visible, estimates[0], first.to_json(), first.algorithm,
                            str(first))


def _save_distances(solver, timer, config: LaunchConfig, source: int, path) -> None:
    """Solve once more from `source` and save the GPU's distances (verified) as int64, -1 unreachable."""
    result = solver.solve(config.replace(concurrent_kernels=1), [source])
    distances = result.distances[0]
    if not np.array_equal(distances, timer.expected[source]):
        raise AutotuneError(f"the GPU's distances from source {source} differ from the CPU reference; not saved")
    save_distances(unreachable_as_minus_one(distances, solver.width.inf), path)


def reached_counts(expected: Mapping[int, np.ndarray], sources: Sequence[int]) -> list[int]:
    """How many vertices each source reaches, from its reference row (its type's largest value, the
    kernels' `inf`, where it does not)."""
    return [int(np.count_nonzero(expected[s] != np.iinfo(expected[s].dtype).max)) for s in sources]


def reached_text(counts: Sequence[int], n_vertices: int) -> str:
    """What the sources reach, in words: a GTEPS figure counts the graph's arcs whatever the
    solve reaches, so a source that reaches little shows a high one.

    Example::

        >>> reached_text([1], 131_072), reached_text([5, 7, 9], 100)
        ('1 of 131,072 vertices', '7 of 100 vertices (median of 3 sources; 5 to 9)')
    """
    if len(counts) == 1:
        return f"{counts[0]:,} of {n_vertices:,} vertices"
    return (f"{int(np.median(counts)):,} of {n_vertices:,} vertices (median of {len(counts)} sources; "
            f"{min(counts):,} to {max(counts):,})")


def _render(graph: CSRGraph, device_info: dict, algorithm: str, m: Measurement, reached: Sequence[int],
            distance_bits: int = 32) -> None:
    console = Console()
    table = RichTable(title=escape(f"{algorithm} on {device_info['name']}: {graph.name}"), show_header=False)
    table.add_row("configuration", str(m.config))
    if distance_bits != 32:
        table.add_row("distances", f"{distance_bits}-bit (a shortest path of the graph may pass 2^31 - 1)")
    table.add_row("status", str(m.status))
    table.add_row("reached", reached_text(reached, graph.n_vertices))
    if m.ok:
        low, high = m.spread_ms
        table.add_row("ms per SSSP", f"{m.ms_per_sssp:.3f} (min {low:.3f}, max {high:.3f})")
        table.add_row("GTEPS", f"{m.gteps:.2f} (the graph's {graph.n_edges:,} arcs per solve)")
        table.add_row("iterations", f"{m.iterations:.0f}")
        table.add_row("per kernel (ms per SSSP)",
                      ", ".join(f"{k} {v:.3f}" for k, v in sorted(m.kernel_ms.items())))
        table.add_row("host launch share", f"{100 * m.launch_share:.0f}%")
    else:
        table.add_row("reason", escape(m.reason or ""))
    console.print(table)
