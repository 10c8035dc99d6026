"""`autotune sweep`: measure and tune the launch configuration of each graph; write the JSON table.

On a GPU (PyCUDA, imported only here and only without `--replay`)::

    autotune sweep --graph rmat17 [--graph rmat20 ...] [--strategy bayes|exhaustive|model]

From recorded measurements, on any machine (`--replay`; the graphs are the records' own)::

    autotune sweep --replay tests/data/records/synthetic-rmat12.jsonl --strategy exhaustive -o t.json

Writes the table (`-o`, default `sweep-<graphs>-<device>-<algorithm>.json` here) after every
graph, atomically; the records (JSON Lines, every measurement, `--records`, default next to the
table; a replay writes them only when asked); the T4 results (`--t4 DIR`). Ctrl-C or SIGTERM stops
cleanly: the table so far is written, marked partial, and the exit status is 130.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shlex
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ContextManager, Iterator, Sequence

from autotune.errors import InputError
from autotune.measure import pool_size
from autotune.search import plan
from autotune.search.records import Record, read_records, records_of, write_records
from autotune.search.replay import ReplayTimer, recorded_space
from autotune.search.results import GraphInfo, GraphResult
from autotune.search.space import SearchSpace
from autotune.search.mirror import MirroredStorage, mirrored
from autotune.search.strategies import DEFAULT_TRIALS, SAMPLERS, STRATEGIES, make_strategy
from autotune.search.study import MEMORY, StudyKey, open_storage, open_study
from autotune.search.study import storage_url as full_storage_url
from autotune.search.sweep import SweepProgress, SweepSettings, Specials, quiet_optuna, stop_on_sigterm, sweep_graph
from autotune.search.t4 import write_t4
from autotune.search.table import sweep_table, write_sweep_table

ALGORITHMS = ("crauser", "martin")
DEFAULT_REPETITIONS = 5
INTERRUPTED = 130


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sweep", help="measure and tune launch configurations on the GPU; write the JSON table",
        description="Find the fastest verified launch configuration of each graph on this GPU, measure "
        "the default, the baseline and the model's prediction, and write the JSON table. Every "
        "measurement is kept in an Optuna study (resumable) and exported as JSON Lines.")
    graphs = parser.add_argument_group("graphs")
    graphs.add_argument("--graph", "-g", metavar="SPEC", action="append", default=None,
                        help=f"{_graph_help()}; repeat for several graphs (with --replay: a graph of the records)")
    graphs.add_argument("--seed", metavar="N", default=None,
                        help="seed of generated graphs, drawn weights and sources (default 0)")
    graphs.add_argument("--weights", metavar="LO-HI", default=None, help="draw uniform integer weights in LO..HI")

    search = parser.add_argument_group("search")
    search.add_argument("--algorithm", choices=ALGORITHMS, default="crauser",
                        help="the SSSP kernels to tune (default crauser)")
    search.add_argument("--strategy", choices=STRATEGIES, default="bayes",
                        help="bayes: Optuna over every kernel's own launch (default); exhaustive: every uniform "
                        "configuration, then per-kernel composition (thesis 4.6); model: prediction, default "
                        "and baseline only")
    search.add_argument("--trials", type=int, metavar="N", default=None,
                        help=f"bayes: trials (default {DEFAULT_TRIALS})")
    search.add_argument("--sampler", choices=SAMPLERS, default="tpe", help="bayes: the Optuna sampler (default tpe)")
    search.add_argument("--sampler-seed", type=int, metavar="N", default=None,
                        help="bayes: the sampler's seed (default: --seed)")
    search.add_argument("--block-sizes", metavar="LIST", default=None,
                        help="block sizes to try: 64,128,256 or 64-512 (default 32-1024)")
    search.add_argument("--caches", metavar="LIST", default=None,
                        help="cache states to try (default all: default,prefer_l1,prefer_shared,no_l1)")
    search.add_argument("--ck", metavar="LIST", default=None, help="concurrent kernels to try (default 1,2,4,...,64)")
    search.add_argument("--lanes", metavar="LIST", default=None,
                        help="relax's lanes per vertex to try (default 1,2,4,...,32)")
    search.add_argument("--finalists", type=int, metavar="K", default=3,
                        help="best configurations measured again before the winner is chosen (default 3)")
    search.add_argument("--rounds", type=int, metavar="R", default=3,
                        help="interleaved rounds of those re-measurements (default 3)")

    measure = parser.add_argument_group("measurement")
    measure.add_argument("--repetitions", type=int, metavar="N", default=DEFAULT_REPETITIONS,
                         help=f"timed solves per measurement (default {DEFAULT_REPETITIONS})")
    measure.add_argument("--sources", type=int, metavar="N", default=None,
                         help="size of the pool of source vertices (default: enough that no two solves of a "
                         "measurement share a source at the largest CK: (repetitions + 2) x CK)")
    measure.add_argument("--device-index", type=int, metavar="I", default=0, help="the CUDA device (default 0)")
    measure.add_argument("--replay", metavar="RECORDS.jsonl", default=None,
                         help="answer from recorded measurements instead of the GPU; the space defaults to "
                         "what the records cover")
    measure.add_argument("--device", "-d", metavar="NAME|FILE", default=None,
                         help="with --replay: the GPU's profile (autotune devices) where the records lack one")

    keep = parser.add_argument_group("storage and output")
    keep.add_argument("--storage", metavar="URL", default=None,
                      help="Optuna storage: an RDB URL, a .db/.sqlite file, a .log journal file, or memory "
                      "(default: a SQLite file in the user data directory; memory with --replay)")
    keep.add_argument("--resume", action="store_true",
                      help="continue the newest matching study, re-using its measurements")
    keep.add_argument("--output", "-o", metavar="TABLE.json", default=None,
                      help="the table (default: sweep-<graphs>-<device>-<algorithm>.json here)")
    keep.add_argument("--records", metavar="FILE.jsonl", default=None,
                      help="every measurement as JSON Lines (default: next to the table; a replay only if given)")
    keep.add_argument("--t4", metavar="DIR", default=None,
                      help="also write T4 results files (Kernel Tuner, BAT) into DIR")
    keep.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    keep.add_argument("--json", action="store_true", help="print the table as JSON on stdout, no progress bar")

    fleet = parser.add_argument_group("several GPUs (docs/multi-gpu.md)")
    fleet.add_argument("--devices", metavar="all|0,1,...", default=None,
                       help="one worker process per GPU on one shared study; one merged table at the end "
                       "(with --replay: the workers' count, e.g. 0,1,2)")
    fleet.add_argument("--run", dest="run_name", metavar="NAME", default=None,
                       help="with --devices: the run's name; the same command on another host joins it "
                       "(default: a new name)")
    fleet.add_argument("--merge", action="store_true",
                       help="write the table of run --run NAME in --storage from what its workers measured")
    fleet.add_argument("--replay-delay-ms", type=float, default=0.0, help=argparse.SUPPRESS)
    fleet.add_argument("--heartbeat-s", type=float, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(run=run)

    worker = subparsers.add_parser(
        "sweep-worker", help="join a multi-GPU sweep as a worker on one GPU (docs/multi-gpu.md)",
        description="Work on the run NAME in the storage until every task is done: take tasks from its "
        "queue, measure them on this GPU, re-run those of workers that died. Start one per GPU.")
    worker.add_argument("--storage", metavar="URL", default=None,
                        help="the run's Optuna storage (default: the SQLite file in the user data directory)")
    worker.add_argument("--run", dest="run_name", metavar="NAME", required=True, help="the run to work on")
    worker.add_argument("--device-index", type=int, metavar="I", default=0, help="the CUDA device (default 0)")
    worker.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    worker.set_defaults(run=_run_worker)


def _graph_help() -> str:
    try:
        from autotune.cli.options import GRAPH_HELP
    except ImportError:
        return "graph spec: rmat<S>, random<N>-d<D>, or a file"
    return GRAPH_HELP


def _seed(args: argparse.Namespace) -> int:
    if args.seed is None:
        return 0
    if not str(args.seed).strip().isdigit():
        raise InputError(f"--seed: expected a non-negative integer, found {args.seed!r}")
    return int(args.seed)


def _check_args(args: argparse.Namespace) -> None:
    for option, value, low in (("--trials", args.trials, 1), ("--repetitions", args.repetitions, 1),
                               ("--sources", args.sources, 1), ("--finalists", args.finalists, 0),
                               ("--rounds", args.rounds, 0)):
        if value is not None and value < low:
            raise InputError(f"{option}: expected a number >= {low}, found {value}")
    if args.trials is not None and args.strategy != "bayes":
        raise InputError(f"--trials applies to --strategy bayes, not {args.strategy}")
    if args.resume and (args.storage == MEMORY or (args.replay and args.storage is None)):
        raise InputError("--resume needs a storage that outlives the process; give --storage FILE.db")
    if not args.replay and not args.graph:
        raise InputError("no graph given; use --graph SPEC (or --replay RECORDS.jsonl)")
    if args.device and not args.replay:
        raise InputError("--device applies to --replay; a sweep on the GPU reads the GPU's own profile")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:64].strip("-") or "x"


def default_output(graph_names: Sequence[str], device_name: str, algorithm: str) -> Path:
    names = "+".join(_slug(Path(name).name) for name in graph_names)[:80]
    return Path(f"sweep-{names}-{_slug(device_name)}-{algorithm}.json")


@dataclass(frozen=True)
class _Job:
    """One graph to sweep: its description, its specials, and a context manager giving its timer."""

    graph: GraphInfo
    specials: Specials
    timer: ContextManager[Any]
    source: str = ""  # how a worker of a multi-GPU run finds it: a --graph spec, or the records' graph key


def _replay_records(args: argparse.Namespace) -> list[Record]:
    records = [r for r in read_records(args.replay) if r.algorithm == args.algorithm]
    if not records:
        raise InputError(f"{args.replay}: holds no records of algorithm {args.algorithm}")
    return records


def _space(args: argparse.Namespace, records: Sequence[Record] | None) -> SearchSpace:
    """The space the options give; a replay defaults each option to what its records cover."""
    given = {"block_sizes": args.block_sizes, "caches": args.caches, "ck": args.ck, "lanes": args.lanes}
    if records:
        covered = recorded_space(records)
        given = {name: value if value is not None else covered[name] for name, value in given.items()}
    return SearchSpace.from_options(**given)


def replay_jobs(args: argparse.Namespace, records: list[Record]) -> tuple[dict[str, Any], Iterator[_Job], list[str]]:
    devices = {r.device_name for r in records}
    if len(devices) > 1:
        raise InputError(f"{args.replay}: the records mix GPUs ({', '.join(sorted(devices))}); "
                         "replay one GPU's records")
    by_graph: dict[str, list[Record]] = {}
    for record in records:
        by_graph.setdefault(record.graph.sha256 or record.graph.name, []).append(record)
    names = {group[0].graph.name: key for key, group in by_graph.items()}
    if args.graph:
        unknown = [g for g in args.graph if g not in names and g not in by_graph]
        if unknown:
            raise InputError(f"--graph {unknown[0]}: not in {args.replay}; it holds {', '.join(sorted(names))}")
        keys = [names.get(g, g) for g in args.graph]
    else:
        keys = list(by_graph)
    device = dict(records[0].device)
    profile = plan.profile_from_json(device, args.replay)
    if args.device is not None:
        from autotune.model import load_device

        profile = load_device(args.device)
        name = device.get("name")
        device = plan.device_json(profile)
        if name and name != "unknown":
            device["name"] = name
    if profile is None:
        raise InputError(f"{args.replay}: the records do not describe the GPU (its name: {device.get('name')!r}); "
                         "name its profile with --device NAME|FILE (autotune devices lists them)")

    def jobs() -> Iterator[_Job]:
        for key in keys:
            group = by_graph[key]
            graph = group[0].graph
            if graph.n_vertices < 1:  # records that do not say (engine benchmark): load it
                graph = _load_replayed_graph(args, graph)
            graph = plan.classify_graph(graph, profile)
            yield _Job(graph, plan.recorded_specials(group, graph, profile), contextlib.nullcontext(ReplayTimer(group)),
                       key)

    return device, jobs(), [by_graph[k][0].graph.name for k in keys]


def _load_replayed_graph(args: argparse.Namespace, graph: GraphInfo) -> GraphInfo:
    from autotune.cli.options import graph_cache
    from autotune.graphs import GraphOptions, parse_spec
    from autotune.graphs.spec import load

    options = GraphOptions.from_values(args.seed, args.weights)
    loaded = load(parse_spec(graph.name), options, graph_cache())
    return plan.graph_info(loaded, seed=options.seed, weights=args.weights)


@contextlib.contextmanager
def _cuda_timer(graph: Any, args: argparse.Namespace, seed: int) -> Iterator[Any]:
    """A `CudaEventTimer` for one graph; its GPU memory is released on exit."""
    from autotune.gpu import CudaEventTimer, Solver
    from autotune.measure import choose_sources

    with Solver(graph, args.algorithm) as solver:
        yield CudaEventTimer(solver, choose_sources(graph, args.sources, seed), args.repetitions)


def gpu_jobs(args: argparse.Namespace, stack: ExitStack) -> tuple[dict[str, Any], Iterator[_Job], list[str]]:
    from autotune.cli.options import graph_specs, load_graphs

    graphs = load_graphs(args)  # every spec is checked before the GPU is opened
    specs = [str(Path(spec).resolve()) if Path(spec).exists() else spec for spec in graph_specs(args)]
    from autotune import gpu
    from autotune.model import device_from_gpu

    device_handle = stack.enter_context(gpu.gpu_session(args.device_index))
    description = gpu.device_description(device_handle)
    profile = device_from_gpu(args.device_index)
    device = plan.device_json(profile, cuda_version=str(description.get("cuda_driver_version")))
    device["name"] = str(description.get("name", device["name"]))
    seed = _seed(args)

    def jobs() -> Iterator[_Job]:
        for graph, spec in zip(graphs, specs):
            info = plan.classify_graph(plan.graph_info(graph, seed=seed, weights=args.weights), profile)
            yield _Job(info, plan.model_specials(info, profile), _cuda_timer(graph, args, seed), spec)

    return device, jobs(), [g.name for g in graphs]


def run(args: argparse.Namespace) -> int:
    from autotune.cli import sweep_fleet

    if args.merge:
        return sweep_fleet.merge(args)
    _check_args(args)
    devices = sweep_fleet.devices_of(args)
    replayed = _replay_records(args) if args.replay else None
    space = _space(args, replayed)
    if args.sources is None:
        args.sources = pool_size(args.repetitions, max(space.concurrent_kernels))
    seed = _seed(args)
    strategy = make_strategy(args.strategy, args.trials, args.sampler,
                             args.sampler_seed if args.sampler_seed is not None else seed)
    strategy.sampler(space)  # a sampler's missing dependency is reported before any work
    settings = SweepSettings(finalists=args.finalists, rounds=args.rounds)
    command = "autotune " + shlex.join(sys.argv[1:]) if sys.argv[1:] else None
    show = not (args.quiet or args.json)
    if devices is not None:
        return sweep_fleet.run_fleet(args, devices, replayed, space, strategy, settings, seed, command, show)
    results: list[GraphResult] = []
    written: list[str] = []
    interrupted = False
    with ExitStack() as stack:
        stack.enter_context(stop_on_sigterm())
        device, jobs, names = replay_jobs(args, replayed) if replayed else gpu_jobs(args, stack)
        spec = args.storage if args.storage is not None or not args.replay else MEMORY
        storage, storage_url = open_storage(spec)
        # the sampler works in memory; a writer process stores each trial the moment it finishes
        storage = mirrored(storage, full_storage_url(spec), storage_url)
        if isinstance(storage, MirroredStorage):
            stack.callback(storage.close)
        output = Path(args.output) if args.output else default_output(names, str(device["name"]), args.algorithm)
        records_path = Path(args.records) if args.records else (
            None if args.replay else output.with_name(output.stem + ".records.jsonl"))
        progress = SweepProgress()  # shows nothing
        if show:
            from autotune.search.progress import RichProgress  # rich only where it draws

            progress = stack.enter_context(RichProgress())
        protocol = measurement_protocol(args, seed)
        try:
            for job in jobs:
                key = StudyKey(job.graph.sha256 or job.graph.name, args.algorithm, str(device["name"]),
                               strategy.label, space.digest(), protocol)
                with quiet_optuna():
                    handle = open_study(storage, storage_url, key, strategy.sampler(space), args.resume,
                                        attrs={"graph": job.graph.name, "space": space.to_json()})
                with job.timer as timer:
                    result = sweep_graph(timer, space, strategy, handle, job.graph, args.algorithm, device,
                                         job.specials, settings, progress)
                results.append(result)
                written = write_outputs(results, device, args, output, records_path, command)
                if result.partial:
                    interrupted = True
                    break
        except KeyboardInterrupt:
            interrupted = True
            if results:
                written = write_outputs(results, device, args, output, records_path, command, partial=True)
    return report_outcome(args, results, device, command, written, interrupted, show, output)


def measurement_protocol(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """How each configuration is measured (part of the study's name: only the same protocol resumes)."""
    return {"timer": "replay" if args.replay else "cuda-events", "repetitions": args.repetitions,
            "sources": args.sources, "seed": seed, "finalists": args.finalists, "rounds": args.rounds}


def report_outcome(args: argparse.Namespace, results: Sequence[GraphResult], device: dict[str, Any],
                   command: str | None, written: Sequence[str], interrupted: bool, show: bool, output: Path,
                   extra: dict[str, Any] | None = None, partial: bool = False) -> int:
    """Print the table (`--json`) or the summary; returns the exit status."""
    if args.json:
        table = sweep_table(results, device, args.algorithm, command, partial=interrupted or partial)
        print(json.dumps({**table, **(extra or {})}, indent=2))
    elif show:
        from rich.console import Console

        from autotune.search.summary import render_summary

        console = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 120)
        render_summary(results, console, written)
        for worker in (extra or {}).get("x-workers", ()):
            console.print(f"worker {worker['worker']}: {worker['measured']} measurements, {worker['tasks']} tasks "
                          f"({worker['state']})", highlight=False, markup=False)
    if interrupted:
        print(f"autotune: interrupted; wrote the partial table {output}" if results else
              "autotune: interrupted before any graph was measured", file=sys.stderr)
        return INTERRUPTED
    return 0 if all(r.best is not None for r in results) else 1


def write_outputs(results: Sequence[GraphResult], device: dict[str, Any], args: argparse.Namespace, output: Path,
                  records_path: Path | None, command: str | None, partial: bool = False,
                  extra: dict[str, Any] | None = None) -> list[str]:
    """Write the table, the records and the T4 files of every graph so far; returns the paths."""
    table = {**sweep_table(results, device, args.algorithm, command, partial=partial), **(extra or {})}
    written = [str(write_sweep_table(output, table))]
    if records_path is not None:
        records = [record for result in results for record in records_of(result)]
        header = ("autotune sweep records (synthetic measurements, no GPU)" if "Synthetic" in str(device.get("name"))
                  else None)
        written.append(str(write_records(records_path, records, header=header)))
    if args.t4:
        written += [str(write_t4(args.t4, result)) for result in results]
    return written


def _run_worker(args: argparse.Namespace) -> int:
    from autotune.cli.sweep_fleet import run_worker

    return run_worker(args)
