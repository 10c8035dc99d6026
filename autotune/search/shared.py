"""Measuring into a study that other processes write to at the same time.

`SharedRunner` is the `Runner` of a worker of a multi-GPU sweep:

- each trial it adds is tagged with the run's task (`task`: `<run>#<index>`) and the worker, so a
  worker that takes over a task can see whether it was measured already;
- it creates trials with the storage's atomic `create_new_trial` and takes their numbers from
  it (not from counting the study's trials, which other workers are adding to);
- with `refresh`, before measuring a configuration it does not know, it reads the measurements
  other workers have added (a Bayesian sampler may propose a configuration another worker
  measured), and answers from them as a one-process sweep answers from its own;
- it tells a replaying timer how often the study has measured a configuration before (`seek`), so
  a replay over several workers answers each measurement with the record a one-process replay
  would have used.

`SharedReplayTimer` is the `ReplayTimer` for that, with an optional delay per measurement (so
tests of the coordination see real concurrency).
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

import optuna
from optuna.distributions import BaseDistribution
from optuna.trial import FrozenTrial, TrialState, create_trial

from autotune.measure import Measurement, Timer
from autotune.search import study as st
from autotune.search.records import Record
from autotune.search.replay import ReplayTimer
from autotune.search.runner import ATTRS, CATCH, Evaluation, Runner
from autotune.search.space import SearchSpace
from autotune.space import LaunchConfig

ATTR_TASK = "task"
ATTR_WORKER = "worker"


class SharedReplayTimer(ReplayTimer):
    """A `ReplayTimer` that can be told which record comes next, and that can take its time.

    Args:
        records: one graph's records.
        delay_s: seconds to sleep in every `measure` (0: none).
    """

    def __init__(self, records: Sequence[Record], delay_s: float = 0.0) -> None:
        super().__init__(records)
        self.delay_s = delay_s

    def seek(self, config: LaunchConfig, served: int) -> None:
        """The next `measure(config)` answers as if `config` had been asked `served` times."""
        self._served[config.key()] = served

    def measure(self, config: LaunchConfig) -> Measurement:
        if self.delay_s > 0:
            time.sleep(self.delay_s)
        return super().measure(config)


def _attrs(trial: FrozenTrial) -> Mapping[str, Any]:
    return trial.user_attrs.get(ATTRS, {})


def trial_task(trial: FrozenTrial) -> str | None:
    """The run task a trial was measured for, if any."""
    return trial.user_attrs.get(ATTR_TASK) or _attrs(trial).get(ATTR_TASK)


class SharedRunner(Runner):
    """A `Runner` for a study that several workers measure into (see the module docstring).

    Args:
        handle, space, timer, roles: as `Runner`.
        worker: this worker's id (kept in each trial).
        refresh: read other workers' measurements before measuring an unknown configuration.
        on_measure: called after each real measurement (progress counts).
    """

    def __init__(self, handle: st.StudyHandle, space: SearchSpace, timer: Timer,
                 roles: Mapping[str, tuple[str, ...]] | None = None, worker: str = "",
                 refresh: bool = False, on_measure: Callable[[], None] | None = None) -> None:
        self.worker = worker
        self.refresh = refresh
        self.on_measure = on_measure
        self.task: str | None = None
        self._seen: set[int] = set()
        self._real: Counter[str] = Counter()
        self.study_id = handle.storage.get_study_id_from_name(handle.study.study_name)
        super().__init__(handle, space, timer, roles=roles)

    # --- state shared with other workers -----------------------------------------------------

    def _load(self) -> None:
        self._absorb(self.study.get_trials(deepcopy=False))

    def _absorb(self, trials: Sequence[FrozenTrial]) -> None:
        added = False
        for trial in trials:
            if trial.number in self._seen or not trial.state.is_finished():
                continue
            self._seen.add(trial.number)
            measurement = st.trial_measurement(trial)
            if measurement is None:
                continue
            attrs = _attrs(trial)
            cached = attrs.get("cached", False)
            self._count(attrs["phase"], measurement, cached, attrs.get("round"))
            if not cached:
                self._real[measurement.config.key()] += 1
                self.evaluations.append(Evaluation(measurement, attrs["phase"], trial.number,
                                                   attrs.get("timestamp", ""), attrs.get("wall_s", 0.0),
                                                   attrs.get("round"), tuple(attrs.get("roles", ()))))
                added = True
        if added:
            self.evaluations.sort(key=lambda e: (e.timestamp, e.trial))

    def sync(self) -> None:
        """Take in the trials other workers have finished since the last look."""
        self._absorb(self.study.get_trials(deepcopy=False))

    # --- measuring ---------------------------------------------------------------------------

    def _measure(self, config: LaunchConfig, fresh: bool) -> tuple[Measurement, bool, float]:
        key = config.key()
        if self.refresh and key not in self._first:
            self.sync()
        if fresh or key not in self._first:
            seek = getattr(self.timer, "seek", None)
            if seek is not None:
                seek(config, self._real[key])
        return super()._measure(config, fresh)

    def _bookkeeping(self, config: LaunchConfig, measurement: Measurement, phase: str, cached: bool,
                     wall_s: float, round_: int | None) -> dict[str, Any]:
        attrs = super()._bookkeeping(config, measurement, phase, cached, wall_s, round_)
        attrs[ATTR_WORKER] = self.worker
        if self.task is not None:
            attrs[ATTR_TASK] = self.task
        return attrs

    def _finish(self, number: int, attrs: Mapping[str, Any], measurement: Measurement) -> None:
        self._seen.add(number)
        if not attrs["cached"]:
            self._real[measurement.config.key()] += 1
        super()._finish(number, attrs, measurement)
        if not attrs["cached"] and self.on_measure is not None:
            self.on_measure()

    def _add(self, config: LaunchConfig, measurement: Measurement, attrs: Mapping[str, Any],
             params: Mapping[str, Any], distributions: Mapping[str, BaseDistribution]) -> None:
        user_attrs: dict[str, Any] = {ATTRS: dict(attrs)}
        if not measurement.ok:
            user_attrs[st.ATTR_REASON] = f"{measurement.status}: {measurement.reason}"
        trial = create_trial(
            state=TrialState.COMPLETE if measurement.ok else TrialState.FAIL,
            value=float(measurement.ms_per_sssp) if measurement.ok else None,
            params=dict(params), distributions=dict(distributions), user_attrs=user_attrs,
        )
        trial_id = self.handle.storage.create_new_trial(self.study_id, template_trial=trial)
        self._finish(self.handle.storage.get_trial_number_from_id(trial_id), attrs, measurement)

    def measure_fixed(self, config: LaunchConfig, phase: str, fresh: bool = False,
                      round_: int | None = None) -> Measurement:
        """As `Runner.measure_fixed`, safe while other workers add trials."""
        measurement, cached, wall_s = self._measure(config, fresh)
        if cached:
            return measurement
        attrs = self._bookkeeping(config, measurement, phase, False, wall_s, round_)
        inside = self.space.contains(config)
        self._add(config, measurement, attrs, self.space.to_params(config) if inside else {},
                  self.space.distributions() if inside else {})
        return measurement

    def measure_point(self, config: LaunchConfig, params: Mapping[str, Any],
                      distributions: Mapping[str, BaseDistribution]) -> Measurement:
        """Measure a configuration with given parameters as a search trial: what the objective of
        a one-process sweep records for a point of the exhaustive strategy's grid, or for an
        enqueued trial of the Bayesian strategy."""
        measurement, cached, wall_s = self._measure(config, fresh=False)
        attrs = self._bookkeeping(config, measurement, "search", cached, wall_s, None)
        self._add(config, measurement, attrs, params, distributions)
        return measurement

    def run_trial(self, suggest: Callable[[optuna.Trial], LaunchConfig]) -> None:
        """One search trial through the objective, the study's sampler choosing the configuration.

        `study.ask()` creates the trial (atomic on every storage: no other worker can get it), as
        long as the study holds no WAITING trial (a run enqueues none; `coordinator.open_run`
        fails those a one-process sweep left)."""
        trial = self.study.ask()
        trial.set_user_attr(ATTR_TASK, self.task)
        trial.set_user_attr(ATTR_WORKER, self.worker)
        objective = self.objective(suggest)
        try:
            value = objective(trial)
        except CATCH:
            self.study.tell(trial, state=TrialState.FAIL)
        except KeyboardInterrupt:
            self.study.tell(trial, state=TrialState.FAIL)
            raise
        else:
            self.study.tell(trial, value)
