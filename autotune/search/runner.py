"""The objective and its bookkeeping: every configuration a sweep measures goes through `Runner`.

The objective calls the timer and nothing else: it turns the trial's parameters into a
`LaunchConfig` (the strategy's `suggest`), asks the timer for a `Measurement`, keeps it in the
trial and returns verified milliseconds per SSSP. An invalid or wrong measurement is raised as
`LaunchRejected` / `WrongResult`, which `study.optimize(catch=...)` records as a FAIL trial with its
reason (never as a number that would mislead the sampler).

A configuration measured before in the same study is answered from that measurement (`cached`),
so samplers that propose a point twice, or a uniform grid that holds the default, cost no GPU time;
re-measurements (`fresh=True`) always measure.
"""
from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import optuna
from optuna.trial import TrialState, create_trial

from autotune.errors import LaunchRejected, WrongResult
from autotune.measure import Measurement, Status, Timer
from autotune.search import study as st
from autotune.search.space import SearchSpace
from autotune.space import LaunchConfig

CATCH = (LaunchRejected, WrongResult)
ATTRS = st.ATTR_BOOKKEEPING  # the one user attribute holding a trial's bookkeeping (one write)


@dataclass(frozen=True)
class Evaluation:
    """One call of the timer (a real measurement, never a cached answer).

    Args:
        measurement: what the timer returned.
        phase: fixed, search, compose or remeasure.
        trial: the Optuna trial number.
        timestamp: ISO 8601 UTC time the measurement finished.
        wall_s: seconds the `measure` call took.
        round: the re-measurement round, for phase remeasure.
        roles: what the sweep measured the configuration as (default, baseline_candidate, prediction).
    """

    measurement: Measurement
    phase: str
    trial: int | None
    timestamp: str
    wall_s: float
    round: int | None = None
    roles: tuple[str, ...] = ()

    @property
    def config(self) -> LaunchConfig:
        return self.measurement.config


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _attrs(trial: optuna.trial.FrozenTrial | optuna.Trial) -> Mapping[str, Any]:
    return trial.user_attrs.get(ATTRS, {})


