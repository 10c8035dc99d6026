"""The coordinator of a multi-GPU sweep (`autotune sweep --devices ...`): create or join the run,
start one worker process per GPU, show their progress, and merge their trials into one result.

- `parse_devices`: `--devices all` (every GPU PyCUDA counts) or `0,1,...`.
- `open_run`: create the run (its graph studies, its plan: `runplan`) or join the run of that
  name, whose plan must agree with this command's.
- `Fleet`: the worker processes (`python -m autotune sweep-worker --storage URL --run NAME
  --device-index I`, the same command that adds a worker on another host); a worker that exits
  with an error or is killed has its record marked dead at once, so the others take over its
  ticket in flight; Ctrl-C or SIGTERM stops them all.
- `merge_run`: the `GraphResult` of each graph from its study, as a one-process sweep would have
  reported it from the same measurements; a graph not finished is `partial`.

Example:
    >>> run, joined = open_run(storage, url, setup, jobs)                 # doctest: +SKIP
    >>> Fleet(run, url_with_password, (0, 1)).run()                        # doctest: +SKIP
    >>> results = merge_run(run, url)                                      # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping, Sequence

import optuna
from optuna.exceptions import DuplicatedStudyError
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.search.replay import ReplayStats
from autotune.search.results import GraphInfo, GraphResult
from autotune.search.runner import Runner
from autotune.search.runplan import FINALIZE, GraphPlan, RunPlan, Timing, plan_graph
from autotune.search.space import SearchSpace
from autotune.search.strategies import Strategy
from autotune.search.study import StudyHandle, StudyKey, open_study
from autotune.search.sweep import ATTR_ELAPSED, Specials, SweepSettings, study_result
from autotune.search.workers import ATTR_DONE
from autotune.search.workqueue import RunStudy, run_names, this_host


def gpu_count() -> int:
    """How many GPUs PyCUDA sees.

    Raises:
        GpuUnavailable: no PyCUDA, or no GPU responds (one line).
    """
    from autotune.gpu.launcher import _driver  # the one place that initializes the driver

    return int(_driver().Device.count())


def parse_devices(text: str, replay: bool, count: Callable[[], int] = gpu_count) -> tuple[int, ...]:
    """The GPU indexes of `--devices`: `all` or a comma list (`0,1`). With a replay the indexes
    only name the workers (each replays the records), and `all` has nothing to count.

    Raises:
        InputError: a malformed list, a repeated or missing GPU.
        GpuUnavailable: `all`, or a check of the indexes, without a GPU.
    """
    value = text.strip()
    if value == "all":
        if replay:
            raise InputError("--devices all: a replay has no GPUs to count; name the workers, e.g. --devices 0,1,2")
        found = count()
        if found < 1:
            raise InputError("--devices all: no GPU found")
        return tuple(range(found))
    items = [item.strip() for item in value.split(",")]
    if not value or not all(items):
        raise InputError(f"--devices: expected all or GPU indexes like 0,1, found {text!r}")
    bad = next((item for item in items if not item.isdigit()), None)
    if bad is not None:
        raise InputError(f"--devices: {bad!r} is not a GPU index (0, 1, ...); give all or a list like 0,1")
    indexes = tuple(int(item) for item in items)
    repeated = next((i for i, n in Counter(indexes).items() if n > 1), None)
    if repeated is not None:
        raise InputError(f"--devices: GPU {repeated} is listed twice; a run has one worker per GPU")
    if not replay:
        found = count()
        missing = [i for i in indexes if i >= found]
        if missing:
            raise InputError(f"--devices: there is no GPU {missing[0]}; this machine has {found} "
                             f"(indexes 0-{found - 1})")
    return indexes


@dataclass(frozen=True)
class GraphJob:
    """A graph of the command: its description, its specials, and how workers find it (a
    `--graph` spec, or the records' graph key)."""

    info: GraphInfo
    specials: Specials
    source: str


@dataclass(frozen=True)
class RunSetup:
    """What the command asks for (everything a `RunPlan` holds but the graphs' studies).

    Args:
        name: `--run`; None: a new name, or with `resume` the newest run of the same settings.
        resume: re-use measurements of earlier studies (and continue an unfinished run).
        algorithm, strategy, space, settings, protocol, device, timer, timing, command: as `RunPlan`.
    """

    name: str | None
    resume: bool
    algorithm: str
    strategy: Strategy
    space: SearchSpace
    settings: SweepSettings
    protocol: Mapping[str, Any]
    device: Mapping[str, Any]
    timer: Mapping[str, Any]
    timing: Timing = Timing()
    command: str | None = None


def _draft(setup: RunSetup, jobs: Sequence[GraphJob], name: str) -> RunPlan:
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return RunPlan(name=name, algorithm=setup.algorithm, strategy=setup.strategy, space=setup.space,
                   settings=setup.settings, protocol=dict(setup.protocol), device=dict(setup.device),
                   timer=dict(setup.timer), graphs=tuple(GraphPlan(j.info, "", j.source, j.specials) for j in jobs),
                   timing=setup.timing, command=setup.command, created=now)


def _join(storage: Any, storage_url: str, name: str, draft: RunPlan) -> RunStudy:
    run = RunStudy.open(storage, name, storage_url)
    differ = run.plan.differences(draft)
    if differ:
        raise InputError(f"--run {name}: the run in {storage_url} was started with another {', '.join(differ)}; "
                         "give the same options as its first command, or another --run name")
    return run


def open_run(storage: Any, storage_url: str, setup: RunSetup, jobs: Sequence[GraphJob]) -> tuple[RunStudy, bool]:
    """Join the run `setup.name` (or with `resume`, the newest run of the same settings) or create
    a new one; returns it and whether it was joined.

    Raises:
        InputError: the named run exists with other settings.
    """
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    draft = _draft(setup, jobs, setup.name or f"sweep-{stamp}")
    existing = run_names(storage)
    if setup.name is not None and setup.name in existing:
        return _join(storage, storage_url, setup.name, draft), True
    if setup.name is None and setup.resume:
        for name in reversed(existing):
            run = RunStudy.open(storage, name, storage_url)
            if run.plan.key() == draft.key():
                return run, True
    graphs = []
    for job in jobs:
        key = StudyKey(job.info.sha256 or job.info.name, setup.algorithm, str(setup.device.get("name")),
                       setup.strategy.label, setup.space.digest(), setup.protocol)
        handle = open_study(storage, storage_url, key, setup.strategy.sampler(setup.space), setup.resume,
                            attrs={"graph": job.info.name, "space": setup.space.to_json(), "run": draft.name})
        if handle.resumed:  # trials a one-process sweep enqueued: a run measures its specials as tasks
            for trial in handle.study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
                storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        runner = Runner(handle, setup.space, timer=None)  # type: ignore[arg-type]  # only what it measured
        graphs.append(plan_graph(job.info, handle.name, job.source, job.specials, setup.strategy, setup.space,
                                 runner.measured, runner.search_trials, handle.resumed,
                                 float(handle.study.user_attrs.get(ATTR_ELAPSED, 0.0))))
    plan = dataclasses.replace(draft, graphs=tuple(graphs))
    try:
        return RunStudy.create(storage, plan), False
    except DuplicatedStudyError:  # another host created it a moment ago: join theirs
        for graph in graphs:
            if not graph.resumed:
                optuna.delete_study(study_name=graph.study, storage=storage)
        return _join(storage, storage_url, plan.name, draft), True


def worker_command(storage_spec: str, run: str, device_index: int) -> list[str]:
    """The command of one worker (the same one starts a worker on another host)."""
    return [sys.executable, "-m", "autotune", "sweep-worker", "--storage", storage_spec, "--run", run,
            "--device-index", str(device_index), "--quiet"]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # so `python -m autotune` finds this autotune
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Fleet:
    """This host's worker processes of a run.

    Args:
        run: the run.
        storage_spec: the storage as the workers open it (password included).
        devices: one worker per GPU index.
        progress: called with the workers' records while they work (None: nothing shown).
        host: this host's name.
    """

    def __init__(self, run: RunStudy, storage_spec: str, devices: Sequence[int],
                 progress: Callable[[Mapping[str, Mapping[str, Any]]], None] | None = None,
                 host: str | None = None) -> None:
        self.run = run
        self.storage_spec = storage_spec
        self.devices = tuple(devices)
        self.progress = progress
        self.host = host or this_host()
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.exit_codes: dict[int, int] = {}

    def start(self) -> None:
        env = _child_env()
        for index in self.devices:
            self.processes[index] = subprocess.Popen(worker_command(self.storage_spec, self.run.name, index),
                                                     env=env, stdout=subprocess.DEVNULL)

    def _reap(self) -> None:
        for index, process in self.processes.items():
            if index in self.exit_codes:
                continue
            code = process.poll()
            if code is not None:
                self.exit_codes[index] = code
                if code != 0:
                    self.run.mark_dead(self.host, process.pid)

    @property
    def alive(self) -> bool:
        return len(self.exit_codes) < len(self.processes)

    def wait(self) -> None:
        """Until every worker has exited; Ctrl-C (KeyboardInterrupt) stops them and re-raises."""
        try:
            while self.alive:
                self._reap()
                if self.progress is not None:
                    self.progress(self.run.workers())
                if self.alive:
                    time.sleep(self.run.plan.timing.poll_s)
        except KeyboardInterrupt:
            self.stop()
            raise
        if self.progress is not None:
            self.progress(self.run.workers())

    def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM to every worker still running (each fails its ticket in flight), then SIGKILL
        after `timeout_s`."""
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for process in self.processes.values():
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._reap()

    def run_to_end(self) -> None:
        self.start()
        self.wait()


def tasks_left(run: RunStudy) -> int:
    """Tasks of the run without a COMPLETE ticket."""
    done = {t.task for t in run.tickets((TrialState.COMPLETE,))}
    return sum(1 for t in run.plan.tasks if t.index not in done)


def merge_run(run: RunStudy, storage_url: str) -> list[GraphResult]:
    """Each graph's result from its study (see the module docstring).

    Args:
        run: the run.
        storage_url: the storage's URL as tables show it.
    """
    plan = run.plan
    records = run.workers()
    tickets = run.tickets()
    results = []
    for index, graph in enumerate(plan.graphs):
        study = optuna.load_study(study_name=graph.study, storage=run.storage)
        handle = StudyHandle(study, run.storage, storage_url, graph.resumed)
        timer = SimpleNamespace(stats=None)
        if plan.timer.get("kind") == "replay":
            total: Counter[str] = Counter()
            for record in records.values():
                total.update(record.get("replay", {}).get(str(index), {}))
            timer.stats = ReplayStats(total["recorded"], total["composed"], total["not_recorded"])
        runner = Runner(handle, plan.space, timer, roles=graph.specials.roles())  # type: ignore[arg-type]
        attrs = study.user_attrs
        done = attrs.get(ATTR_DONE) == run.name
        elapsed = attrs.get(ATTR_ELAPSED) if done else None
        if elapsed is None:
            starts = [t.claimed_unix for t in tickets if t.task is not None
                      and plan.tasks[t.task].graph == index and t.claimed_unix]
            elapsed = graph.elapsed_before_s + (time.time() - min(starts) if starts else 0.0)
        results.append(study_result(runner, plan.strategy, plan.space, graph.info, plan.algorithm, plan.device,
                                    graph.specials, float(elapsed), not done, handle))
    return results


def worker_summary(run: RunStudy) -> list[dict[str, Any]]:
    """One line per worker of the run (for the table's `x-workers` and the terminal)."""
    out = []
    for worker, record in sorted(run.workers().items(), key=lambda item: (item[1].get("host", ""),
                                                                           item[1].get("device_index", 0))):
        out.append({"worker": worker, "host": record.get("host"), "device_index": record.get("device_index"),
                    "state": record.get("state"), "tasks": record.get("tasks", 0),
                    "measured": record.get("measured", 0)})
    return out


def planned_trials(plan: RunPlan) -> int:
    return plan.planned_trials()


def finalize_tasks(plan: RunPlan) -> list[int]:
    return [t.index for t in plan.tasks if t.kind == FINALIZE]
