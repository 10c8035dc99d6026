"""The objective and its bookkeeping: every configuration a sweep measures is one Optuna trial.

A trial's configuration is its enqueued task (`ATTR_TASK`: the specials, the exhaustive grid, the
initial design, compositions and re-measurements are all enqueued, so that every process sharing
the study takes each exactly once) or, for a Bayesian search, what the sampler suggests. The
objective asks the timer for a `Measurement`, keeps it in the trial (`ATTR_BOOKKEEPING`) and returns
verified milliseconds per SSSP. A pruned one is raised as `optuna.TrialPruned` (a PRUNED trial, with
what it measured), and so is an invalid or wrong one in a study of one objective: TPE ignores FAIL
trials and would propose a refused point again and again, while it ranks a PRUNED one without a
value below every measured trial. With two objectives, `LaunchRejected` / `WrongResult` make a FAIL
trial (`study.optimize(catch=CATCH)`); either way `fail_reason` says why.

A configuration measured before in the study (by any process) is answered from that measurement
(`cached`), so samplers that propose a point twice cost no GPU time; re-measurements always measure.

Pruning (`search.run.pruning`): the timer reports the time per SSSP after its warm-up and after
every batch (`trial.report`), and the study's pruner stops a measurement far behind the best. The
specials (default, baseline candidates, prediction) are not pruned, the table reports them (one out
of contention stops after a repetition too), but where dominated at a smaller CK (`floor_ms`),
hopeless (`HOPELESS_FACTOR`), or `prune_specials` says so. With pruning on, two more savings apply:

- the baseline candidates are *probed* (phase `probe`, `search.baseline`): a probe stopped at its
  warm-up never answers for its configuration, nor stays in the results once it is measured whole;
- a finalist's re-measurement round is its warm-up and one repetition, without the profiled batch:
  the rounds still interleave, and the winner is judged on the median of all its repetitions.
"""
from __future__ import annotations

import dataclasses
import itertools
import datetime
import os
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState

from autotune.algorithms import config_from_json
from autotune.errors import LaunchRejected, WrongResult
from autotune.files import note
from autotune.launch import LaunchConfig
from autotune.measure import Ask, Measurement, Status, StopAsk, Timer
from autotune.search.run import storage as st
from autotune.search.run.pruning import HOPELESS_FACTOR, BudgetStop, RelativePruner
from autotune.search.space import SearchSpace

CATCH = (LaunchRejected, WrongResult)
ATTRS = st.ATTR_BOOKKEEPING  # the one user attribute holding a trial's bookkeeping (one write)
ATTR_TASK = "autotune:task"  # an enqueued trial's task: {"config", "phase", ["round"]}
ATTR_WORKER = "autotune:worker"  # {"host", "pid"} of the process that measures the trial
ATTR_UNUSED = "autotune:unused"  # a trial the sampler opened after the budget was spent: not measured
PHASES = ("fixed", "probe", "search", "transfer", "refine", "curve", "compose", "remeasure")
PROBE = "probe"


@dataclass(frozen=True)
class Evaluation:
    """One call of the timer (a real measurement, never a cached answer).

    Args:
        measurement: what the timer returned.
        phase: one of `PHASES` (`search.records.Record` says what each is).
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


def probed_only(phase: str, measurement: Measurement) -> bool:
    """Whether a measurement is a probe that stopped at its warm-up (`search.baseline`)."""
    return phase == PROBE and measurement.status is Status.PRUNED


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def task_of(trial: FrozenTrial | optuna.Trial) -> Mapping[str, Any] | None:
    return trial.user_attrs.get(ATTR_TASK)


def phase_of(trial: FrozenTrial) -> str:
    """A trial's phase: its bookkeeping's, its task's, or search (a sampled trial)."""
    done = trial.user_attrs.get(ATTRS)
    if done:
        return done["phase"]
    task = task_of(trial)
    return task["phase"] if task else "search"


