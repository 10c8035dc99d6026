"""A sweep that several worker processes share (`autotune sweep --devices ...`, `sweep-worker`),
on Optuna's own machinery: each graph's study lives in one storage, every trial the sweep plans is
enqueued there (`study.enqueue_trial`; a storage hands a WAITING trial to one process only), the
workers run the same procedure as one process (`sweep.GraphSweep.work`) and the run's coordinator
advances the stages (`GraphSweep.advance`).

What Optuna does not do, and this module does:

* **The run.** A study named `autotune-run/NAME` holds the plan (strategy, spaces, measurement
  protocol, GPU, graphs, how to get a timer) as user attributes, so that a worker started anywhere
  with the storage URL and the run's name can join; and each worker's record (host, pid, GPU,
  state, measurements) for the table's `x-workers`.
* **Dead workers on a journal file.** An RDB storage (PostgreSQL, SQLite) opened with a heartbeat
  fails the trials of a worker that stopped beating and enqueues them again (Optuna's
  `RetryHeartbeatStaleTrialCallback`). A `JournalStorage` has no heartbeat; its workers share one
  host, so a RUNNING trial whose worker process (`trials.ATTR_WORKER`) no longer exists is failed
  and enqueued again the same way (`storage.recover_interrupted`).
* **The stages.** Only the coordinator moves a graph to its next stage (compose, re-measure,
  done), so their trials are enqueued once.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import os
import socket
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Mapping, Sequence

import optuna
from optuna.storages import BaseStorage, JournalStorage, fail_stale_trials
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.launch import LaunchConfig
from autotune.measure import Timer
from autotune.search.results import GraphInfo, GraphResult
from autotune.search.space import SearchSpace
from autotune.search.run.specials import Specials
from autotune.search.run.storage import StudyHandle, recover_interrupted
from autotune.search.strategies import Strategy, strategy_from_json
from autotune.search.run.interrupts import quiet_optuna
from autotune.search.run.stages import ATTR_ELAPSED
from autotune.search.run.sweep import GraphPlan, GraphSweep, SweepSettings
from autotune.search.run.trials import ATTR_WORKER
from autotune.search.run.transfer import complete_trials, fastest_per_ck

RUN_PREFIX = "autotune-run/"
RUN_FORMAT = "autotune.run/2"
ATTR_PLAN = "plan"
WORKER_PREFIX = "worker/"
POLL_S = 0.05  # an idle worker, or the coordinator, looks at the storage again after this (hand-overs wait on it)
PLAN_WAIT_S = 5.0  # a run found without its plan (its study is created a moment before) is given this long
REPORT_S = 1.0  # a worker's count of measurements is written at most this often (and at its end)


@dataclass(frozen=True)
class RunGraph:
    """One graph (and algorithm) of a run: its study, and how a worker gets its timer."""

    info: GraphInfo
    algorithm: str
    study: str
    source: str  # the --graph spec (GPU) or the records' graph key (replay)
    space: SearchSpace
    specials: Specials
    objective: str = "throughput"  # the end of the queries curve it searches (throughput, latency or few)
    settings: Mapping[str, Any] = field(default_factory=dict)  # what its study changes of the run's SweepSettings

    def to_json(self) -> dict[str, Any]:
        return {"info": {**self.info.to_json(), "classes": dict(self.info.classes or {}) or None},
                "algorithm": self.algorithm, "study": self.study, "source": self.source,
                "space": self.space.to_json(), "specials": self.specials.to_json(), "objective": self.objective,
                "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in self.settings.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunGraph:
        info = dict(data["info"])
        classes = info.pop("classes", None)
        graph = dataclasses.replace(GraphInfo.from_json(info), classes=classes or None)
        algorithm = str(data["algorithm"])
        return cls(graph, algorithm, str(data["study"]), str(data["source"]), SearchSpace.from_json(data["space"]),
                   Specials.from_json(data["specials"], algorithm), str(data.get("objective", "throughput")),
                   settings_from_json(data.get("settings", {})))


@dataclass(frozen=True)
class RunPlan:
    """Everything the workers of a run share.

    Args:
        name: the run's name (`--run`).
        algorithm: the algorithm the command asked for (a registered one, or auto).
        strategy: the strategy.
        settings: finalists, rounds, pruning.
        protocol: how each configuration is measured (part of the graph studies' names).
        device: the table's device object; every worker's GPU must have its name.
        timer: `{"kind": "cuda", ...}` or `{"kind": "replay", "records": PATH, "delay_ms": N}`.
        graphs: the graphs (and algorithms), in order.
        command: the command line that started the run.
        created: ISO 8601 UTC time.
    """

    name: str
    algorithm: str
    strategy: Strategy
    settings: SweepSettings
    protocol: Mapping[str, Any]
    device: Mapping[str, Any]
    timer: Mapping[str, Any]
    graphs: tuple[RunGraph, ...]
    command: str | None = None
    created: str = field(default_factory=lambda: datetime.datetime.now(datetime.timezone.utc).isoformat())

    def graph_plan(self, graph: RunGraph) -> GraphPlan:
        return GraphPlan(graph.info, graph.space, self.strategy, graph.specials,
                         dataclasses.replace(self.settings, **graph.settings))

    def to_json(self) -> dict[str, Any]:
        return {"format": RUN_FORMAT, "name": self.name, "algorithm": self.algorithm,
                "strategy": self.strategy.to_json(), "settings": self.settings.to_json(),
                "protocol": dict(self.protocol), "device": dict(self.device), "timer": dict(self.timer),
                "graphs": [g.to_json() for g in self.graphs], "command": self.command, "created": self.created}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "run plan") -> RunPlan:
        if data.get("format") != RUN_FORMAT:
            raise InputError(f"{where}: a run of format {data.get('format')!r}; this autotune reads {RUN_FORMAT}")
        return cls(str(data["name"]), str(data["algorithm"]), strategy_from_json(data["strategy"]),
                   SweepSettings(**settings_from_json(data["settings"])),
                   dict(data["protocol"]), dict(data["device"]),
                   dict(data["timer"]), tuple(RunGraph.from_json(g) for g in data["graphs"]),
                   data.get("command"), str(data.get("created", "")))


def settings_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """`SweepSettings` fields as JSON keeps them (a tuple as a list) back as fields."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}


def run_study_name(name: str) -> str:
    return RUN_PREFIX + name


def run_names(storage: BaseStorage) -> list[str]:
    """The runs in a storage, oldest first (default names sort by their UTC time)."""
    return sorted(s.study_name[len(RUN_PREFIX):] for s in storage.get_all_studies() if s.study_name.startswith(RUN_PREFIX))


class Run:
    """A run in a storage: its plan, its graph studies and its workers' records."""

    def __init__(self, storage: BaseStorage, storage_url: str, plan: RunPlan) -> None:
        self.storage = storage
        self.storage_url = storage_url
        self.plan = plan
        self.study = optuna.load_study(study_name=run_study_name(plan.name), storage=storage)

    @classmethod
    def create(cls, storage: BaseStorage, storage_url: str, plan: RunPlan) -> Run:
        """Create the run's study with its plan, and every graph's study.

        Raises:
            optuna.exceptions.DuplicatedStudyError: a run of that name exists (join it instead).
        """
        study = optuna.create_study(study_name=run_study_name(plan.name), storage=storage)
        study.set_user_attr(ATTR_PLAN, plan.to_json())
        return cls(storage, storage_url, plan)

    @classmethod
    def await_open(cls, storage: BaseStorage, storage_url: str, name: str, waiting: Callable[[], bool],
                   sleep: Callable[[float], None] = time.sleep) -> Run:
        """Open a run that its coordinator may still be preparing, trying again while `waiting()`
        (the coordinator lives).

        Raises:
            InputError: the run is still missing (or has no plan) when `waiting()` turns false.
        """
        while True:
            try:
                return cls.open(storage, storage_url, name)
            except InputError:
                if not waiting():
                    raise
            sleep(POLL_S)

    @classmethod
    def open(cls, storage: BaseStorage, storage_url: str, name: str) -> Run:
        """Open an existing run. A run's study is created before its plan is written: a run found
        without a plan is waited for up to `PLAN_WAIT_S` (its coordinator is writing it).

        Raises:
            InputError: no run of that name (naming the runs there), or its plan is missing or unreadable.
        """
        try:
            study = optuna.load_study(study_name=run_study_name(name), storage=storage)
        except KeyError:
            known = run_names(storage)
            there = f"; runs there: {', '.join(known[-5:])}" if known else "; it holds no run"
            raise InputError(f"--run {name}: no such run in {storage_url}{there}") from None
        deadline = time.monotonic() + PLAN_WAIT_S
        while (data := study.user_attrs.get(ATTR_PLAN)) is None and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if data is None:
            raise InputError(f"--run {name}: the run in {storage_url} has no plan")
        return cls(storage, storage_url, RunPlan.from_json(data, f"run {name}"))

    def handle(self, graph: RunGraph, sampler: optuna.samplers.BaseSampler) -> StudyHandle:
        study = optuna.load_study(study_name=graph.study, storage=self.storage, sampler=sampler)
        return StudyHandle(study, self.storage, self.storage_url, resumed=False)

    def sweep(self, graph: RunGraph, timer: Timer | None = None, worker: str = "", workers: int = 1) -> GraphSweep:
        """The `GraphSweep` of one graph of the run (a worker's sampler seeded with its id), pruned
        against the best of its siblings (`best_elsewhere`)."""
        offset = sum(worker.encode()) if worker else 0
        sampler = self.plan.strategy.sampler(graph.space, offset, workers)
        return GraphSweep(self.plan.graph_plan(graph), self.handle(graph, sampler), timer,
                          best_elsewhere=self.best_elsewhere(graph), siblings=self.siblings(graph))

    def siblings(self, graph: RunGraph) -> Callable[[], list[LaunchConfig]]:
        """The fastest configuration per CK that the run's studies of the graph's other curve ends
        (same algorithm) verified so far (`transfer`)."""
        ids = [self.storage.get_study_id_from_name(g.study) for g in self.plan.graphs
               if g.study != graph.study and g.info.key == graph.info.key and g.algorithm == graph.algorithm]
        return lambda: fastest_per_ck(complete_trials(self.storage, ids))

    def best_elsewhere(self, graph: RunGraph) -> Callable[[], float | None] | None:
        """The best time per SSSP measured so far by the run's other studies of the same graph and
        end of the curve (an auto sweep's other algorithms): what a one-process sweep prunes a
        study's trials against and abandons a hopeless algorithm by. None where it has none."""
        siblings = [self.storage.get_study_id_from_name(g.study) for g in self.plan.graphs
                    if g.study != graph.study and g.info.key == graph.info.key and g.objective == graph.objective]
        if not siblings:
            return None

        def best() -> float | None:
            return min((t.values[0] for study_id in siblings
                        for t in self.storage.get_all_trials(study_id, deepcopy=False, states=(TrialState.COMPLETE,))
                        if t.values), default=None)

        return best

    def sweeps(self, worker: str = "", workers: int = 1) -> list[GraphSweep]:
        """A `GraphSweep`, without a timer, per graph of the run."""
        return [self.sweep(graph, None, worker, workers) for graph in self.plan.graphs]

    # --- workers' records ------------------------------------------------------------------------

    def set_worker(self, worker: str, record: Mapping[str, Any]) -> None:
        self.study.set_user_attr(WORKER_PREFIX + worker, json.loads(json.dumps(dict(record))))

    def workers(self) -> dict[str, dict[str, Any]]:
        attrs = optuna.load_study(study_name=self.study.study_name, storage=self.storage).user_attrs
        return {k[len(WORKER_PREFIX):]: dict(v) for k, v in attrs.items() if k.startswith(WORKER_PREFIX)}

    # --- liveness -----------------------------------------------------------------------------

    def recover(self, sweeps: Sequence[GraphSweep]) -> int:
        """Fail and enqueue again the RUNNING trials of dead workers (module docstring)."""
        count = 0
        for sweep in sweeps:
            if isinstance(self.storage, JournalStorage):
                count += recover_interrupted(sweep.study, self.storage, gone=dead_here, forget=(ATTR_WORKER,))
            else:
                with contextlib.suppress(Exception), warnings.catch_warnings():
                    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                    fail_stale_trials(sweep.study)
        return count


def dead_here(trial: optuna.trial.FrozenTrial) -> bool:
    """Whether a RUNNING trial's worker ran on this host and its process is gone."""
    worker = trial.user_attrs.get(ATTR_WORKER)
    if not worker or worker.get("host") != socket.gethostname():
        return False
    return not pid_alive(int(worker["pid"]))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def worker_id(device_index: int) -> str:
    return f"{socket.gethostname()}/gpu{device_index}/{os.getpid()}"


def work(run: Run, timers: Callable[[RunGraph], ContextManager[Timer]], device_index: int,
         sleep: Callable[[float], None] = time.sleep, workers: int = 1) -> int:
    """Measure the run's trials on this process's timer until every graph is done; returns how
    many it measured. Graphs are worked on in order; a graph whose stage has nothing left for this
    worker is left for the next."""
    name = worker_id(device_index)
    record: dict[str, Any] = {"host": socket.gethostname(), "pid": os.getpid(), "device_index": device_index,
                              "measured": 0, "state": "running"}
    run.set_worker(name, record)
    state = "failed"
    reported = time.monotonic()
    try:
        with quiet_optuna(), contextlib.ExitStack() as stack:
            opened: dict[int, GraphSweep] = {}
            sweeps = run.sweeps(name, workers)  # every state they answer is read from the storage
            while True:
                if all(s.done for s in sweeps):
                    break
                progressed = False
                for index, (graph, sweep) in enumerate(zip(run.plan.graphs, sweeps)):
                    if sweep.done or not sweep.offers_work():
                        continue
                    if index not in opened:
                        opened[index] = run.sweep(graph, stack.enter_context(timers(graph)), name, workers)
                    count = opened[index].work(limit=1)
                    record["measured"] = sum(s.trials.measured_here for s in opened.values())
                    progressed = progressed or bool(count)
                    if count and time.monotonic() - reported >= REPORT_S:  # the coordinator's progress
                        run.set_worker(name, record)
                        reported = time.monotonic()
                    if count:
                        break  # back to the first graph that has work
                if not progressed:
                    run.recover(sweeps)
                    sleep(POLL_S)
        state = "finished"
    except KeyboardInterrupt:
        state = "stopped"
        raise
    finally:
        record["state"] = state
        with contextlib.suppress(Exception):
            run.set_worker(name, record)
    return int(record["measured"])


def coordinate(run: Run, alive: Callable[[], bool], sleep: Callable[[float], None] = time.sleep,
               on_poll: Callable[[], None] | None = None) -> bool:
    """Prepare every graph, then advance the stages and recover dead workers' trials until every
    graph is done (True) or no worker is left (False)."""
    with quiet_optuna():
        sweeps = run.sweeps()
        for sweep in sweeps:
            sweep.prepare()
        while True:
            sweeps = run.sweeps()
            moved = any([sweep.advance() for sweep in sweeps])
            if all(s.done for s in sweeps):
                return True
            if not moved:
                if not alive():
                    run.recover(sweeps)
                    return all(s.done for s in run.sweeps())
                run.recover(sweeps)
                if on_poll is not None:
                    on_poll()
                sleep(POLL_S)


def results(run: Run, elapsed_s: float | None = None, partial: bool = False) -> list[GraphResult]:
    """The graphs' results from their studies (what every worker measured); `elapsed_s`: the
    run's wall time (default: what each study recorded)."""
    out = []
    for sweep in run.sweeps():
        elapsed = float(sweep.study.user_attrs.get(ATTR_ELAPSED, 0.0)) if elapsed_s is None else elapsed_s
        out.append(sweep.result(elapsed, partial or not sweep.done, run.plan.device))
    return out


def worker_summary(run: Run) -> list[dict[str, Any]]:
    """Per worker: its id, host, GPU, state and measurements (the table's `x-workers`)."""
    out = []
    for worker, record in sorted(run.workers().items()):
        state = record.get("state", "running")
        if state == "running" and record.get("host") == socket.gethostname() and not pid_alive(int(record.get("pid", 0))):
            state = "dead"
        out.append({"worker": worker, "host": record.get("host"), "device_index": record.get("device_index"),
                    "state": state, "measured": int(record.get("measured", 0))})
    return out
