"""A study whose budget slice cut its search short searches on with time the others left over, what
the slice dropped first."""
from __future__ import annotations

from optuna.trial import TrialState

from autotune.search import GraphPlan, StudyKey, SweepSettings, open_storage, open_study, sweep_graph
from autotune.search.run.plan import Budget
from autotune.search.run.resume import REQUEUED_PHASES, cut_short, reopen
from autotune.search.run.storage import trial_measurement
from autotune.search.strategies import Bayes
from autotune.search.timers.synthetic import SyntheticTimer
from autotune.search.run.trials import task_of

from search_shared import default_specials


class Ticks:
    """A clock that moves one second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def study_of(space, device, graph):
    """A new study in memory of a Bayesian search of 30 trials, and its plan."""
    storage, url = open_storage("memory")
    strategy = Bayes(trials=30, seed=0)
    key = StudyKey(graph.sha256, "crauser", device["name"], strategy.label, space.digest(), {"repetitions": 3})
    handle = open_study(storage, url, key, strategy.sampler(space), resume=False)
    return handle, GraphPlan(graph, space, strategy, default_specials(), SweepSettings())


def test_a_study_cut_short_is_reopened_and_searches_on(small_space, device, graph):
    handle, plan = study_of(small_space, device, graph)
    ticks = Ticks()
    budget = Budget(run_end=10_000.0, clock=ticks)
    budget.slice_end = 12.0  # a few trials' worth of readings
    first = sweep_graph(SyntheticTimer(), plan, handle, device, budget=budget)
    assert "search" in first.protocol["cut_by_budget"] and cut_short(handle)
    searched = first.trials

    assert reopen(handle) and not reopen(handle)  # once: it is back in its search
    budget.share(1.0, 1.0)
    again = sweep_graph(SyntheticTimer(), plan, handle, device, budget=budget)
    assert again.trials > searched and not cut_short(handle)
    assert again.best.ms_per_sssp <= first.best.ms_per_sssp


def test_a_study_whose_every_measured_trial_was_pruned_is_not_sent_back(small_space, device, graph):
    """Outrun by another study's best (rmat22's Δ-stepping batch end, its three trials more pruned too)."""
    import dataclasses

    handle, plan = study_of(small_space, device, graph)
    plan = dataclasses.replace(plan, settings=SweepSettings(prune=True))
    budget = Budget(run_end=10_000.0, clock=Ticks())
    budget.slice_end = 12.0
    first = sweep_graph(SyntheticTimer(), plan, handle, device, budget=budget, best_elsewhere=lambda: 1e-9)
    states = {t.state for t in handle.study.get_trials(deepcopy=False) if t.intermediate_values}
    assert "search" in first.protocol["cut_by_budget"] and states == {TrialState.PRUNED}
    assert "abandoned" not in handle.study.user_attrs and not cut_short(handle) and not reopen(handle)


def test_a_study_that_took_its_trials_is_not_cut_short(small_space, run_sweep):
    _, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=8, seed=0))
    assert not cut_short(handle) and not reopen(handle)


def test_a_study_sent_back_measures_first_what_its_slice_dropped(small_space, device, graph):
    handle, plan = study_of(small_space, device, graph)
    budget = Budget(run_end=10_000.0, clock=Ticks())
    budget.slice_end = 5.0  # ends the search with the specials still queued
    sweep_graph(SyntheticTimer(), plan, handle, device, budget=budget)
    dropped = [task_of(t)["config"] for t in handle.study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
               if t.datetime_start is None and task_of(t) and task_of(t)["phase"] in REQUEUED_PHASES]
    assert dropped and cut_short(handle)

    assert reopen(handle)
    waiting = handle.study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert [task_of(t)["config"] for t in waiting] == dropped  # in their order, each once
    budget.share(1.0, 1.0)
    sweep_graph(SyntheticTimer(), plan, handle, device, budget=budget)
    measured = [m.config.to_json() for t in handle.study.get_trials(deepcopy=False) if (m := trial_measurement(t))]
    assert all(config in measured for config in dropped)
