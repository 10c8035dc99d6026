"""The work queue of a run: tickets, worker records and heartbeats, kept in the run's own study.

A run (`runplan.RunPlan`) lives in an Optuna study named `autotune-run/<name>` in the same storage
as the graphs' studies. Its user attributes hold the plan (`plan`) and one record per worker
(`worker/<id>`: host, pid, GPU, state, heartbeat count, measurements taken); its trials are
*tickets*.

Why tickets: Optuna hands a WAITING (enqueued) trial to the process whose `study.ask()` moves it to
RUNNING, but on SQLite that move is not atomic across processes (the RDB storage reads the state,
then writes it; SQLite has no `SELECT ... FOR UPDATE`), and two processes can pop the same trial;
`tests/search/test_multi_worker.py` shows it. Creating a trial is atomic on every storage: the RDB
storage numbers a new trial by counting the study's trials inside the write transaction that
inserts it, and the journal storage numbers trials in the order of its log. So a ticket is a new
RUNNING trial of the run's study; its number is unique and the numbers are dense, and ticket n
claims task n of the plan (numbers past the last task claim nothing: the first pass is over).

Recovery (a worker that died): a ticket whose worker is gone (its record says it stopped, failed or
was seen dead; or on this host its pid is gone; or its heartbeat has not changed for the grace
period) is failed, and its task, if not done, is claimed again with a ticket that names the task.
Two workers may try to claim the same task at once; each then reads the task's RUNNING tickets
and only the lowest-numbered one of a live worker goes on (`RunStudy.won`), so a task runs once.

Example:
    >>> run = RunStudy.open(storage, "2025-01-01T120000Z")     # doctest: +SKIP
    >>> ticket = run.claim("host/gpu0/1234")                    # doctest: +SKIP
    >>> run.plan.tasks[ticket.task]                             # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import optuna
from optuna.exceptions import UpdateFinishedTrialError
from optuna.storages import BaseStorage
from optuna.trial import FrozenTrial, TrialState

from autotune.errors import InputError
from autotune.search.runplan import RunPlan

RUN_PREFIX = "autotune-run/"
ATTR_PLAN = "plan"
WORKER_PREFIX = "worker/"
RUNNING_STATE = "running"
TERMINAL_STATES = ("finished", "stopped", "failed", "dead")


def run_study_name(name: str) -> str:
    return RUN_PREFIX + name


def this_host() -> str:
    return socket.gethostname()


@dataclass(frozen=True)
class Ticket:
    """One claim of the queue (a trial of the run's study).

    Args:
        trial_id: the storage's id of the trial.
        number: its number in the run's study.
        task: the task it claims (None: a ticket past the last task, which claims nothing).
        worker: the worker that holds it.
        state: RUNNING while held; COMPLETE when its task is done; FAIL when its worker was gone
            or stopped; PRUNED when it claimed nothing.
        claimed_unix: when it was claimed (the worker's clock).
    """

    trial_id: int
    number: int
    task: int | None
    worker: str
    state: TrialState
    claimed_unix: float


def _template(attrs: Mapping[str, Any]) -> FrozenTrial:
    return FrozenTrial(number=-1, state=TrialState.RUNNING, value=None, datetime_start=datetime.datetime.now(),
                       datetime_complete=None, params={}, distributions={}, user_attrs=dict(attrs),
                       system_attrs={}, intermediate_values={}, trial_id=-1)


class RunStudy:
    """The run's study: its plan, its tickets and its workers' records.

    Args:
        storage: the Optuna storage.
        name: the run's name.
        study_id: the storage's id of the run's study.
        plan: the run's plan.
    """

    def __init__(self, storage: BaseStorage, name: str, study_id: int, plan: RunPlan) -> None:
        self.storage = storage
        self.name = name
        self.study_id = study_id
        self.plan = plan
        self._n_tasks = len(plan.tasks)

    @classmethod
    def create(cls, storage: BaseStorage, plan: RunPlan) -> RunStudy:
        """Create the run's study with its plan.

        Raises:
            optuna.exceptions.DuplicatedStudyError: a run of that name exists (join it instead).
        """
        study_id = storage.create_new_study([optuna.study.StudyDirection.MINIMIZE], run_study_name(plan.name))
        storage.set_study_user_attr(study_id, ATTR_PLAN, plan.to_json())
        return cls(storage, plan.name, study_id, plan)

    @classmethod
    def open(cls, storage: BaseStorage, name: str, storage_shown: str = "the storage") -> RunStudy:
        """Open an existing run.

        Raises:
            InputError: no run of that name (naming the runs there), or its plan is unreadable.
        """
        try:
            study_id = storage.get_study_id_from_name(run_study_name(name))
        except KeyError:
            known = run_names(storage)
            there = f"; runs there: {', '.join(known[-5:])}" if known else "; it holds no run"
            raise InputError(f"--run {name}: no such run in {storage_shown}{there}") from None
        for _ in range(200):  # the creator writes the plan just after creating the study
            data = storage.get_study_user_attrs(study_id).get(ATTR_PLAN)
            if data is not None:
                break
            time.sleep(0.05)
        else:
            raise InputError(f"--run {name}: the run in {storage_shown} has no plan")
        return cls(storage, name, study_id, RunPlan.from_json(data, f"run {name}"))

    # --- tickets -----------------------------------------------------------------------------

    def _ticket(self, trial: FrozenTrial) -> Ticket:
        task = trial.user_attrs.get("task")
        if task is None and trial.number < self._n_tasks:
            task = trial.number
        return Ticket(trial._trial_id, trial.number, task, str(trial.user_attrs.get("worker", "")), trial.state,
                      float(trial.user_attrs.get("t", 0.0)))

    def claim(self, worker: str, task: int | None = None) -> Ticket:
        """A new ticket: with `task` None, the next task of the first pass (or nothing, past the
        last); with `task`, a claim on that task (recovery: check `won` before running it)."""
        attrs: dict[str, Any] = {"worker": worker, "t": time.time()}
        if task is not None:
            attrs["task"] = task
        trial_id = self.storage.create_new_trial(self.study_id, template_trial=_template(attrs))
        number = self.storage.get_trial_number_from_id(trial_id)
        if task is None and number < self._n_tasks:
            task = number
        return Ticket(trial_id, number, task, worker, TrialState.RUNNING, attrs["t"])

    def finish(self, ticket: Ticket | int, state: TrialState, note: str | None = None) -> bool:
        """End a ticket (COMPLETE, FAIL or PRUNED); False when it had already ended."""
        trial_id = ticket.trial_id if isinstance(ticket, Ticket) else ticket
        try:
            if note:
                self.storage.set_trial_user_attr(trial_id, "note", note)
            values = [0.0] if state == TrialState.COMPLETE else None
            return bool(self.storage.set_trial_state_values(trial_id, state, values))
        except UpdateFinishedTrialError:
            return False

    def tickets(self, states: Iterable[TrialState] | None = None) -> list[Ticket]:
        trials = self.storage.get_all_trials(self.study_id, deepcopy=False,
                                             states=None if states is None else tuple(states))
        return [self._ticket(t) for t in trials]

    def won(self, ticket: Ticket, gone: set[str], snapshot: Iterable[Ticket] | None = None) -> bool:
        """Whether a recovery claim goes on: its task has no COMPLETE ticket, and of the task's
        RUNNING tickets held by live workers it has the lowest number.

        Args:
            ticket: the claim.
            gone: the workers that are gone.
            snapshot: the RUNNING and COMPLETE tickets, read after the claim (one read for many
                claims); read here when None.
        """
        if snapshot is None:
            snapshot = self.tickets((TrialState.RUNNING, TrialState.COMPLETE))
        rivals = [t for t in snapshot if t.task == ticket.task and t.state in (TrialState.RUNNING, TrialState.COMPLETE)]
        if any(t.state == TrialState.COMPLETE for t in rivals):
            return False
        live = [t.number for t in rivals if t.worker not in gone or t.number == ticket.number]
        return min(live, default=ticket.number) == ticket.number

    # --- workers -----------------------------------------------------------------------------

    def set_worker(self, worker: str, record: Mapping[str, Any]) -> None:
        self.storage.set_study_user_attr(self.study_id, WORKER_PREFIX + worker, dict(record))

    def workers(self) -> dict[str, dict[str, Any]]:
        attrs = self.storage.get_study_user_attrs(self.study_id)
        return {key[len(WORKER_PREFIX):]: dict(value) for key, value in attrs.items() if key.startswith(WORKER_PREFIX)}

    def mark_dead(self, host: str, pid: int) -> str | None:
        """Mark the record of the worker with this host and pid dead (its process is gone);
        returns its id, or None when it has none or had ended cleanly."""
        for worker, record in self.workers().items():
            if record.get("host") == host and record.get("pid") == pid:
                if record.get("state") in TERMINAL_STATES:
                    return None
                self.set_worker(worker, {**record, "state": "dead"})
                return worker
        return None


def run_names(storage: BaseStorage) -> list[str]:
    """The names of the runs in a storage, oldest first (names sort by their UTC time stamp)."""
    return sorted(s.study_name[len(RUN_PREFIX):] for s in storage.get_all_studies()
                  if s.study_name.startswith(RUN_PREFIX))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Liveness:
    """Judges, from the workers' records, which workers are gone.

    A worker is gone when its record's state is final (finished, stopped, failed, dead), when it
    runs on this host and its pid no longer exists, or when its heartbeat count has not changed
    for `grace_s` seconds of this observer's clock (so the hosts' clocks need not agree).

    Args:
        grace_s: how long a silent heartbeat is tolerated.
        host: this host's name.
        clock: seconds (monotonic).
        alive: whether a pid on this host exists.
    """

    def __init__(self, grace_s: float, host: str | None = None, clock: Callable[[], float] = time.monotonic,
                 alive: Callable[[int], bool] = pid_alive) -> None:
        self.grace_s = grace_s
        self.host = host or this_host()
        self.clock = clock
        self.alive = alive
        self._seen: dict[str, tuple[Any, float]] = {}

    def gone(self, records: Mapping[str, Mapping[str, Any]]) -> set[str]:
        now = self.clock()
        out = set()
        for worker, record in records.items():
            beats = record.get("beats")
            previous = self._seen.get(worker)
            if previous is None or previous[0] != beats:
                self._seen[worker] = (beats, now)
            if record.get("state") in TERMINAL_STATES:
                out.add(worker)
            elif record.get("host") == self.host and isinstance(record.get("pid"), int) \
                    and not self.alive(record["pid"]):
                out.add(worker)
            elif now - self._seen[worker][1] > self.grace_s:
                out.add(worker)
        return out


class Heartbeat:
    """Keeps a worker's record fresh: a thread writes it every `interval_s` with a new count.

    Use as a context manager; `update(...)` changes fields (written with the next beat, or at
    once with `flush=True`); leaving the block writes the final state.

    Args:
        run: the run.
        worker: the worker's id.
        record: its first record (host, pid, device index, ...).
        interval_s: seconds between beats.
    """

    def __init__(self, run: RunStudy, worker: str, record: Mapping[str, Any], interval_s: float) -> None:
        self.run = run
        self.worker = worker
        self.interval_s = interval_s
        self.record: dict[str, Any] = {"state": RUNNING_STATE, "beats": 0, **record}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat {worker}", daemon=True)

    def _write(self) -> None:
        with self._lock:
            self.record["beats"] += 1
            self.record["beat_unix"] = time.time()
            record = json.loads(json.dumps(self.record))
            self.run.set_worker(self.worker, record)

    def _beat(self) -> None:
        while not self._stop.wait(self.interval_s):
            with contextlib.suppress(Exception):  # a busy database: the next beat tries again
                self._write()

    def update(self, flush: bool = False, **fields: Any) -> None:
        with self._lock:
            self.record.update(fields)
        if flush:
            self._write()

    def __enter__(self) -> Heartbeat:
        self._write()
        self._thread.start()
        return self

    def close(self, state: str, **fields: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.update(state=state, **fields)
        with contextlib.suppress(Exception):
            self._write()

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        if not self._stop.is_set():
            state = "finished" if exc_type is None else (
                "stopped" if issubclass(exc_type, KeyboardInterrupt) else "failed")
            self.close(state, **({"error": str(exc)} if exc is not None and state == "failed" else {}))
