"""The one sweep procedure: a graph's study goes through the same stages whether one process or a fleet of workers
measures it; they differ only in what they are handed (the timer and where the study is stored).

Stages of a graph's study (its `stage` attribute):

1. `search`: the specials in the space (the model's prediction, for a sampling search followed by its
   `neighbours.neighbourhood`, the default, the baseline candidates) and the strategy's first trials are enqueued
   (`prepare`); a Bayesian search's sampler then proposes the rest of its budget. With pruning on, the baseline
   candidates are probes (`trials`' docstring), and once the rest is done the slowest of them is enqueued to be
   measured whole, with the references outside the space (a prediction outside it first). A search that samples then
   measures its sibling studies' points at the CK values next to its own (phase `transfer`; cut by its slice: `curve`).
2. `refine` (a search that samples): a hill climb from the best, its neighbours measured until none is faster.
3. `held`: the study's ends are measured. A run of several studies holds each here until every study of the run has
   measured its ends (`sweep_graph`'s `hold`), so that no algorithm's curve or rounds take the time another
   algorithm's ends need, and the rest is judged against them all.
4. `curve`: the transfers not measured yet; for the queries curve (`plan.SweepSettings.bridge`), every CK up to the
   best's that the search left without a verified point is bridged from its neighbours (`plan.bridges`), measured as a
   warm-up and one repetition, never pruned. A bridge is left out where another study's verified point at its CK is
   `prune_factor` times faster than the fastest this study measured at any CK (`plan.outpaced`; the study's `outpaced`
   attribute counts them).
5. `compose` (exhaustive): each kernel's best launch composed from the uniform runs; the best compositions are
   enqueued.
6. `remeasure`: the `finalists` best configurations *inside the space* by median are enqueued again in `rounds`
   interleaved rounds (A B C A B C ...), so that noise does not pick the winner (one where their batches are long:
   `plan.rounds_of`); a finalist another study's point at its CK beats by more than `contender_factor` is not (it
   cannot be that CK's point of the curve whatever the noise).
7. `done`: the winner is the finalist with the lowest median over all its measurements. A configuration that is ever
   invalid, wrong or pruned is never a winner, nor is one outside the space the user gave, nor a reference (the
   default and baseline, `plan.references`: measured and reported, not chosen, unless the model's prediction).

A wall-time `plan.Budget` cuts stages short: past the study's slice the search and the climb stop (their waiting trials
are dropped) and the finalists get one round; past the run's end, the curve stage and the rounds are skipped. No trial
begins that its study's quickest says would end past the run (`stages.quickest_trial_s`), nor one that two batches of
its CK at the graph's fastest time per SSSP so far would take past it (`plan.past_the_run`), and a batch still running
at the run's end is stopped there (`measure.time_left_ms`). The table is still whole; the stages cut are named in its
`x-sweep` protocol (`cut_by_budget`). Pruning also stops a trial once it is `prune_factor` times slower per SSSP than
the graph's fastest at its CK or a smaller one (dominated: `plan.fastest_up_to`), even before its study has a best.

A study is *abandoned* (`done`, no winner) once its first `ABANDON_AFTER` finished trials were all pruned or refused
while another study of the graph had a verified point (GPU Crauser on a road network; grid24's batch end).

`GraphSweep.work` measures what its study offers; `GraphSweep.advance` moves a study with nothing in flight to its next
stage: alternately in one process (`local.sweep_graph`), by workers and the coordinator in a fleet (`search.fleet`).
Ctrl-C or SIGTERM stops at once: what was measured is kept, and the result comes back `partial`.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping

from optuna.trial import TrialState

from autotune.algorithms import config_from_json
from autotune.launch import LaunchConfig
from autotune.measure import Measurement, Timer
from autotune.search.run.baseline import probed, slowest, to_measure_whole
from autotune.search.strategies.climb import climb_neighbours, next_centre
from autotune.search.run.plan import (Budget, GraphPlan, SweepSettings, bridges, converged_after, fastest_up_to,
                                      outpaced, past_the_run, rounds_of, sampled_budget, short_of_enough, tuned)
from autotune.search.results import ConfigResult, GraphResult, fastest_configurations, pooled
from autotune.search.run.stages import (ATTR_ABANDONED, ATTR_BASELINE, ATTR_CENTRES, ATTR_CONVERGED, ATTR_CUT,
                                    ATTR_FINALISTS, ATTR_OUTPACED, ATTR_SAMPLED, ATTR_STAGE, COMPOSE, CURVE, DONE, HELD,
                                    REFINE, REMEASURE, SEARCH, quickest_trial_s, sampled_trials)
from autotune.search.run.storage import StudyHandle
from autotune.search.run.transfer import fastest_ms_per_ck, transfers
from autotune.search.run.pruning import RelativePruner
from autotune.search.run.trials import CATCH, PROBE, Trials

ABANDON_AFTER = 8
__all__ = ["Budget", "GraphPlan", "GraphSweep", "SweepSettings"]


class GraphSweep:
    """One graph's study and what measures it (see the module docstring).

    Args:
        plan: the graph's sweep.
        handle: its study.
        timer: what measures (None for a process that only advances the stages).
        on_trial: called after every finished trial of this process with (measurement, cached).
        clock: seconds (for tests).
        best_elsewhere: the best time of the graph's other sweeps at its end (an auto sweep's), which the pruner uses.
        budget: the wall time it may take (the module's doc says what it cuts).
        siblings: the fastest configuration per CK of the graph's studies of the other ends of
            its queries curve, read when the search ends (`transfer.fastest_per_ck`).
        rivals: the fastest verified ms per SSSP at each CK of the graph's other studies (every algorithm, every end;
            `transfer.fastest_ms_per_ck`): what is outpaced or dominated at its CK is not measured (the module's doc).
    """

    def __init__(self, plan: GraphPlan, handle: StudyHandle, timer: Timer | None,
                 on_trial: Callable[[Measurement, bool], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 best_elsewhere: Callable[[], float | None] | None = None, budget: Budget | None = None,
                 siblings: Callable[[], list[LaunchConfig]] | None = None,
                 rivals: Callable[[], Mapping[int, float]] | None = None) -> None:
        self.plan = plan
        self.siblings = siblings
        self.rivals = rivals
        self.budget = budget or Budget()
        self.handle = handle
        self.study = handle.study
        self._study_id = handle.storage.get_study_id_from_name(self.study.study_name)
        self.best_elsewhere = best_elsewhere
        if plan.settings.prune:
            self.study.pruner = RelativePruner(plan.settings.prune_factor, best_elsewhere,
                                               plan.settings.contender_factor)
        self.trials = Trials(self.study, plan.space, timer, plan.specials.roles(), plan.settings.prune, on_trial, clock,
                             may_sample=lambda: self._sampled_left(counting_running=False) > 0,
                             prune_specials=lambda: plan.settings.prune_references or (
                                 best_elsewhere is not None and best_elsewhere() is not None),
                             tell_sampler=plan.strategy.samples,
                             run_over=self.budget.run_over if self.budget.run_end is not None else None,
                             past_the_run=None if self.budget.run_end is None else lambda config: past_the_run(
                                 config.concurrent_kernels, min(self.fastest_by_ck().values(), default=None),
                                 self.budget),
                             left_s=self.budget.left_s,
                             floor_ms=lambda ck: fastest_up_to(ck, self.fastest_by_ck()))

    def fastest_by_ck(self) -> dict[int, float]:
        """The graph's fastest verified ms per SSSP at each CK so far: this study's and the `rivals`'."""
        fastest = fastest_ms_per_ck(self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        for ck, ms in (self.rivals() if self.rivals is not None else {}).items():
            fastest[ck] = min(ms, fastest.get(ck, ms))
        return fastest

    def _attr(self, key: str, default: Any = None) -> Any:
        """One user attribute of the study, read from the storage without copying the others
        (`Study.user_attrs` copies them all, and a worker reads the stage before every trial)."""
        return self.handle.storage.get_study_user_attrs(self._study_id).get(key, default)

    @property
    def stage(self) -> str:
        return self._attr(ATTR_STAGE, "")

    def prepare(self) -> None:
        """Enqueue the first trials (once: a resumed or joined study keeps its own)."""
        if self.stage:
            return
        plan = self.plan
        probes = probed(plan)
        specials = [c for c in plan.specials.ordered() if c not in probes]
        if plan.specials.prediction is not None and not plan.space.contains(plan.specials.prediction):
            self.trials.enqueue(plan.specials.prediction, "fixed")  # outside the space: measured whole, first
        first = plan.first_trials(specials)
        for config in first:
            self.trials.enqueue(config, "search")
        for config in probes:  # after the first trials: a probe needs a best to be judged against
            self.trials.enqueue(config, PROBE)
        probed_inside = sum(1 for c in probes if plan.space.contains(c))  # counted in the budget as before probing
        self.study.set_user_attr(ATTR_SAMPLED, plan.strategy.sampled_trials(plan.space, len(first) + probed_inside))
        self.study.set_user_attr(ATTR_STAGE, SEARCH)

    def _enqueue_references(self) -> bool:
        """Once, after the search (unless the budget ended it): enqueue the probed baseline candidate
        (`baseline.to_measure_whole`) and the references outside the space, but where references are
        pruned (the curve's latency end and middle: the batch end reports them); True if it enqueued
        any. Δ-stepping's default at CK 1 takes about 33 s on road-FLA (H100): not before the search."""
        plan = self.plan
        if ATTR_BASELINE in self.handle.storage.get_study_user_attrs(self._study_id):
            return False
        probes = probed(plan)
        outside = [] if plan.settings.prune_references else [
            c for c in plan.specials.ordered()
            if c not in probes and c != plan.specials.prediction and not plan.space.contains(c)]
        whole = to_measure_whole(plan.specials, self.trials.evaluations()) if probes else None
        self.study.set_user_attr(ATTR_BASELINE, None if whole is None else whole.to_json())
        configs = [c for c in dict.fromkeys([*outside, *([whole] if whole else [])]) if not self.trials.measured(c)]
        for config in configs:
            self.trials.enqueue(config, "search" if plan.space.contains(config) else "fixed")
        return bool(configs)

    def _enqueue_curve(self) -> None:
        """The curve stage's trials: the transfers not measured yet and, for the queries curve, the
        bridges, but those another study outpaced at their CK (`plan.outpaced`)."""
        settings = self.plan.settings
        points = self._points()
        fastest = points[0].ms_per_sssp if points else None
        rivals = self.rivals() if self.rivals is not None else {}

        def contending(configs: Iterable[LaunchConfig]) -> list[LaunchConfig]:
            configs = [c for c in configs if not self.trials.measured(c)]  # those measured are no bridges to count
            kept = [c for c in configs
                    if not outpaced(fastest, rivals.get(c.concurrent_kernels), settings.prune_factor)]
            if len(kept) < len(configs):
                self._count_outpaced("bridges", len(configs) - len(kept))
            return kept

        if self.plan.strategy.samples and self.siblings is not None:
            self._enqueue_new(contending(transfers(self.siblings(), self.plan.space)), "transfer")
        if settings.bridge:
            self._enqueue_new(contending(bridges(points, self.plan.space, settings.searched_elsewhere)), "curve")

    def _count_outpaced(self, what: str, count: int) -> None:
        counts = dict(self._attr(ATTR_OUTPACED) or {})
        counts[what] = counts.get(what, 0) + count
        self.study.set_user_attr(ATTR_OUTPACED, counts)

    def _enqueue_new(self, configs: Iterable[LaunchConfig], phase: str) -> None:
        for config in configs:
            if not self.trials.measured(config):
                self.trials.enqueue(config, phase)

    def planned(self) -> int:
        """Trials the sweep plans (compositions and the finalists' rounds included)."""
        plan = self.plan
        return (plan.strategy.planned_trials(plan.space, plan.specials.ordered(), plan.neighbourhood())
                + plan.settings.finalists * plan.settings.rounds)

    def _in_flight(self) -> tuple[int, int]:
        states = [t.state for t in self.study.get_trials(deepcopy=False, states=(TrialState.WAITING, TrialState.RUNNING))]
        return states.count(TrialState.WAITING), states.count(TrialState.RUNNING)

    def _sampled_left(self, counting_running: bool = True) -> int:
        """Search trials the sampler may still propose (`sampled_trials`, `plan.sampled_budget`); those in
        flight count as taken, unless `counting_running` is off (the trial asking is one)."""
        if self.stage != SEARCH or self._converged():
            return 0
        taken, budget = sampled_trials(self.study, finished_only=not counting_running), int(self._attr(ATTR_SAMPLED, 0))
        if (more := sampled_budget(budget, taken, self.plan.settings.enough, self._short_of_enough)) > budget:
            self.study.set_user_attr(ATTR_SAMPLED, more)  # kept: a slice ending it now leaves it cut short (`resume`)
        return max(0, more - taken)

    def _points(self) -> list[ConfigResult]:  # the study's verified configurations inside its space (`tuned`)
        return tuned(pooled(self.trials.measurements()), self.plan.space, self.plan.specials)

    def _short_of_enough(self) -> bool:  # `plan.short_of_enough` of the study's points
        return short_of_enough(self._points(), self.plan.settings.enough, self.best_elsewhere and self.best_elsewhere())

    def _converged(self) -> bool:
        """Whether the search has converged (`plan.converged_after` with the settings' patience:
        that many finished trials in a row without a gain); recorded once in the study."""
        if self._attr(ATTR_CONVERGED) is not None:
            return True
        patience = self.plan.settings.patience
        if not patience or sampled_trials(self.study, finished_only=True) < patience:
            return False  # the sampler has its say first: the enqueued trials alone never end a search
        finished = sorted(self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED,
                                                                        TrialState.FAIL)), key=lambda t: t.number)
        values = [t.values[0] if t.state is TrialState.COMPLETE and t.values else None for t in finished]
        after = converged_after(values, patience)
        if after is None:
            return False
        if self._short_of_enough():
            return False  # it leads its end of the curve with too few configurations verified there
        self.study.set_user_attr(ATTR_CONVERGED, after)
        return True

    def hopeless(self) -> bool:
        """Whether this algorithm is abandoned (see the module's doc): decided once, kept in the study."""
        if self._attr(ATTR_ABANDONED):
            return True
        elsewhere = self.best_elsewhere is not None and self.best_elsewhere() is not None
        if not elsewhere and not self.fastest_by_ck():  # nothing verified elsewhere to judge its trials against
            return False
        finished = self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
        if len(finished) < ABANDON_AFTER or any(t.state is TrialState.COMPLETE for t in finished):
            return False
        self.study.set_user_attr(ATTR_ABANDONED, True)
        return True

    def offers_work(self) -> bool:
        if self.stage == SEARCH and self.hopeless():
            return False
        return self._in_flight()[0] > 0 or self._sampled_left() > 0  # waiting trials, or the sampler's

    def work(self, limit: int | None = None) -> int:
        """Measure trials while the study offers some (at most `limit`); returns how many."""
        done = 0
        while (limit is None or done < limit) and self.stage not in ("", DONE) and self.offers_work() \
                and not self._time_is_up():
            self.study.optimize(self.trials.objective, n_trials=1, catch=CATCH, gc_after_trial=False)
            done += 1
        return done

    def _time_is_up(self) -> bool:
        """Whether the budget ends the stage in hand (the search at the slice's end, bridging and the
        rounds at the run's, any when its quickest trial would end past the run: `quickest_trial_s`):
        its waiting trials are then dropped (FAIL, never measured)."""
        stage, budget = self.stage, self.budget
        up = budget.run_over() if stage in (CURVE, REMEASURE) else stage in (SEARCH, REFINE) and budget.slice_over()
        if not up and stage in (SEARCH, REFINE, CURVE, REMEASURE) and budget.run_end is not None:
            up = not budget.fits(quickest_trial_s(self.study))
        if up:
            for trial in self.study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
                self.handle.storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
            self.study.set_user_attr(ATTR_CUT, list(dict.fromkeys([*(self._attr(ATTR_CUT) or []), stage])))
        return up

    def advance(self) -> bool:
        """Move to the next stage when nothing of this one is left or in flight (or the budget ends
        it); True if it moved."""
        stage = self.stage
        if stage in ("", DONE):
            return False
        if stage == SEARCH and self.hopeless():
            if self._in_flight()[1]:
                return False  # another worker's trial is still running
            self.study.set_user_attr(ATTR_STAGE, DONE)
            return True
        up = self._time_is_up()
        waiting, running = self._in_flight()
        if running or (not up and (waiting or self._sampled_left())):
            return False
        settings = self.plan.settings
        if stage == SEARCH:
            if not up:
                if self._enqueue_references():
                    return True
                if self.plan.strategy.samples and self.siblings is not None:  # the siblings' points moved here
                    self._enqueue_new(transfers(self.siblings(), self.plan.space), "transfer")
            self.study.set_user_attr(ATTR_STAGE, REFINE)
            return True
        if stage == REFINE:
            points = self._points()
            centres = list(self._attr(ATTR_CENTRES) or [])
            centre = next_centre(points, centres) if self.plan.strategy.samples and not up else None
            if centre is not None:  # climb on: the best's neighbours (`climb`)
                self.study.set_user_attr(ATTR_CENTRES, centres + [centre.key()])
                self._enqueue_new(climb_neighbours(centre, self.plan.space), "refine")
                return True
            self.study.set_user_attr(ATTR_STAGE, HELD)
            return True
        if stage == HELD:
            if not self.budget.run_over():  # what the slice left out, the run's time may measure
                self._enqueue_curve()
            self.study.set_user_attr(ATTR_STAGE, CURVE)
            return True
        if stage == CURVE:
            if not self.budget.slice_over():
                self._enqueue_new(self.plan.strategy.compositions(self.trials.measurements(), self.plan.space), "compose")
            self.study.set_user_attr(ATTR_STAGE, COMPOSE)
            return True
        if stage == COMPOSE:
            finalists = self._points()[: settings.finalists]
            self.study.set_user_attr(ATTR_FINALISTS, [r.config.to_json() for r in finalists])
            rivals = self.rivals() if self.rivals is not None else {}
            contending = [r.config for r in finalists if not outpaced(
                r.ms_per_sssp, rivals.get(r.config.concurrent_kernels), settings.contender_factor)]
            rounds = 0 if self.budget.run_over() else 1 if self.budget.slice_over() else \
                rounds_of(finalists, settings.rounds, self._attr("protocol"))
            if rounds and len(contending) < len(finalists):
                self._count_outpaced("rounds", rounds * (len(finalists) - len(contending)))
            for round_ in range(rounds):
                for config in contending:
                    self.trials.enqueue(config, "remeasure", round_)
            self.study.set_user_attr(ATTR_STAGE, REMEASURE)
            return True
        self.study.set_user_attr(ATTR_STAGE, DONE)
        return True

    @property
    def done(self) -> bool:
        return self.stage == DONE

    def finalists(self) -> list[LaunchConfig]:
        saved = self._attr(ATTR_FINALISTS) or []
        return [config_from_json(data, "study finalists", self.plan.algorithm) for data in saved]

    def result(self, elapsed_s: float, partial: bool, device: Mapping[str, Any]) -> GraphResult:
        plan = self.plan
        evaluations = self.trials.evaluations()
        results = pooled(self.trials.measurements(evaluations))
        finalist_results = [results[c.key()] for c in self.finalists() if c.key() in results]
        # The winner is the best finalist; without finalists (interrupted), or should every finalist have failed a
        # re-measurement, the best configuration inside the space whose every measurement was ok.
        pool = [r for r in finalist_results if r.ok] if not partial and self.done else []
        # References are never the best nor a curve point; with nothing tuned, the prediction is.
        inside = tuned(results, plan.space, plan.specials)

        def get(config: LaunchConfig | None) -> ConfigResult | None:
            return None if config is None else results.get(config.key())

        predicted = get(plan.specials.prediction)
        pool = pool or inside or ([predicted] if predicted is not None and predicted.ok else [])
        best = min(pool, key=lambda r: (r.ms_per_sssp, r.config.key())) if pool else None
        candidates = tuple(results[c.key()] for c in plan.specials.baseline_candidates if c.key() in results)

        curve: dict[int, ConfigResult] = {}
        for candidate in inside:
            curve.setdefault(candidate.config.concurrent_kernels, candidate)
        replay_stats = getattr(self.trials.timer, "stats", None)
        counts = self.trials.counts()
        return GraphResult(
            graph=plan.graph, algorithm=plan.algorithm, device=dict(device),
            strategy=plan.strategy.label, strategy_parameters=plan.strategy.parameters(), space=plan.space.to_json(),
            best=best, predicted=predicted, prediction=plan.specials.prediction_details,
            default=get(plan.specials.default), baseline=slowest(candidates), baseline_candidates=candidates,
            finalists=tuple(finalist_results), evaluations=len(evaluations), trials=counts["trials"],
            configurations=len(results), failed=sum(1 for r in results.values() if not r.ok),
            tuning_seconds=elapsed_s, measure_seconds=sum(e.wall_s for e in evaluations), partial=partial,
            study={"storage": self.handle.storage_url, "name": self.handle.name, "resumed": self.handle.resumed},
            replay=replay_stats.to_json() if hasattr(replay_stats, "to_json") else None,
            curve=tuple(curve[ck] for ck in sorted(curve)),
            top=tuple(fastest_configurations(inside)),
            protocol={**dict(self._attr("protocol") or {}),
                      **({"cut_by_budget": self._attr(ATTR_CUT)} if self._attr(ATTR_CUT) else {}),
                      **({"converged_after": self._attr(ATTR_CONVERGED)} if self._attr(ATTR_CONVERGED) else {}),
                      **({"outpaced": self._attr(ATTR_OUTPACED)} if self._attr(ATTR_OUTPACED) else {})},
            log=tuple(evaluations),
        )