class Runner:
    """Measures configurations for one study and keeps every measurement.

    Args:
        handle: the open study.
        space: the search space (for the parameters of fixed trials).
        timer: what measures.
        roles: per configuration key, the roles it was measured for (default, ...).
        on_trial: called after every finished trial with (measurement, cached).
        clock: seconds, for the wall time of `measure` calls.
    """

    def __init__(self, handle: st.StudyHandle, space: SearchSpace, timer: Timer,
                 roles: Mapping[str, tuple[str, ...]] | None = None,
                 on_trial: Callable[[Measurement, bool], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.handle = handle
        self.study = handle.study
        self.space = space
        self.timer = timer
        self.roles = dict(roles or {})
        self.on_trial = on_trial
        self.clock = clock
        self.evaluations: list[Evaluation] = []
        self.trials = 0  # finished, not interrupted
        self.search_trials = 0
        self.reused = 0  # trials answered from the cache
        self._first: dict[str, Measurement] = {}
        self._remeasured: set[tuple[int, str]] = set()
        self._load()

    # --- state -------------------------------------------------------------------------------

    def _load(self) -> None:
        """Re-use the measurements of the study's finished trials (a resumed sweep)."""
        for trial in self.study.get_trials(deepcopy=False):
            measurement = st.trial_measurement(trial)
            if measurement is None:
                continue
            attrs = _attrs(trial)
            self._count(attrs["phase"], measurement, attrs.get("cached", False), attrs.get("round"))
            if not attrs.get("cached", False):
                self.evaluations.append(Evaluation(measurement, attrs["phase"], trial.number,
                                                   attrs.get("timestamp", ""), attrs.get("wall_s", 0.0),
                                                   attrs.get("round"), tuple(attrs.get("roles", ()))))
        self.evaluations.sort(key=lambda e: (e.timestamp, e.trial))  # trial numbers are not time order

    def _count(self, phase: str, measurement: Measurement, cached: bool, round_: int | None) -> None:
        key = measurement.config.key()
        self._first.setdefault(key, measurement)
        self.trials += 1
        self.search_trials += phase == "search"
        self.reused += bool(cached)
        if phase == "remeasure" and round_ is not None:
            self._remeasured.add((round_, key))

    def measured(self, config: LaunchConfig) -> bool:
        return config.key() in self._first

    def remeasured(self, round_: int, config: LaunchConfig) -> bool:
        return (round_, config.key()) in self._remeasured

    def measurements(self) -> dict[str, list[Measurement]]:
        """Every real measurement by configuration key, in order."""
        out: dict[str, list[Measurement]] = {}
        for evaluation in self.evaluations:
            out.setdefault(evaluation.config.key(), []).append(evaluation.measurement)
        return out

    @property
    def measure_seconds(self) -> float:
        return sum(e.wall_s for e in self.evaluations)

    # --- measuring ---------------------------------------------------------------------------

    def _measure(self, config: LaunchConfig, fresh: bool) -> tuple[Measurement, bool, float]:
        key = config.key()
        if not fresh and key in self._first:
            return self._first[key], True, 0.0
        start = self.clock()
        try:
            measurement = self.timer.measure(config)
        except LaunchRejected as rejected:
            measurement = Measurement(config, Status.INVALID, reason=rejected.reason)
        except WrongResult as wrong:
            measurement = Measurement(config, Status.WRONG, reason=str(wrong))
        return measurement, False, self.clock() - start

    def _bookkeeping(self, config: LaunchConfig, measurement: Measurement, phase: str, cached: bool,
                     wall_s: float, round_: int | None) -> dict[str, Any]:
        attrs: dict[str, Any] = {
            "config": config.to_json(), "phase": phase, "cached": cached, "wall_s": wall_s,
            "timestamp": _now(), "measurement": measurement.to_json(),
        }
        if round_ is not None:
            attrs["round"] = round_
        roles = self.roles.get(config.key())
        if roles:
            attrs["roles"] = list(roles)
        return attrs

    def _finish(self, number: int, attrs: Mapping[str, Any], measurement: Measurement) -> None:
        self._count(attrs["phase"], measurement, attrs["cached"], attrs.get("round"))
        if not attrs["cached"]:
            self.evaluations.append(Evaluation(measurement, attrs["phase"], number, attrs["timestamp"],
                                               attrs["wall_s"], attrs.get("round"), tuple(attrs.get("roles", ()))))
        if self.on_trial is not None:
            self.on_trial(measurement, attrs["cached"])

    def objective(self, suggest: Callable[[optuna.Trial], LaunchConfig]) -> Callable[[optuna.Trial], float]:
        """The Optuna objective: suggest a configuration, measure it, return verified ms per SSSP.

        Raises (inside the objective, for `catch=CATCH`):
            LaunchRejected: the measurement is INVALID.
            WrongResult: the measurement is WRONG.
        """

        def objective(trial: optuna.Trial) -> float:
            config = suggest(trial)
            try:
                measurement, cached, wall_s = self._measure(config, fresh=False)
            except KeyboardInterrupt:
                trial.set_user_attr(st.ATTR_INTERRUPTED, True)
                raise
            attrs = self._bookkeeping(config, measurement, "search", cached, wall_s, None)
            if not measurement.ok:
                trial.set_user_attr(st.ATTR_REASON, f"{measurement.status}: {measurement.reason}")
            trial.set_user_attr(ATTRS, attrs)
            self._finish(trial.number, attrs, measurement)
            if measurement.status is Status.INVALID:
                raise LaunchRejected(config, measurement.reason or "invalid")
            if measurement.status is Status.WRONG:
                raise WrongResult(measurement.reason or "wrong result")
            return float(measurement.ms_per_sssp)

        return objective

    def measure_fixed(self, config: LaunchConfig, phase: str, fresh: bool = False,
                      round_: int | None = None) -> Measurement:
        """Measure a configuration the sampler did not choose, as a trial of its own.

        A configuration already measured is answered from that measurement without adding a trial,
        unless `fresh` (re-measurements).
        """
        measurement, cached, wall_s = self._measure(config, fresh)
        if cached:
            return measurement
        attrs = self._bookkeeping(config, measurement, phase, False, wall_s, round_)
        user_attrs: dict[str, Any] = {ATTRS: attrs}
        if not measurement.ok:
            user_attrs[st.ATTR_REASON] = f"{measurement.status}: {measurement.reason}"
        in_space = self.space.contains(config)
        distributions = self.space.distributions() if in_space else {}
        trial = create_trial(
            state=TrialState.COMPLETE if measurement.ok else TrialState.FAIL,
            value=float(measurement.ms_per_sssp) if measurement.ok else None,
            params=self.space.to_params(config) if in_space else {},
            distributions=distributions,
            user_attrs=user_attrs,
        )
        self.study.add_trial(trial)
        number = len(self.study.get_trials(deepcopy=False)) - 1
        self._finish(number, attrs, measurement)
        return measurement
