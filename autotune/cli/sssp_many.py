"""`autotune sssp --sources all|N [--devices all|0,1] [--cluster ADDRESS] [--reduce NAMES]
[--save-dir DIR]`: shortest paths from many sources (all-pairs as one SSSP per source), in batches
of the configuration's CK, sharded over every device asked for (`autotune.many`).

Each worker (a GPU, or with `--cpu` a process solving with the CPU oracle) loads the graph once and
solves the verification sample (`--verify K` sources, spread over the sources) against the CPU oracle
before anything is written, so a wrong configuration fails first (exit 1) and saves nothing. Reported:
the wall time of the shards (launches, the device's work, the copies of what is kept; writing files
is timed apart), the CUDA-event time, milliseconds per SSSP and SSSPs per second.

`--save-dir DIR` keeps the run (`autotune.many.store`): shards of int64 distances (-1 for
unreachable) and, with `--reduce`, the per-source reductions; a run interrupted and started again with
the same options solves only the shards it does not find.
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Mapping

from autotune.errors import InputError
from autotune.arguments import device_indices
from autotune.many.plan import verification_sample
from autotune.many.reductions import parse_reductions

DEFAULT_VERIFY = 16
CPU_BATCH = 8  # sources the CPU oracle solves at a time (a shard is a few of them: every core gets some)


def add_many_options(parser: argparse.ArgumentParser) -> None:
    """The options of the many-source mode (with --sources or --save-dir)."""
    parser.add_argument("--devices", metavar="all|0,1,...", default=None,
                        help="with --sources: shard the sources over these GPUs (all: every GPU of this host), "
                             "one Dask worker process each; default: the one GPU, in this process")
    parser.add_argument("--cluster", metavar="ADDRESS", default=None,
                        help="with --sources: run on the Dask cluster at this scheduler address (one worker per GPU, "
                             "started with --nthreads 1 and CUDA_VISIBLE_DEVICES set, as dask-cuda-worker does)")
    parser.add_argument("--workers", type=int, metavar="N", default=None,
                        help="with --cpu --sources: solve with N CPU processes (a local Dask cluster; default 1, "
                             "in this process)")
    parser.add_argument("--reduce", metavar="NAME[,NAME]", default=None,
                        help="with --sources: one number per source instead of its distances, computed where "
                             "the distances are (on the GPU): reached, eccentricity, closeness")
    parser.add_argument("--shard-size", type=int, metavar="N", default=None,
                        help="with --sources: sources per shard (default: about 256 MiB of distances, at most "
                             "1/16 of the sources, a multiple of CK)")


def parse_sources(text: str | None) -> int | str | None:
    """`--sources`: a count of at least 1, or `all`."""
    if text is None or text == "all":
        return text
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InputError(f"--sources: expected a count of at least 1 or 'all', found {text!r}")
    return int(text)


def check_many_options(args: argparse.Namespace, many: bool) -> None:
    """The many-source options are given only with --sources/--save-dir and make sense together.

    Raises:
        InputError: one line naming the option.
    """
    given = {name: getattr(args, name, None) for name in ("devices", "cluster", "workers", "reduce", "shard_size")}
    if not many:
        for name, value in given.items():
            if value is not None:
                raise InputError(f"--{name.replace('_', '-')} applies to --sources and --save-dir")
        return
    if args.cpu and args.devices is not None:
        raise InputError("--devices picks GPUs; with --cpu, --workers N picks how many CPU processes solve")
    if not args.cpu and args.workers is not None:
        raise InputError("--workers applies to --cpu; GPUs are picked with --devices")
    if args.cluster is not None and args.devices is not None:
        raise InputError("--cluster runs on the cluster's workers; --devices picks this host's GPUs: give one")
    for name in ("workers", "shard_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise InputError(f"--{name.replace('_', '-')}: expected a number >= 1, found {value}")
    if args.devices not in (None, "all"):
        device_indices(args.devices)  # its form, before a GPU is asked how many it has
    if args.reduce is not None:
        args.reduce = parse_reductions(args.reduce)


def sources_of(args: argparse.Namespace, graph: Any) -> list[int]:
    """The sources asked for: every vertex, or N drawn with --seed (sorted)."""
    from autotune.measure import choose_sources

    if args.sources in (None, "all"):
        sources = list(range(graph.n_vertices))
    else:
        sources = sorted(choose_sources(graph, args.sources, seed=int(args.seed or 0)))
    if not sources:
        raise InputError(f"{graph.name} has no vertices to solve from")
    return sources


def run_many_sources(args: argparse.Namespace, graph: Any, specs: list, visible: list, estimate_ms: float | None,
                     config: Mapping[str, Any] | None, algorithm: str, config_text: str) -> int:
    """Plan, solve and report (`autotune.many.run`), the sample's reference computed here first."""
    from autotune.cli.options import reference_cache
    from autotune.many.run import ManyRequest, run_many

    sources = sources_of(args, graph)
    sample = verification_sample(sources, args.verify or DEFAULT_VERIFY)
    expected = reference_cache().distances(graph, sample)
    keep_rows = args.save_dir is not None and args.reduce is None
    request = ManyRequest(graph, sources, expected, specs, visible, address=args.cluster,
                          directory=args.save_dir, keep_rows=keep_rows, reductions=args.reduce or (),
                          shard_size=args.shard_size, estimate_ms=estimate_ms, config=config)
    summary = run_many(request)
    print_summary({"graph": graph.name, "vertices": graph.n_vertices, "edges": graph.n_edges,
                   "algorithm": algorithm, "config": config, **summary}, args.json, config_text)
    return 0


