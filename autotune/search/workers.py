"""A worker of a multi-GPU sweep: one process, one GPU, tasks from the run's queue.

`Worker.work()` does, in order:

1. **First pass.** Claim the next ticket of the queue (`workqueue.RunStudy.claim`); ticket n is
   task n of the plan (`runplan`): measure it into its graph's study and complete the ticket.
   Stop at the first ticket past the last task. A `finalize` task first waits until every other
   task of its graph is done (taking over those of workers that are gone meanwhile), then
   composes (exhaustive), re-measures the finalists in interleaved rounds and marks the graph
   done, exactly as `sweep.sweep_graph` ends a one-process sweep.
2. **Recovery.** Until every task of the run is done: fail the tickets of workers that are gone
   (`workqueue.Liveness`) and claim their tasks again; a task whose measurement reached the study
   before its worker died is not measured again. Then leave.

The GPU (or the replayed records) comes from a `TimerSource`; the worker opens one graph's timer
at a time (graphs are worked on in turn).

Example:
    >>> run = RunStudy.open(storage, "tune1")                                   # doctest: +SKIP
    >>> Worker(run, storage_url, ReplaySource(run.plan), "host/gpu0/1", 0).work()  # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import os
import time
import zlib
from collections import Counter
from contextlib import ExitStack
from typing import Any, Callable, ContextManager, Iterator, Protocol

import optuna
from optuna.samplers import BaseSampler
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.measure import Timer
from autotune.search.records import read_records
from autotune.search.runplan import ENQUEUED, FINALIZE, FIXED, GRID, SAMPLE, GraphPlan, RunPlan, Task
from autotune.search import study as st
from autotune.search.shared import SharedReplayTimer, SharedRunner, trial_task
from autotune.search.strategies import Bayes, Exhaustive, _suggest_joint, composed_candidates, make_sampler
from autotune.search.study import StudyHandle, recover_interrupted
from autotune.search.sweep import ATTR_ELAPSED, quiet_optuna, remeasure_finalists
from autotune.search.workqueue import Heartbeat, Liveness, RunStudy, Ticket, this_host

ATTR_DONE = "run_done"  # graph study attribute: the run finished this graph (finalists measured)
RECOVERY_BATCH = 64  # the most tasks a worker claims at once when taking over


class TimerSource(Protocol):
    """Gives a worker the timer of a graph of the run."""

    def open(self, graph: GraphPlan) -> ContextManager[Timer]: ...


class ReplaySource:
    """Timers answering from the run's records (`--replay`), with the run's delay per measurement."""

    def __init__(self, plan: RunPlan) -> None:
        self.delay_s = float(plan.timer.get("delay_ms", 0)) / 1000.0
        self._groups: dict[str, list[Any]] = {}
        for record in read_records(plan.timer["records"]):
            if record.algorithm == plan.algorithm:
                self._groups.setdefault(record.graph.sha256 or record.graph.name, []).append(record)

    def open(self, graph: GraphPlan) -> ContextManager[Timer]:
        if graph.source not in self._groups:
            raise InputError(f"replay: the records hold no graph {graph.info.name} ({graph.source})")
        return contextlib.nullcontext(SharedReplayTimer(self._groups[graph.source], self.delay_s))


class GpuSource:
    """Timers on one GPU: enter it for the worker's life; each graph gets a `CudaEventTimer`.

    Args:
        plan: the run (its GPU's name, protocol and graph options).
        device_index: the CUDA device.
        load: loads a graph from its spec with the run's seed and weights.
    """

    def __init__(self, plan: RunPlan, device_index: int, load: Callable[[str], Any]) -> None:
        self.plan = plan
        self.device_index = device_index
        self.load = load
        self._stack = ExitStack()

    def __enter__(self) -> GpuSource:
        from autotune import gpu

        device = self._stack.enter_context(gpu.gpu_session(self.device_index))
        name = str(gpu.device_description(device).get("name"))
        if name != self.plan.device.get("name"):
            self._stack.close()
            raise InputError(f"--device-index {self.device_index}: this GPU is {name}, but run {self.plan.name} "
                             f"measures on {self.plan.device.get('name')}; a run's workers need the same GPU model")
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stack.close()

    @contextlib.contextmanager
    def open(self, graph: GraphPlan) -> Iterator[Timer]:
        from autotune.gpu import CudaEventTimer, Solver
        from autotune.measure import choose_sources

        loaded = self.load(graph.source)
        if graph.info.sha256 and loaded.sha256 != graph.info.sha256:
            raise InputError(f"--graph {graph.source}: this host's graph differs from the run's "
                             f"(sha256 {loaded.sha256[:12]}, the run's {graph.info.sha256[:12]})")
        timer = self.plan.timer
        with Solver(loaded, self.plan.algorithm) as solver:
            yield CudaEventTimer(solver, choose_sources(loaded, int(timer["sources"]), int(timer["seed"])),
                                 int(timer["repetitions"]))


def worker_id(device_index: int, host: str | None = None, pid: int | None = None) -> str:
    return f"{host or this_host()}/gpu{device_index}/{pid or os.getpid()}"


def worker_sampler(plan: RunPlan, worker: str) -> BaseSampler:
    """The sampler of a worker's studies. Bayesian workers each seed their own (the run's seed
    mixed with the worker's id) and TPE lies about running trials (`constant_liar`), so workers
    sampling at the same time do not propose the same configuration."""
    strategy = plan.strategy
    if not isinstance(strategy, Bayes):
        return strategy.sampler(plan.space)
    seed = None if strategy.seed is None else (strategy.seed + zlib.crc32(worker.encode())) % 2**31
    if strategy.sampler_name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True)
    return make_sampler(strategy.sampler_name, seed)


class Worker:
    """Works on a run until every task is done (see the module docstring).

    Args:
        run: the run.
        storage_url: the storage's URL as tables show it (password hidden).
        source: where timers come from.
        worker: this worker's id (`worker_id`).
        device_index: its GPU (a label with a replay).
        host: this host's name.
        sleep: how to wait (for tests).
    """

    def __init__(self, run: RunStudy, storage_url: str, source: TimerSource, worker: str, device_index: int,
                 host: str | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        self.run = run
        self.plan = run.plan
        self.storage_url = storage_url
        self.source = source
        self.id = worker
        self.device_index = device_index
        self.host = host or this_host()
        self.sleep = sleep
        self.liveness = Liveness(self.plan.timing.grace_s, self.host)
        self.tasks_done = 0
        self.measured = 0
        self._in_flight: list[Ticket] = []
        self._graph: int | None = None
        self._graph_stack = ExitStack()
        self._timer: Timer | None = None
        self._runner: SharedRunner | None = None
        self._stats: dict[int, Counter[str]] = {}
        self._heartbeat: Heartbeat | None = None
        self._suggest = _suggest_joint(self.plan.space)
        self._grid_distributions = self.plan.space.grid_distributions()
        self._joint_distributions = self.plan.space.distributions()
        self._by_graph: dict[int, set[int]] = {}
        for task in self.plan.tasks:
            if task.kind != FINALIZE:
                self._by_graph.setdefault(task.graph, set()).add(task.index)

    def work(self) -> int:
        """Take tasks until the run is done; returns how many this worker did.

        Raises:
            KeyboardInterrupt: stopped (Ctrl-C, SIGTERM); its ticket in flight is failed first.
        """
        record = {"host": self.host, "pid": os.getpid(), "device_index": self.device_index,
                  "tasks": 0, "measured": 0}
        with Heartbeat(self.run, self.id, record, self.plan.timing.heartbeat_s) as self._heartbeat, quiet_optuna():
            try:
                self._first_pass()
                self._until_done()
            except BaseException as error:
                note = "interrupted" if isinstance(error, KeyboardInterrupt) else f"worker failed: {error}"
                for ticket in self._in_flight:
                    self.run.finish(ticket, TrialState.FAIL, note=note[:200])
                raise
            finally:
                self._close_graph()
                self._report()
        return self.tasks_done

    # --- the two passes ----------------------------------------------------------------------

    def _first_pass(self) -> None:
        while True:
            ticket = self.run.claim(self.id)
            if ticket.task is None:
                self.run.finish(ticket, TrialState.PRUNED)
                return
            self._run_ticket(ticket)

    def _until_done(self) -> None:
        everything = set(range(len(self.plan.tasks)))
        while True:
            tickets = self.run.tickets()
            if everything <= {t.task for t in tickets if t.state == TrialState.COMPLETE}:
                return
            if not self._recover(tickets):
                self.sleep(self.plan.timing.poll_s)

    def _recover(self, tickets: list[Ticket], graph: int | None = None) -> bool:
        """Fail the tickets of workers that are gone; claim tasks nobody holds and run them.
        Returns whether it ran any. With `graph`, only that graph's tasks other than its finalize.

        Tasks are claimed in batches (a share of what is left, at most `RECOVERY_BATCH`), each
        worker starting at its own place in the list, and one read of the queue decides every
        claim of a batch; so taking over a whole stopped run costs a few reads per batch, not
        per task."""
        gone = self.liveness.gone(self.run.workers()) - {self.id}
        for ticket in tickets:
            if ticket.state == TrialState.RUNNING and ticket.worker in gone:
                self.run.finish(ticket, TrialState.FAIL, note=f"worker {ticket.worker} gone")
        busy = {t.task for t in tickets if t.state == TrialState.RUNNING and t.worker not in gone}
        done = {t.task for t in tickets if t.state == TrialState.COMPLETE}
        free = [t for t in self.plan.tasks if t.index not in done and t.index not in busy
                and (graph is None or (t.graph == graph and t.kind != FINALIZE))
                and (t.kind != FINALIZE or self._by_graph.get(t.graph, set()) <= done)]
        if not free:
            return False
        workers = max(1, len({t.worker for t in tickets if t.state == TrialState.RUNNING} - gone | {self.id}))
        size = max(1, min(RECOVERY_BATCH, len(free) // (2 * workers)))
        start = zlib.crc32(self.id.encode()) % len(free)
        claims = [self.run.claim(self.id, task.index) for task in (free[start:] + free[:start])[:size]]
        snapshot = self.run.tickets((TrialState.RUNNING, TrialState.COMPLETE))
        won = []
        for claim in claims:
            if self.run.won(claim, gone, snapshot):
                won.append(claim)
                self._in_flight.append(claim)  # held: failed if this worker stops
            else:
                self.run.finish(claim, TrialState.PRUNED)
        recorded = self._recorded({self.plan.tasks[c.task].graph for c in won
                                   if self.plan.tasks[c.task].kind != FINALIZE})
        for claim in won:
            self._run_ticket(claim, skip=self._tag(self.plan.tasks[claim.task]) in recorded)
        return bool(won)

    def _recorded(self, graphs: set[int]) -> set[str]:
        """The tasks whose measurement reached these graphs' studies (a worker may die between
        recording a measurement and completing its ticket): not measured again."""
        out: set[str] = set()
        storage = self.run.storage
        for index in sorted(graphs):
            study_id = storage.get_study_id_from_name(self.plan.graphs[index].study)
            out |= {tag for t in storage.get_all_trials(study_id, deepcopy=False)
                    if (tag := trial_task(t)) and st.trial_measurement(t) is not None}
        return out

    # --- tasks -------------------------------------------------------------------------------

    def _tag(self, task: Task) -> str:
        return f"{self.run.name}#{task.index}"

    def _run_ticket(self, ticket: Ticket, skip: bool = False) -> None:
        """Do the ticket's task (`skip`: its measurement is in the study already) and complete it."""
        task = self.plan.tasks[ticket.task]
        if ticket not in self._in_flight:
            self._in_flight.append(ticket)
        if task.kind == FINALIZE:
            self._finalize(task)
        elif not skip:
            runner = self._runner_for(task.graph)
            runner.task = self._tag(task)
            self._measure(runner, task)
        self.run.finish(ticket, TrialState.COMPLETE)
        self._in_flight.remove(ticket)
        self.tasks_done += 1
        self._report(flush=True)  # exact counts even if this worker is killed next

    def _measure(self, runner: SharedRunner, task: Task) -> None:
        if task.kind == FIXED:
            runner.measure_fixed(task.config, "fixed")
        elif task.kind == GRID:
            runner.measure_point(task.config, task.params or {}, self._grid_distributions)
        elif task.kind == ENQUEUED:  # what the enqueued trial of a one-process sweep records
            runner.measure_point(task.config, task.params or {}, self._joint_distributions)
        elif task.kind == SAMPLE:
            runner.run_trial(self._suggest)
        else:
            raise ValueError(f"unknown task kind {task.kind!r}")

    def _finalize(self, task: Task) -> None:
        graph = self.plan.graphs[task.graph]
        needed = self._by_graph.get(task.graph, set())
        while True:  # every other task of the graph done, taking over those of workers gone
            tickets = self.run.tickets()
            if needed <= {t.task for t in tickets if t.state == TrialState.COMPLETE}:
                break
            if not self._recover(tickets, graph=task.graph):
                self.sleep(self.plan.timing.poll_s)
        runner = self._runner_for(task.graph, fresh=True)
        runner.task = self._tag(task)
        strategy = self.plan.strategy
        if isinstance(strategy, Exhaustive):
            for config in composed_candidates(runner.measurements(), self.plan.space)[: strategy.compose_top]:
                runner.measure_fixed(config, "compose")
        for config in graph.specials.ordered():
            runner.measure_fixed(config, "fixed")
        remeasure_finalists(runner, self.plan.settings)
        study = runner.study
        recover_interrupted(study, runner.handle.storage)  # trials that workers now gone left RUNNING
        starts = [t.claimed_unix for t in self.run.tickets()
                  if t.task is not None and self.plan.tasks[t.task].graph == task.graph and t.claimed_unix]
        study.set_user_attr(ATTR_ELAPSED, graph.elapsed_before_s + time.time() - min(starts, default=time.time()))
        study.set_user_attr(ATTR_DONE, self.run.name)

    # --- the graph in hand -------------------------------------------------------------------

    def _runner_for(self, index: int, fresh: bool = False) -> SharedRunner:
        graph = self.plan.graphs[index]
        if self._graph != index:
            self._close_graph()
            self._timer = self._graph_stack.enter_context(self.source.open(graph))
            self._graph = index
        if self._runner is None or fresh:
            storage = self.run.storage
            study = optuna.load_study(study_name=graph.study, storage=storage, sampler=worker_sampler(self.plan, self.id))
            handle = StudyHandle(study, storage, self.storage_url, graph.resumed)
            self._runner = SharedRunner(handle, self.plan.space, self._timer, roles=graph.specials.roles(),
                                        worker=self.id, refresh=isinstance(self.plan.strategy, Bayes),
                                        on_measure=self._count_measurement)
        return self._runner

    def _count_measurement(self) -> None:
        self.measured += 1

    def _close_graph(self) -> None:
        if self._graph is not None:
            stats = getattr(self._timer, "stats", None)
            if stats is not None:
                self._stats.setdefault(self._graph, Counter()).update(stats.to_json())
        self._graph_stack.close()
        self._graph, self._timer, self._runner = None, None, None

    def _report(self, flush: bool = False) -> None:
        if self._heartbeat is None:
            return
        replay = {str(g): dict(c) for g, c in self._stats.items()}
        stats = getattr(self._timer, "stats", None)
        if stats is not None and self._graph is not None:
            replay[str(self._graph)] = dict(self._stats.get(self._graph, Counter()) + Counter(stats.to_json()))
        self._heartbeat.update(flush, tasks=self.tasks_done, measured=self.measured, replay=replay,
                               graph=None if self._graph is None else self.plan.graphs[self._graph].info.name)
