"""The checked options of `autotune sweep` (`Request`) and what they make: its jobs and outputs."""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import shlex
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from optuna.storages import BaseStorage

from autotune import algorithms
from autotune.cli.options import load_spec, reference_cache
from autotune.model.shape import ShapeCache
from autotune.search.run.jobs import (Job, SpaceOptions, end_spaces, gpu_device, gpu_jobs, protocol_json, replay_jobs,
                                     replay_records)
from autotune.search.run.references import gpu_shares_references
from autotune.search.results.outputs import Outputs, checked_outputs, default_output
from autotune.errors import InputError
from autotune.measure import Protocol, choose_sources
from autotune.search.run.storage import MEMORY, StudyHandle, StudyKey, open_study
from autotune.search.strategies import Strategy, make_strategy
from autotune.search.run.interrupts import quiet_optuna
from autotune.search.run.preparing import Preparations
from autotune.search.run.plan import DEFAULT_PATIENCE, ENOUGH_AT_END, graph_budgets_s, prepare_within_s
from autotune.search.run.sweep import SweepSettings


OBJECTIVES = ("curve", "throughput", "latency", "pareto")
CURVE_TRIALS = 40  # the default trials of each end of the queries curve (a study each)


@dataclass(frozen=True)
class Request:
    """The checked options of one sweep (no argparse namespace beyond `parse`)."""

    algorithm: str
    strategy: Strategy
    settings: SweepSettings
    protocol: Protocol
    seed: int
    space: SpaceOptions
    graphs: tuple[str, ...]
    weights: str | None
    replay: str | None
    device_spec: str | None
    device_index: int
    storage: str | None
    resume: bool
    command: str | None
    show: bool
    replay_delay_s: float = 0.0
    replay_pace: float = 0.0
    model: str = "auto"
    objective: str = "curve"
    budget_s: float | str | None = "auto"
    hierarchy: bool = True  # build a conditional algorithm's per-graph data (PHAST's hierarchy) for auto
    max_memory: int | None = None  # --max-memory: the GPU memory the sweep may use

    @property
    def study_protocol(self) -> dict[str, Any]:
        settings = {"finalists": self.settings.finalists, "rounds": self.settings.rounds}
        protocol = protocol_json(self.protocol, self.replay is not None, settings)
        if self.objective == "pareto":  # a study of two objectives (autotune.search.run.storage)
            protocol["objectives"] = 2
        return protocol

    def open_study(self, storage: BaseStorage, storage_url: str, job: Job, device: Mapping[str, Any]) -> StudyHandle:
        """The study of one job (graph and algorithm) on this GPU, by this request's strategy,
        space and protocol: a new one, or with `resume` the newest that matches."""
        key = StudyKey(job.graph.key, job.algorithm, str(device["name"]), self.strategy.label, job.space.digest(),
                       self.study_protocol)
        with quiet_optuna():
            return open_study(storage, storage_url, key, self.strategy.sampler(job.space), self.resume,
                              attrs={"graph": job.graph.name, "space": job.space.to_json()})


