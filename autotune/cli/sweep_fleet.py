"""`autotune sweep --devices ...`, `sweep --merge` and `autotune sweep-worker`: one sweep shared by
a worker process per GPU on one Optuna storage (`autotune.search.fleet`, docs/multi-gpu.md)."""
from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, ContextManager, Iterator

from autotune.cli.options import load_spec, reference_cache
from autotune.search.run.jobs import cuda_timer, replay_records
from autotune.search.timers.replay import replay_timer
from autotune.search.run.order import order_for_auto
from autotune.search.results.outputs import INTERRUPTED, checked_outputs, default_output, report_outcome, write_outputs
from autotune.cli.sweep_request import Request, check_jobs
from autotune.arguments import device_indices
from autotune.errors import InputError
from autotune.measure import Protocol, Timer
from autotune.search import fleet
from autotune.search.run.storage import MEMORY, open_storage, storage_url
from autotune.search.run.interrupts import quiet_optuna, stop_on_sigterm

HEARTBEAT_S = 5  # an RDB storage's heartbeat; a worker silent for 4 beats is taken for dead


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("several GPUs (docs/multi-gpu.md)")
    group.add_argument("--devices", metavar="all|0,1,...", default=None,
                       help="one worker process per GPU on one shared storage; one merged table at the end "
                       "(with --replay: the workers' count, e.g. 0,1,2)")
    group.add_argument("--run", dest="run_name", metavar="NAME", default=None,
                       help="with --devices: the run's name; the same command on another host joins it "
                       "(default: a new name)")
    group.add_argument("--merge", action="store_true",
                       help="write the table of run --run NAME in --storage from what its workers measured")
    group.add_argument("--replay-delay-ms", type=float, default=0.0, help=argparse.SUPPRESS)
    group.add_argument("--replay-pace", type=float, default=0.0, help=argparse.SUPPRESS)  # a CPU estimate of a fleet's scaling (docs/multi-gpu.md)
    group.add_argument("--heartbeat-s", type=int, default=None, help=argparse.SUPPRESS)


def register_worker(subparsers: argparse._SubParsersAction) -> None:
    worker = subparsers.add_parser(
        "sweep-worker", help="join a multi-GPU sweep as a worker on one GPU (docs/multi-gpu.md)",
        description="Measure the trials of run NAME in the storage on this GPU until every graph of the "
        "run is done. Start one per GPU.")
    worker.add_argument("--storage", metavar="URL", default=None,
                        help="the run's Optuna storage (default: the journal file in the user data directory)")
    worker.add_argument("--run", dest="run_name", metavar="NAME", required=True, help="the run to work on")
    worker.add_argument("--device-index", type=int, metavar="I", default=0, help="the CUDA device (default 0)")
    worker.add_argument("--heartbeat-s", type=int, default=None, help=argparse.SUPPRESS)
    # started by `sweep --devices` before its run exists: wait for it while the coordinator lives, the
    # GPU's context made meanwhile unless the run replays records
    worker.add_argument("--await-run", choices=("gpu", "replay"), default=None, help=argparse.SUPPRESS)
    worker.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    worker.set_defaults(run=run_worker)


def wants_fleet(args: argparse.Namespace, request: Request) -> bool:
    """Whether the command runs a fleet; refuses fleet options without `--devices`."""
    if args.devices is None:
        for option, given in (("--run", args.run_name), ("--heartbeat-s", args.heartbeat_s)):
            if given is not None:
                raise InputError(f"{option} applies to --devices (several GPUs) or --merge")
        for option, given in (("--replay-delay-ms", args.replay_delay_ms), ("--replay-pace", args.replay_pace)):
            if given and not args.replay:
                raise InputError(f"{option} applies to --replay")
        return False
    if args.storage == MEMORY:
        raise InputError("--devices: the workers share their trials through a storage, and memory cannot be "
                         "shared; give --storage FILE (or leave --storage out)")
    refuse_sqlite(args.storage, "--devices")
    return True


