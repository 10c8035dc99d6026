"""`autotune sweep --devices / --merge` and `autotune sweep-worker`: a sweep shared out over
several GPUs (autotune.search.coordinator; docs/multi-gpu.md). The one-GPU sweep is cli/sweep.py,
whose graph loading, table writing and summary this module re-uses.
"""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Sequence

from autotune.cli.sweep import (INTERRUPTED, default_output, gpu_jobs, measurement_protocol, replay_jobs,
                                report_outcome, write_outputs)
from autotune.errors import InputError
from autotune.search.records import Record
from autotune.search.space import SearchSpace
from autotune.search.study import MEMORY, open_storage
from autotune.search.sweep import SweepSettings, quiet_optuna, stop_on_sigterm


def devices_of(args: argparse.Namespace) -> tuple[int, ...] | None:
    """The `--devices` indexes (None without it), checked before any work."""
    if args.devices is None:
        for option, given in (("--run", args.run_name), ("--heartbeat-s", args.heartbeat_s)):
            if given is not None:
                raise InputError(f"{option} applies to --devices (several GPUs) or --merge")
        if args.replay_delay_ms:
            raise InputError("--replay-delay-ms applies to --replay with --devices")
        return None
    if args.storage == MEMORY:
        raise InputError("--devices: the workers share their trials through a storage, and memory cannot be "
                         "shared; give --storage FILE.db (or leave --storage out)")
    if args.replay_delay_ms and not args.replay:
        raise InputError("--replay-delay-ms applies to --replay")
    from autotune.search.coordinator import parse_devices

    return parse_devices(args.devices, bool(args.replay))


def run_fleet(args: argparse.Namespace, devices: tuple[int, ...], replayed: list[Record] | None,
               space: SearchSpace, strategy: Any, settings: SweepSettings, seed: int, command: str | None,
               show: bool) -> int:
    """`--devices`: create or join the run, start a worker per GPU, merge their trials into one table."""
    import tempfile

    from autotune.search import coordinator as co
    from autotune.search.runplan import Timing
    from autotune.search.study import storage_url as full_url

    spec = args.storage
    with ExitStack() as stack:
        if spec is None and args.replay:  # nothing to keep, but a storage the workers can share
            spec = str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="autotune-run-"))) / "run.db")
        stack.enter_context(stop_on_sigterm())
        args.device_index = devices[0]
        with ExitStack() as probe:  # the GPU is described, then let go: the workers open it
            device, jobs, names = replay_jobs(args, replayed) if replayed else gpu_jobs(args, probe)
            graph_jobs = [co.GraphJob(job.graph, job.specials, job.source) for job in jobs]
        storage, shown = open_storage(spec)
        timer = ({"kind": "replay", "records": str(Path(args.replay).resolve()), "delay_ms": args.replay_delay_ms}
                 if args.replay else {"kind": "cuda", "repetitions": args.repetitions, "sources": args.sources,
                                      "seed": seed, "graph_seed": args.seed, "weights": args.weights})
        timing = Timing.from_heartbeat(args.heartbeat_s) if args.heartbeat_s is not None else Timing()
        setup = co.RunSetup(args.run_name, args.resume, args.algorithm, strategy, space, settings,
                            measurement_protocol(args, seed), device, timer, timing, command)
        with quiet_optuna():
            run, joined = co.open_run(storage, shown, setup, graph_jobs)
        if show:
            print(f"autotune: {'joined' if joined else 'started'} run {run.name} in {shown}: "
                  f"{len(run.plan.tasks)} tasks, {len(devices)} workers here; {_join_hint(shown, run.name)}",
                  file=sys.stderr)
        fleet = co.Fleet(run, full_url(spec), devices)
        interrupted = False
        try:
            with ExitStack() as view:  # the progress display ends before the summary
                if show:
                    from autotune.search.fleetview import FleetProgress

                    fleet.progress = view.enter_context(FleetProgress(run.plan))
                fleet.run_to_end()
        except KeyboardInterrupt:
            interrupted = True
        return _finish_fleet(args, run, shown, names, command, show, interrupted)