def parse(args: argparse.Namespace) -> Request:
    """Check the options.

    Raises:
        InputError: naming the option and what was wrong.
    """
    for option, value, low in (("--trials", args.trials, 1), ("--repetitions", args.repetitions, 1),
                               ("--max-repetitions", args.max_repetitions, 1), ("--sources", args.sources, 1),
                               ("--finalists", args.finalists, 1), ("--rounds", args.rounds, 1),
                               ("--patience", args.patience, 0)):
        if value is not None and value < low:
            raise InputError(f"{option}: expected a number >= {low}, found {value}")
    if args.max_repetitions is not None and args.max_repetitions < args.repetitions:
        raise InputError(f"--max-repetitions {args.max_repetitions} is below --repetitions {args.repetitions}; "
                         "it is the most repetitions a measurement may take")
    if not (math.isfinite(args.noise) and args.noise >= 0):
        raise InputError(f"--noise: expected a spread of 0 or more (0.05 = 5%), found {args.noise}")
    for option, factor in (("--prune-factor", args.prune_factor), ("--contender-factor", args.contender_factor)):
        if not (math.isfinite(factor) and factor > 1):
            raise InputError(f"{option}: expected a factor above 1, found {factor}")
    if args.resume and (args.storage == MEMORY or (args.replay and args.storage is None)):
        raise InputError("--resume needs a storage that outlives the process; give --storage FILE.db")
    if not args.replay and not args.graph:
        raise InputError("no graph given; use --graph SPEC (or --replay RECORDS.jsonl)")
    if args.device and not args.replay:
        raise InputError("--device applies to --replay; a sweep on the GPU reads the GPU's own profile")
    if args.param and args.algorithm == algorithms.AUTO:
        raise InputError("--param names one algorithm's parameters; give --algorithm NAME with it")
    budget = parse_budget(args.budget)
    seed = 0 if args.seed is None else _seed(args.seed)
    if args.objective == "curve" and args.queries is not None:
        args.objective = "throughput"  # --queries K narrows the curve to its best with at most K at once
    max_ck = max_concurrent(args.objective, args.queries)
    trials = CURVE_TRIALS if args.trials is None and args.strategy == "bayes" and args.objective == "curve" else args.trials
    strategy = make_strategy(args.strategy, trials, args.sampler,
                             args.sampler_seed if args.sampler_seed is not None else seed)
    protocol = Protocol(args.sources, args.repetitions, args.max_repetitions or args.repetitions, args.noise, seed)
    # Optuna cannot prune a trial of several objectives: a Pareto sweep times every configuration whole
    patience = 0 if args.objective == "pareto" else DEFAULT_PATIENCE if args.patience is None else args.patience
    # a sweep of one end, its trials not given, samples on as the curve's ends do until it has verified enough
    # configurations at its best's CK (by patience alone, on the H200, rmat23's latency sweep given 400 s ended
    # at 63 s with 24 verified, road-NW's throughput sweep given 240 s at 10 s with 20: suite `large`)
    alone = args.objective in ("latency", "throughput") and args.trials is None and args.strategy == "bayes"
    settings = SweepSettings(args.finalists, args.rounds, not args.no_prune and args.objective != "pareto",
                             args.prune_factor, args.contender_factor, patience=patience,
                             enough=ENOUGH_AT_END if alone else 0)
    return Request(
        algorithm=args.algorithm, strategy=strategy, settings=settings, protocol=protocol, seed=seed,
        space=SpaceOptions(args.block_sizes, args.caches, args.ck, args.lanes, tuple(args.param), max_ck),
        graphs=tuple(args.graph or ()), weights=args.weights, replay=args.replay, device_spec=args.device,
        device_index=args.device_index, storage=args.storage, resume=args.resume,
        command="autotune " + shlex.join(sys.argv[1:]) if sys.argv[1:] else None,
        show=not (args.quiet or args.json), replay_delay_s=float(getattr(args, "replay_delay_ms", 0.0)) / 1000.0,
        replay_pace=float(getattr(args, "replay_pace", 0.0)),
        model=getattr(args, "model", "auto"), objective=args.objective, budget_s=budget,
        hierarchy=not getattr(args, "no_hierarchy", False), max_memory=getattr(args, "max_memory", None))


def parse_budget(text: str | None) -> float | str | None:
    """`--budget`: seconds above 0, `auto` (the default: `plan.default_budget_s` per graph for a
    sweep of the queries curve on one GPU; no bound otherwise) or `none`.

    Raises:
        InputError: anything else.
    """
    if text is None or text == "auto":
        return "auto"
    if text == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (math.isfinite(seconds) and seconds > 0):
        raise InputError(f"--budget: expected seconds above 0, auto or none, found {text!r}")
    return seconds


def max_concurrent(objective: str, queries: int | None) -> int | None:
    """The most concurrent SSSPs the objective allows: 1 for latency, K for `--queries K`, None
    (the space's) for throughput and the Pareto front.

    Raises:
        InputError: `--queries` below 1, or above 1 with `--objective latency`.
    """
    if queries is not None and queries < 1:
        raise InputError(f"--queries: expected a number >= 1, found {queries}")
    if objective == "latency":
        if queries not in (None, 1):
            raise InputError(f"--queries {queries} contradicts --objective latency (one query at a time); give one")
        return 1
    return queries


def _seed(text: str) -> int:
    if not (str(text).strip().isascii() and str(text).strip().isdigit()):
        raise InputError(f"--seed: expected a non-negative integer, found {text!r}")
    return int(text)


def outputs_of(args: argparse.Namespace, request: Request, names: list[str], device: dict[str, Any] | None) -> Outputs:
    """The sweep's outputs, checked (`checked_outputs`). Without `device` (before the GPU is
    opened, to refuse a bad output before any work), the default table name is not known yet: only
    the paths given are checked."""
    if device is None and not args.output:
        table = None
    else:
        table = Path(args.output) if args.output else default_output(names, str(device["name"]), request.algorithm)
    records = Path(args.records) if args.records else (
        None if request.replay or table is None else table.with_name(table.stem + ".records.jsonl"))
    if table is None:
        table = Path(os.devnull)  # stands for the default name, checked once the GPU names it
    inputs = [("--replay", request.replay), ("--model", _file_or_none(request.model)),
              ("--storage", _file_or_none(request.storage)), *(("--graph", spec) for spec in request.graphs)]
    return checked_outputs(table, records, args.t4, request.algorithm, request.command, request.show,
                           bool(args.json), [(option, path) for option, path in inputs if path], request.resume,
                           request.objective)


def _file_or_none(text: str | None) -> str | None:
    """An option's value where it names a file that exists (a --model or --storage file)."""
    return text if text and Path(text).is_file() else None