def cpu_many(args: argparse.Namespace, graph: Any) -> int:
    """`--cpu --sources`: the CPU oracle (scipy's Dijkstra) in batches, on --workers processes."""
    from autotune.many.work import SolverSpec

    workers = args.workers or 1
    specs = [SolverSpec(None, None, CPU_BATCH)] * workers
    return run_many_sources(args, graph, specs, [None] * workers, None, None, "dijkstra",
                            f"scipy's Dijkstra, {CPU_BATCH} sources a call, {workers} process(es)")


def render(summary: Mapping[str, Any], config_text: str) -> str:
    solved, total = summary["solved"], summary["sources"]
    lines = [f"{summary['algorithm']} on {', '.join(dict.fromkeys(summary['devices'])) or 'no device'}"
             f" ({summary['workers']} worker(s)): {summary['graph']}, {total:,} sources in {summary['shards']:,} shards "
             f"of {summary['shard_size']:,}, batches of {summary['batch']:,}"]
    if solved:
        lines.append(f"  {summary['wall_s']:.3f} s wall ({summary['ms_per_sssp']:.4f} ms per SSSP, "
                     f"{summary['sssp_per_s']:,.0f} SSSPs per second), {summary['gpu_ms'] / 1000:.3f} s on the devices "
                     f"({summary['device_clock']}), after {summary['setup_s']:.1f} s to start and verify")
    lines += [f"  verified: {summary['verified_sources']} sources equal the CPU reference on every worker",
              f"  configuration: {config_text}"]
    if len(summary["per_worker"]) > 1:
        lines.append("  per worker: " + ", ".join(f"{name} {count:,}" for name, count in summary["per_worker"].items()))
    if summary.get("already_saved"):
        lines.append(f"  {summary['already_saved']:,} sources skipped: an earlier run had saved them")
    for name, stats in summary.get("reductions", {}).items():
        lines.append(f"  {name}: min {stats['min']:,.6g}, median {stats['median']:,.6g}, max {stats['max']:,.6g}")
    if summary.get("saved"):
        lines.append(f"  saved to {summary['saved']} ({summary['write_s']:.2f} s writing)")
    return "\n".join(lines)


def print_summary(summary: Mapping[str, Any], as_json: bool, config_text: str) -> None:
    print(json.dumps(summary, indent=2) if as_json else render(summary, config_text))


__all__ = ["DEFAULT_VERIFY", "add_many_options", "check_many_options", "cpu_many", "parse_sources",
           "print_summary", "run_many_sources"]