def this_worker() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid()}


def suggest(trial: optuna.Trial, name: str, distribution: BaseDistribution) -> Any:
    if isinstance(distribution, IntDistribution):
        return trial.suggest_int(name, distribution.low, distribution.high, step=distribution.step)
    if isinstance(distribution, CategoricalDistribution):
        return trial.suggest_categorical(name, distribution.choices)
    raise TypeError(f"unexpected distribution {distribution!r} for {name}")


class Trials:
    """Measures configurations as trials of one study and reads back every measurement in it.

    Args:
        study: the study (possibly shared with other processes).
        space: the search space (the sampler's parameters).
        timer: what measures.
        roles: per configuration key, the roles it was measured for (default, ...).
        prune: prune hopeless trials (the study's pruner decides how), end the repetitions of a measurement out
            of contention after the first (`RelativePruner.contends`), probe the baseline candidates and measure
            the finalists' rounds one repetition each (the module docstring).
        on_trial: called after every finished trial of this process with (measurement, cached).
        clock: seconds, for the wall time of `measure` calls.
        may_sample: whether a trial that finds no queued task may sample a new point (False once
            the strategy's trial budget is spent over every process of the study).
        prune_specials: whether to prune the specials too, asked before each (yes in an auto sweep
            once another algorithm has a best: the table reports the winner's specials whole).
        tell_sampler: whether an enqueued trial also suggests its values (so that a sampler that proposes points
            learns from it); each value is one write to the storage.
        run_over: whether the sweep's wall-time budget has ended (`plan.Budget.run_over`): a measurement in
            flight then ends at its next step (`BudgetStop`); None: no budget.
        left_s: the seconds left to that budget (`plan.Budget.left_s`): a batch still running then is stopped.
        past_the_run: why a configuration's trial is not begun (`plan.past_the_run`: foreseen to end past the
            budget), or None; a trial not begun is PRUNED, measured nothing, never an answer for its configuration.
        floor_ms: the graph's fastest verified ms per SSSP at any CK up to a given one
            (`plan.fastest_up_to`): a prunable trial more than the pruner's factor times slower is
            dominated, pruned as such (its warm-up bounded by it) even before its study has a best;
            a special, against the CK values below its own.
    """

    def __init__(self, study: optuna.Study, space: SearchSpace, timer: Timer | None,
                 roles: Mapping[str, tuple[str, ...]] | None = None, prune: bool = False,
                 on_trial: Callable[[Measurement, bool], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 may_sample: Callable[[], bool] = lambda: True,
                 prune_specials: Callable[[], bool] = lambda: False, tell_sampler: bool = True,
                 run_over: Callable[[], bool] | None = None,
                 past_the_run: Callable[[LaunchConfig], str | None] | None = None,
                 left_s: Callable[[], float | None] | None = None,
                 floor_ms: Callable[[int], float | None] | None = None) -> None:
        self.study = study
        self.floor_ms = floor_ms
        self.run_over = run_over
        self.left_s = left_s
        self.past_the_run = past_the_run
        self.space = space
        self.timer = timer
        self.roles = dict(roles or {})
        self.prune = prune
        self.prune_specials = prune_specials
        self.tell_sampler = tell_sampler
        self.on_trial = on_trial
        self.clock = clock
        self.may_sample = may_sample
        self.measured_here = 0
        self._seen: set[int] = set()
        self._first: dict[str, Measurement] = {}
        self._distributions = space.distributions()

    # --- what the study holds -----------------------------------------------------------------

    def finished(self) -> list[FrozenTrial]:
        return self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED))

    def refresh(self) -> None:
        """Learn the measurements finished since the last look (this process's and others')."""
        for trial in self.finished():
            if trial.number in self._seen:
                continue
            self._seen.add(trial.number)
            measurement = st.trial_measurement(trial)
            if measurement is not None and not probed_only(phase_of(trial), measurement):
                self._first.setdefault(measurement.config.key(), measurement)

    def measured(self, config: LaunchConfig) -> bool:
        self.refresh()
        return config.key() in self._first

    def evaluations(self) -> list[Evaluation]:
        """Every real measurement of the study, in time order (cached answers left out)."""
        out = []
        for trial in self.finished():
            measurement = st.trial_measurement(trial)
            attrs = trial.user_attrs.get(ATTRS, {})
            if measurement is None or attrs.get("cached", False):
                continue
            out.append(Evaluation(measurement, attrs["phase"], trial.number, attrs.get("timestamp", ""),
                                  attrs.get("wall_s", 0.0), attrs.get("round"), tuple(attrs.get("roles", ()))))
        return sorted(out, key=lambda e: (e.timestamp, e.trial if e.trial is not None else -1))

    def measurements(self, evaluations: Sequence[Evaluation] | None = None) -> dict[str, list[Measurement]]:
        """Every real measurement (of `evaluations`, default the study's) by configuration key, in
        order; a probe only where its configuration was not also measured whole."""
        evaluations = self.evaluations() if evaluations is None else evaluations
        whole = {e.config.key() for e in evaluations if not probed_only(e.phase, e.measurement)}
        out: dict[str, list[Measurement]] = {}
        for evaluation in evaluations:
            if not probed_only(evaluation.phase, evaluation.measurement) or evaluation.config.key() not in whole:
                out.setdefault(evaluation.config.key(), []).append(evaluation.measurement)
        return out

    def counts(self) -> dict[str, int]:
        """Finished trials that measured (or answered from a measurement), and those of the search
        phase; interrupted, stale and unused trials left out."""
        trials = [t for t in self.finished() if st.trial_measurement(t) is not None]
        return {"trials": len(trials), "search": sum(1 for t in trials if phase_of(t) == "search")}

    # --- enqueuing ----------------------------------------------------------------------------

    def enqueue(self, config: LaunchConfig, phase: str, round_: int | None = None) -> None:
        """Add a task as a WAITING trial: the next process that asks for a trial measures it."""
        task: dict[str, Any] = {"config": config.to_json(), "phase": phase}
        if round_ is not None:
            task["round"] = round_
        params = self.space.to_params(config) if self.space.contains(config) else {}
        self.study.enqueue_trial(params, user_attrs={ATTR_TASK: task})

    # --- measuring ----------------------------------------------------------------------------

    def _configuration(self, trial: optuna.Trial) -> tuple[LaunchConfig, str, int | None]:
        task = task_of(trial)
        if task is None and not self.may_sample():
            # another process took the last queued trial between our look and our ask: no new point
            trial.set_user_attr(ATTR_UNUSED, True)
            raise optuna.TrialPruned("the sampler's budget is spent")
        if task is None:
            params = {name: suggest(trial, name, d) for name, d in self._distributions.items()}
            return self.space.from_params(params), "search", None
        config = config_from_json(task["config"], f"trial {trial.number}", self.space.algorithm)
        if self.tell_sampler and self.space.contains(config):  # the enqueued values, for the sampler
            for name, distribution in self._distributions.items():
                suggest(trial, name, distribution)
        return config, str(task["phase"]), task.get("round")

    def _measure(self, trial: optuna.Trial, config: LaunchConfig, phase: str) -> Measurement:
        stop: StopAsk | None = None
        limit_ms: float | None = None  # the warm-up's bound (the timer's `limit_ms`)
        dominated: tuple[float, str] | None = None  # the graph's fastest at the CK values named, where it bounds
        dominated_ms: float | None = None  # a time per SSSP past which the configuration is dominated
        profile = True
        pruner = self.study.pruner if isinstance(self.study.pruner, RelativePruner) else None
        study = self.study
        hopeless = pruner.hopeless(study) if pruner is not None else None  # bounds a special's warm-up, and a probe's

        def contends(times_ms: Sequence[float], warm_up: bool) -> bool:
            return warm_up or pruner is None or pruner.contends(study, min(times_ms))

        def floor_at(ck: int, below: bool = False) -> tuple[tuple[float, str] | None, float | None]:  # floor, bound
            floor = self.floor_ms(ck - below) if self.floor_ms and pruner and ck - below >= 1 else None
            named = f"below {ck:,}" if below else f"{ck:,} or less"
            return (None, None) if floor is None else ((floor, named), pruner.factor * floor)

        def is_dominated(times_ms: Sequence[float], warm_up: bool) -> bool:
            return dominated_ms is not None and min(times_ms) > (2.0 if warm_up else 1.0) * dominated_ms

        if not self.prune:
            pass
        elif phase in ("remeasure", "curve"):
            # A finalist's round, or a CK bridged from its neighbours: its warm-up and one repetition.
            def one_repetition(times_ms: Sequence[float], warm_up: bool) -> Ask:
                return Ask.GO_ON if warm_up else Ask.ENOUGH

            stop, profile = one_repetition, False
        elif phase == PROBE and not self.prune_specials():
            asked = itertools.count()

            def probe(times_ms: Sequence[float], warm_up: bool) -> Ask:
                if next(asked):  # past the warm-up: a special measured for the record
                    return Ask.GO_ON if contends(times_ms, warm_up) else Ask.ENOUGH
                trial.report(min(times_ms), 0 if warm_up else 1)
                return Ask.PRUNE if trial.should_prune() else Ask.GO_ON

            stop, limit_ms = probe, hopeless  # grid24's slowest baseline candidate: 105 s a SSSP, 68 ms the best
        elif not self.roles.get(config.key()) or self.prune_specials():
            steps = itertools.count(1)  # 0 is a partial warm-up; every later report has its own step
            floor, dominated_ms = floor_at(config.concurrent_kernels)

            def report_and_ask(times_ms: Sequence[float], warm_up: bool) -> Ask:
                trial.report(min(times_ms), 0 if warm_up else next(steps))
                if trial.should_prune() or is_dominated(times_ms, warm_up):
                    return Ask.PRUNE
                return Ask.GO_ON if contends(times_ms, warm_up) else Ask.ENOUGH

            stop = report_and_ask
            limit_ms = pruner.bound(study) if pruner is not None else None
            if dominated_ms is not None and (limit_ms is None or dominated_ms < limit_ms):
                limit_ms, dominated = dominated_ms, floor
        else:
            # A special measured for the record (default, baseline, prediction): pruned only where dominated at a
            # smaller CK (random4194304-d16's delta_lanes prediction at CK 1,024 took 81 s at twice CK 1's time per
            # SSSP); once a whole repetition finds it out of contention, its repetitions end there.
            floor, dominated_ms = floor_at(config.concurrent_kernels, below=True)

            def enough_unless_contending(times_ms: Sequence[float], warm_up: bool) -> Ask:
                if is_dominated(times_ms, warm_up):
                    return Ask.PRUNE
                return Ask.GO_ON if contends(times_ms, warm_up) else Ask.ENOUGH

            stop, limit_ms, dominated = enough_unless_contending, dominated_ms, floor
            if hopeless is not None and not (limit_ms and limit_ms < hopeless):
                limit_ms, dominated = hopeless, (hopeless / HOPELESS_FACTOR, "hopeless: the study's best")
        try:
            bounded = stop if self.run_over is None else BudgetStop(stop, self.run_over, self.left_s)
            measurement = self.timer.measure(config, bounded, limit_ms=limit_ms, profile=profile)
        except LaunchRejected as rejected:
            return Measurement(config, Status.INVALID, reason=rejected.reason)
        except WrongResult as wrong:
            return Measurement(config, Status.WRONG, reason=str(wrong))
        if measurement.status is Status.PRUNED and isinstance(bounded, BudgetStop) and bounded.ended:
            measurement = dataclasses.replace(measurement, reason=f"the sweep's budget ended it ({measurement.reason})")
        elif measurement.status is Status.PRUNED and dominated is not None:
            floor_ms, named = dominated
            said = named if named.startswith("hopeless") else f"dominated, the graph's fastest at CK {named}"
            measurement = dataclasses.replace(measurement, reason=f"{measurement.reason}: {said} is {floor_ms:.3g} ms "
                                              "per SSSP")
        if probed_only(phase, measurement):
            return dataclasses.replace(measurement, reason="probed: a baseline candidate far behind the best on "
                                       "its warm-up (the slowest candidate is measured whole)")
        return measurement

    def objective(self, trial: optuna.Trial) -> float | tuple[float, float]:
        """The Optuna objective: the trial's configuration, measured; verified ms per SSSP (and, in
        a study of two objectives, the milliseconds its batch of CK SSSPs takes).

        Raises (inside the objective, for `catch=CATCH`):
            optuna.TrialPruned: the measurement was pruned, or (one objective) is INVALID or WRONG.
            LaunchRejected: the measurement is INVALID (two objectives).
            WrongResult: the measurement is WRONG (two objectives).
        """
        config, phase, round_ = self._configuration(trial)
        self.refresh()
        cached = phase != "remeasure" and config.key() in self._first  # a pruned probe is never in _first
        wall_s = 0.0
        unbegun = None if cached or self.past_the_run is None else self.past_the_run(config)
        if cached:
            measurement = self._first[config.key()]
        elif unbegun is not None:
            measurement = Measurement(config, Status.PRUNED, reason=unbegun)
        else:
            trial.set_user_attr(ATTR_WORKER, this_worker())
            ready = getattr(self.timer, "ready", None)
            if ready is not None:  # a timer opened at its first use (`opening.OpenedOnUse`): not in the wall time
                ready()
            start = self.clock()
            try:
                measurement = self._measure(trial, config, phase)
            except KeyboardInterrupt:
                note(f"interrupted {self.clock() - start:.1f} s into measuring {config} ({phase})")
                trial.set_user_attr(st.ATTR_INTERRUPTED, True)
                if task_of(trial) is not None:  # its task goes back to the queue; a sampled one is sampled anew
                    self.enqueue(config, phase, round_)
                raise
            wall_s = self.clock() - start
            self.measured_here += 1
        attrs: dict[str, Any] = {"config": config.to_json(), "phase": phase, "cached": cached, "wall_s": wall_s,
                                 "timestamp": now_iso(), "measurement": measurement.to_json()}
        if round_ is not None:
            attrs["round"] = round_
        roles = self.roles.get(config.key())
        if roles:
            attrs["roles"] = list(roles)
        if not measurement.ok:
            trial.set_user_attr(st.ATTR_REASON, f"{measurement.status}: {measurement.reason}")
        trial.set_user_attr(ATTRS, attrs)
        if not cached and unbegun is None and not probed_only(phase, measurement):
            self._first.setdefault(config.key(), measurement)
        if self.on_trial is not None:
            self.on_trial(measurement, cached)
        failed = measurement.status in (Status.INVALID, Status.WRONG)
        if failed and len(self.study.directions) == 1:
            raise optuna.TrialPruned(f"{measurement.status}: {measurement.reason}")
        if measurement.status is Status.INVALID:
            raise LaunchRejected(config, measurement.reason or "invalid")
        if measurement.status is Status.WRONG:
            raise WrongResult(measurement.reason or "wrong result")
        if measurement.status is Status.PRUNED:
            raise optuna.TrialPruned(measurement.reason or "pruned")
        if len(self.study.directions) > 1:  # the Pareto front: per SSSP, and the wait for a whole batch
            return float(measurement.ms_per_sssp), float(measurement.ms_per_sssp) * config.concurrent_kernels
        return float(measurement.ms_per_sssp)