def _finish_fleet(args: argparse.Namespace, run: Any, shown: str, names: Sequence[str], command: str | None,
                  show: bool, interrupted: bool) -> int:
    """Merge the run's trials; write the table, the records, the T4 files; report."""
    from autotune.search import coordinator as co

    plan_ = run.plan
    device = dict(plan_.device)
    results = co.merge_run(run, shown)
    left = co.tasks_left(run)
    output = Path(args.output) if args.output else default_output(names, str(device["name"]), plan_.algorithm)
    replay = plan_.timer.get("kind") == "replay"
    records_path = Path(args.records) if args.records else (
        None if replay else output.with_name(output.stem + ".records.jsonl"))
    extra = {"x-run": {"name": run.name, "storage": shown, "tasks": len(plan_.tasks), "tasks_left": left},
             "x-workers": co.worker_summary(run)}
    written = write_outputs(results, device, args, output, records_path, command, partial=interrupted or left > 0,
                     extra=extra)
    status = report_outcome(args, results, device, command, written, interrupted, show, output, extra, partial=left > 0)
    if left and not interrupted:
        url = _pasteable_url(shown)
        print(f"autotune: run {run.name} is not finished ({left} of {len(plan_.tasks)} tasks left; wrote the "
              f"partial table {output}); {_join_hint(shown, run.name)}; then: autotune sweep --merge --storage "
              f"{shlex.quote(url)} --run {shlex.quote(run.name)}", file=sys.stderr)
        return 1
    return status


def _pasteable_url(shown: str) -> str:
    """The storage URL as a command line can take it: the password, which `shown` hides as ***,
    becomes the placeholder PASSWORD."""
    return re.sub(r"(://[^:/@]+:)[^@]+@", r"\1PASSWORD@", shown)


def _local_storage(shown: str) -> bool:
    """Whether the storage is a file (SQLite, journal) that only workers of this host can share."""
    return shown.startswith("sqlite:") or "://" not in shown


def _join_hint(shown: str, run: str) -> str:
    """How another worker joins the run: on this host for a file storage (several hosts need a
    server: docs/multi-gpu.md), from any host for a server, its password left to the reader."""
    url = _pasteable_url(shown)
    command = f"autotune sweep-worker --storage {shlex.quote(url)} --run {shlex.quote(run)} --device-index I"
    if _local_storage(shown):
        return (f"another worker on this host joins with: {command} (workers on several hosts need a "
                "PostgreSQL --storage: docs/multi-gpu.md)")
    note = " (replace PASSWORD with the storage's password)" if url != shown else ""
    return f"another host joins with: {command}{note}"


def merge(args: argparse.Namespace) -> int:
    """`--merge`: the table of a run from its storage (no GPU, no graphs needed)."""
    from autotune.search.workqueue import RunStudy

    if not args.run_name:
        raise InputError("--merge: name the run with --run NAME (and its --storage)")
    if args.storage == MEMORY:
        raise InputError("--merge: a run in memory is gone with its process; give the run's --storage")
    storage, shown = open_storage(args.storage)
    with quiet_optuna():
        run = RunStudy.open(storage, args.run_name, shown)
        args.algorithm = run.plan.algorithm
        command = "autotune " + shlex.join(sys.argv[1:]) if sys.argv[1:] else run.plan.command
        names = [g.info.name for g in run.plan.graphs]
        return _finish_fleet(args, run, shown, names, command, not (args.quiet or args.json), False)


def run_worker(args: argparse.Namespace) -> int:
    """`autotune sweep-worker`: work on a run from this GPU until every task is done."""
    from autotune.search.workers import GpuSource, ReplaySource, Worker, worker_id
    from autotune.search.workqueue import RunStudy

    if args.storage == MEMORY:
        raise InputError("--storage memory: a worker joins a run in a storage other processes can open")
    if args.device_index < 0:
        raise InputError(f"--device-index: expected 0 or more, found {args.device_index}")
    storage, shown = open_storage(args.storage)
    with quiet_optuna():
        run = RunStudy.open(storage, args.run_name, shown)
    plan_ = run.plan
    with ExitStack() as stack:
        stack.enter_context(stop_on_sigterm())
        if plan_.timer.get("kind") == "replay":
            source: Any = ReplaySource(plan_)
        else:
            source = stack.enter_context(GpuSource(plan_, args.device_index, _graph_loader(plan_)))
        name = worker_id(args.device_index)
        try:
            done = Worker(run, shown, source, name, args.device_index).work()
        except KeyboardInterrupt:
            print(f"autotune: worker {name} stopped; its task in flight goes back to the queue", file=sys.stderr)
            return INTERRUPTED
    if not args.quiet:
        print(f"worker {name}: {done} tasks of run {run.name}; the run is done")
    return 0


def _graph_loader(plan_: Any) -> Any:
    """Load a run's graph by its spec with the run's seed and weights (the graph cache of this host)."""
    from autotune.cli.options import graph_cache
    from autotune.graphs import GraphOptions, parse_spec
    from autotune.graphs.spec import load

    options = GraphOptions.from_values(plan_.timer.get("graph_seed"), plan_.timer.get("weights"))
    cache = graph_cache()
    return lambda spec: load(parse_spec(spec), options, cache)