@dataclass(frozen=True)
class CheckedJobs:
    """A sweep's inputs, every spec and option checked and the graphs loaded, before the GPU or a
    storage is opened; `jobs` makes the jobs (a replay's are made already)."""

    request: Request
    graphs: tuple[Any, ...] = ()
    replayed: tuple[dict[str, Any], list[Job], list[str]] | None = None

    def jobs(self, stack: ExitStack | None) -> tuple[dict[str, Any], list[Job], list[str]]:
        """The GPU described, the reference distances kept, and the jobs. The GPU's context is made
        current on `stack`, for the jobs' timers; None: the GPU is only described (a run's
        coordinator, whose workers measure)."""
        if self.replayed is not None:
            return self.replayed
        request = self.request
        references = reference_cache()
        gpu_share = stack is not None and gpu_shares_references(request.algorithm)  # the GPU solves some of them
        try:
            for graph in self.graphs:  # their workers forked now: before the GPU is asked anything, and the builds
                references.start(graph, choose_sources(graph, request.protocol.sample, request.protocol.seed),
                                 gpu_share=gpu_share)
            device, profile = gpu_device(request.device_index)
            return self._gpu_jobs(stack, device, profile, references, gpu_share)
        except BaseException:
            references.abandon()  # not waited for: an exit would wait for the workers' Dijkstras
            raise

    def _gpu_jobs(self, stack: ExitStack | None, device: dict[str, Any], profile: Any, references: Any,
                  gpu_share: bool = False) -> tuple[dict[str, Any], list[Job], list[str]]:
        request = self.request
        compiled = None
        if stack is not None:
            from autotune import gpu
            from autotune.gpu import renumber, verify
            from autotune.gpu.compile import precompile
            from autotune.gpu.memory import set_memory_cap
            from autotune.reference.distance_range import width_for

            stack.enter_context(gpu.gpu_session(request.device_index))
            set_memory_cap(request.max_memory)
            # the kernels build side by side while the references are computed (a cold start); for
            # graphs whose distances need 64 bits, the 64-bit builds of the algorithms that have them
            wide = all(width_for(g).wide for g in self.graphs)
            builds = [a for a in algorithms.resolve(request.algorithm) if a.wide_distances or not wide]
            compiled = precompile(builds, "sm_" + profile.compute_capability.replace(".", ""),
                                  (verify.SOURCE, renumber.SOURCE), wide=wide)
        memory = min((m for m in (profile.global_memory_bytes, request.max_memory) if m), default=None)
        if request.max_memory is not None:
            device["x-max-memory"] = request.max_memory
        space = dataclasses.replace(request.space, memory_bytes=memory)
        # a graph's preparation (PHAST's hierarchy) may take a share of its part of the budget, the rest is measuring
        parts = graph_budgets_s(request.budget_s, request.objective == "curve",
                                [(g.n_vertices, g.n_edges) for g in self.graphs])
        # on the GPU a preparation is made beside the other algorithms' measurements; a run's coordinator waits
        beside = None if stack is None else stack.enter_context(Preparations())
        within = prepare_within_s(parts, beside is not None)
        jobs = gpu_jobs(request.graphs, self.graphs, request.algorithm, space, profile, request.protocol,
                        request.seed, request.weights, references, request.model, request.objective,
                        request.hierarchy, ShapeCache.from_env(), compiled if gpu_share else None, within, beside)
        if compiled is not None:
            compiled()
        return device, jobs, [g.name for g in self.graphs]


def check_jobs(request: Request) -> CheckedJobs:
    """The sweep's inputs checked (see `CheckedJobs`)."""
    load = lambda spec: load_spec(spec, request.seed, request.weights)  # noqa: E731
    if request.replay:
        records = replay_records(request.replay, request.algorithm)
        return CheckedJobs(request, replayed=replay_jobs(
            request.replay, records, request.graphs, request.algorithm, request.space, request.device_spec, load,
            request.replay_delay_s, request.model, request.replay_pace, request.objective))
    graphs = tuple(load(spec) for spec in request.graphs)
    if request.algorithm != algorithms.AUTO:  # auto leaves such an algorithm out (`Algorithm.admits`)
        for graph in graphs:
            algorithms.get(request.algorithm).require_width(graph)
    studies = [end for entry in algorithms.resolve(request.algorithm)  # every space checked before the GPU opens
               for end in end_spaces(request.space, request.objective, entry.name, None,
                                     required=request.algorithm != algorithms.AUTO)]
    if not studies:
        raise InputError(f"--objective {request.objective}: no algorithm of --algorithm {request.algorithm} runs "
                         "that few SSSPs at once")
    return CheckedJobs(request, graphs)


def jobs_of(request: Request, stack: ExitStack) -> tuple[dict[str, Any], list[Job], list[str]]:
    """The sweep's jobs, the GPU's context current on `stack` (every spec and option checked before
    the GPU is opened)."""
    return check_jobs(request).jobs(stack)