def refuse_sqlite(spec: str | None, option: str) -> None:
    """A fleet's storage must hand an enqueued trial to one worker only: a journal file does (one
    host), PostgreSQL or MySQL do (row locks); SQLite does not (it has no row locks, and two workers
    popped the same trial in our tests)."""
    if spec is not None and storage_url(spec).startswith("sqlite:"):
        raise InputError(f"{option}: SQLite cannot hand a queued trial to one worker only; use a journal file "
                         "(the default, or --storage FILE.journal) on one host, or --storage postgresql://... "
                         "for several hosts (docs/multi-gpu.md)")


def parse_devices(text: str, replay: bool) -> tuple[int, ...]:
    """The GPU indexes of `--devices` (`arguments.device_indices`). With a replay the indexes only
    name the workers (each replays the records), and `all` has nothing to count.

    Raises:
        InputError: a malformed list, or a repeated GPU.
        GpuUnavailable: `all` without a GPU.
    """
    if replay:
        if text.strip() == "all":
            raise InputError("--devices all: a replay has no GPUs to count; name the workers, e.g. --devices 0,1,2")
        return device_indices(text)
    from autotune.gpu import device_count

    return device_indices(text, device_count if text.strip() == "all" else None)


def pasteable_url(shown: str) -> str:
    """The storage URL as a command line can take it: the hidden password becomes PASSWORD."""
    return re.sub(r"(://[^:/@]+:)[^@]+@", r"\1PASSWORD@", shown)


def join_hint(shown: str, run: str) -> str:
    """How another worker joins the run: on this host for a file storage (several hosts need a
    server: docs/multi-gpu.md), from any host for a server, its password left to the reader."""
    url = pasteable_url(shown)
    command = f"autotune sweep-worker --storage {shlex.quote(url)} --run {shlex.quote(run)} --device-index I"
    if shown.startswith("sqlite:") or "://" not in shown:
        return (f"another worker on this host joins with: {command} (workers on several hosts need a "
                "PostgreSQL --storage: docs/multi-gpu.md)")
    note = " (replace PASSWORD with the storage's password)" if url != shown else ""
    return f"another host joins with: {command}{note}"


def _heartbeat(args: argparse.Namespace) -> int:
    return int(args.heartbeat_s) if args.heartbeat_s else HEARTBEAT_S


def run_fleet(args: argparse.Namespace, request: Request) -> int:
    """`--devices`: create or join the run, start a worker per GPU, coordinate, write one table."""
    devices = parse_devices(args.devices, bool(request.replay))
    with ExitStack() as stack:
        spec = request.storage
        if spec is None and request.replay:  # nothing to keep, but a storage the workers can share
            spec = str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="autotune-run-"))) / "run.journal")
        stack.enter_context(stop_on_sigterm())
        checked = check_jobs(request)  # bad input is refused before the storage or a worker exists
        storage, shown = open_storage(spec, _heartbeat(args))
        name = args.run_name or "sweep-" + datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        started = time.perf_counter()
        # the workers start first: their imports and GPU contexts are made while the GPU is described
        # here and the run prepared; they wait for the run while this process lives
        await_as = "replay" if request.replay else "gpu"
        processes = [_start_worker(storage_url(spec), name, index, args.heartbeat_s, await_as) for index in devices]
        stack.callback(_stop_workers, processes)
        device, jobs, names = checked.jobs(None)  # the GPU described (no context), references kept
        with quiet_optuna():
            run, joined = _create_or_join(storage, shown, name, request, device, jobs)
        if request.show:
            print(f"autotune: {'joined' if joined else 'started'} run {run.plan.name} in {shown}: "
                  f"{len(run.plan.graphs)} studies, {len(devices)} workers here; {join_hint(shown, run.plan.name)}",
                  file=sys.stderr)
        interrupted = False
        try:
            # poll every worker (not any(...), which stops at the first alive one): a killed one must
            # be reaped, or its pid lives on as a zombie and its trial is never taken back
            done = fleet.coordinate(run, alive=lambda: [p.poll() for p in processes].count(None) > 0)
        except KeyboardInterrupt:
            interrupted, done = True, False
            _stop_workers(processes)
        for process in processes:  # each ends by itself once the run is done
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=60)
        return _finish(args, request, run, shown, names, time.perf_counter() - started, interrupted, not done)


def _create_or_join(storage: Any, shown: str, name: str, request: Request, device: dict[str, Any],
                    jobs: list[Any]) -> tuple[fleet.Run, bool]:
    if name in fleet.run_names(storage):
        return fleet.Run.open(storage, shown, name), True
    graphs = []
    for job in order_for_auto(jobs):  # as one process: the work-efficient first, their bests prune the others
        handle = request.open_study(storage, shown, job, device)
        graphs.append(fleet.RunGraph(job.graph, job.algorithm, handle.name, job.source, job.space, job.specials,
                                     job.objective, dict(job.settings)))
    timer: dict[str, Any] = ({"kind": "replay", "records": str(Path(request.replay).resolve()),
                              "delay_ms": request.replay_delay_s * 1000.0, "pace": request.replay_pace}
                             if request.replay else
                             {"kind": "cuda", "graph_seed": request.seed, "weights": request.weights,
                              "protocol": request.protocol.to_json()})
    plan = fleet.RunPlan(name, request.algorithm, request.strategy, request.settings, request.study_protocol, device,
                         timer, tuple(graphs), request.command)
    return fleet.Run.create(storage, shown, plan), False


def _start_worker(url: str, run: str, index: int, heartbeat_s: int | None, await_as: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "autotune", "sweep-worker", "--storage", url, "--run", run,
            "--device-index", str(index), "--await-run", await_as, "--quiet"]
    if heartbeat_s:
        argv += ["--heartbeat-s", str(heartbeat_s)]
    return subprocess.Popen(argv, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _stop_workers(processes: list[subprocess.Popen]) -> None:
    """Stop the workers still running when the coordinator leaves (it failed before the run began,
    or they outlived its wait): each gives its trial in flight back."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=60)


def _finish(args: argparse.Namespace, request: Request, run: fleet.Run, shown: str, names: list[str], elapsed_s: float,
            interrupted: bool, unfinished: bool) -> int:
    """Merge the run's studies; write the table, the records, the T4 files; report."""
    plan = run.plan
    results = fleet.results(run, elapsed_s)
    left = sum(1 for r in results if r.partial)
    table = Path(args.output) if args.output else default_output(names, str(plan.device["name"]), plan.algorithm)
    replay = plan.timer.get("kind") == "replay"
    records = Path(args.records) if args.records else (None if replay else table.with_name(table.stem + ".records.jsonl"))
    # a run's storage holds every measurement of it: merging again appends to its records, never cuts them
    outputs = checked_outputs(table, records, args.t4, plan.algorithm, request.command or plan.command, request.show,
                              bool(args.json), [("--storage", shown if Path(shown).is_file() else None)],
                              resume=True, objective=getattr(request, "objective", None))
    extra = {"x-run": {"name": plan.name, "storage": shown, "graphs": len(plan.graphs), "graphs_left": left},
             "x-workers": fleet.worker_summary(run)}
    written = write_outputs(results, dict(plan.device), outputs, partial=interrupted or left > 0, extra=extra)
    status = report_outcome(results, dict(plan.device), outputs, written, interrupted, extra, partial=left > 0)
    if left and not interrupted:
        print(f"autotune: run {plan.name} is not finished ({left} of {len(plan.graphs)} graphs left; wrote the "
              f"partial table {table}); {join_hint(shown, plan.name)}; then: autotune sweep --merge --storage "
              f"{shlex.quote(pasteable_url(shown))} --run {shlex.quote(plan.name)}", file=sys.stderr)
        return 1
    return status


def merge(args: argparse.Namespace) -> int:
    """`--merge`: the table of a run from its storage (no GPU, no graphs needed)."""
    if not args.run_name:
        raise InputError("--merge: name the run with --run NAME (and its --storage)")
    if args.storage == MEMORY:
        raise InputError("--merge: a run in memory is gone with its process; give the run's --storage")
    storage, shown = open_storage(args.storage)
    with quiet_optuna():
        run = fleet.Run.open(storage, shown, args.run_name)
        command = "autotune " + shlex.join(sys.argv[1:]) if sys.argv[1:] else run.plan.command
        request_show = not (args.quiet or args.json)
        names = [g.info.name for g in run.plan.graphs]
        shell = _MergeRequest(command, request_show)
        return _finish(args, shell, run, shown, list(dict.fromkeys(names)), 0.0, False, False)


class _MergeRequest:
    """What `_finish` reads of a request, for `--merge` (which has no sweep options)."""

    def __init__(self, command: str | None, show: bool) -> None:
        self.command = command
        self.show = show


def run_worker(args: argparse.Namespace) -> int:
    """`autotune sweep-worker`: measure a run's trials on this GPU until every graph is done."""
    if args.storage == MEMORY:
        raise InputError("--storage memory: a worker joins a run in a storage other processes can open")
    refuse_sqlite(args.storage, "sweep-worker --storage")
    if args.device_index < 0:
        raise InputError(f"--device-index: expected 0 or more, found {args.device_index}")
    storage, shown = open_storage(args.storage, _heartbeat(args))
    parent = os.getppid()
    with ExitStack() as stack:
        stack.enter_context(stop_on_sigterm())
        try:
            if args.await_run == "gpu":
                from autotune import gpu

                stack.enter_context(gpu.gpu_session(args.device_index))
            with quiet_optuna():
                run = (fleet.Run.await_open(storage, shown, args.run_name, lambda: os.getppid() == parent)
                       if args.await_run else fleet.Run.open(storage, shown, args.run_name))
        except KeyboardInterrupt:  # stopped before the run began: nothing to give back
            return INTERRUPTED
        timers = _replay_timers(run) if run.plan.timer.get("kind") == "replay" else _gpu_timers(run, args.device_index, stack)
        try:
            measured = fleet.work(run, timers, args.device_index)
        except KeyboardInterrupt:
            print(f"autotune: worker {fleet.worker_id(args.device_index)} stopped; its trial in flight goes back to "
                  "the queue", file=sys.stderr)
            return INTERRUPTED
    if not args.quiet:
        print(f"worker {fleet.worker_id(args.device_index)}: {measured} measurements of run {run.plan.name}; "
              "the run is done")
    return 0


def _replay_timers(run: fleet.Run):
    plan = run.plan
    records = replay_records(plan.timer["records"], plan.algorithm)
    delay_s = float(plan.timer.get("delay_ms", 0.0)) / 1000.0
    pace = float(plan.timer.get("pace", 0.0))

    def timers(graph: fleet.RunGraph) -> ContextManager[Timer]:
        mine = [r for r in records if r.graph.key == graph.source and r.algorithm == graph.algorithm]
        if not mine:
            raise InputError(f"replay: the records hold no graph {graph.info.name} ({graph.source})")
        return contextlib.nullcontext(replay_timer(mine, delay_s, pace))

    return timers


def _gpu_timers(run: fleet.Run, device_index: int, stack: ExitStack):
    from autotune import gpu

    plan = run.plan
    handle = stack.enter_context(gpu.gpu_session(device_index))
    name = str(gpu.device_description(handle).get("name"))
    if name != plan.device.get("name"):
        raise InputError(f"--device-index {device_index}: this GPU is {name}, but run {plan.name} measures on "
                         f"{plan.device.get('name')}; a run's workers need the same GPU model")
    protocol = Protocol(**plan.timer["protocol"])
    references = reference_cache()

    @contextlib.contextmanager
    def timers(graph: fleet.RunGraph) -> Iterator[Timer]:
        loaded = load_spec(graph.source, plan.timer.get("graph_seed"), plan.timer.get("weights"))
        if graph.info.sha256 and loaded.sha256 != graph.info.sha256:
            raise InputError(f"--graph {graph.source}: this host's graph differs from the run's "
                             f"(sha256 {loaded.sha256[:12]}, the run's {graph.info.sha256[:12]})")
        with cuda_timer(loaded, graph.algorithm, protocol, references) as timer:
            yield timer

    return timers


__all__ = ["add_options", "merge", "register_worker", "run_fleet", "run_worker", "wants_fleet"]
