"""The pieces of a multi-GPU sweep, in one process: the run's plan, what the storages guarantee
(a WAITING trial goes to one process only), a dead worker's trial enqueued again, `--devices`."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import optuna
import pytest
from optuna.trial import TrialState

from autotune.cli.sweep_fleet import parse_devices
from autotune.errors import InputError
from autotune.search import Bayes, Exhaustive, SearchSpace, SweepSettings, open_storage
from autotune.search.fleet import Run, RunGraph, RunPlan, dead_here, run_names
from autotune.search.run.storage import recover_interrupted
from autotune.search.timers.synthetic import synthetic_device, synthetic_graph
from autotune.search.run.trials import ATTR_TASK, ATTR_WORKER

from search_shared import SMALL_SPACE, default_specials


def _plan(strategy, graphs=2, name="r1") -> RunPlan:
    space = SearchSpace.from_options("crauser", **SMALL_SPACE)
    runs = tuple(RunGraph(synthetic_graph(f"g{i}"), "crauser", f"study-{i}", f"g{i}", space, default_specials())
                 for i in range(graphs))
    return RunPlan(name, "crauser", strategy, SweepSettings(prune=True), {"repetitions": 3}, synthetic_device(),
                   {"kind": "replay", "records": "x"}, runs, "autotune sweep ...")


def test_a_run_plan_survives_json():
    for strategy in (Exhaustive(compose_top=2), Bayes(trials=12, sampler_name="random", seed=4)):
        plan = _plan(strategy)
        again = RunPlan.from_json(plan.to_json())
        assert again.to_json() == plan.to_json()
        assert again.graphs[1].space == plan.graphs[1].space and again.graphs[0].specials == plan.graphs[0].specials
        assert again.strategy.to_json() == strategy.to_json() and again.settings == plan.settings


def test_a_run_is_found_by_name_and_an_unknown_one_is_named(tmp_path):
    storage, shown = open_storage(str(tmp_path / "s.journal"))
    Run.create(storage, shown, _plan(Exhaustive(), name="first"))
    assert run_names(storage) == ["first"] and Run.open(storage, shown, "first").plan.name == "first"
    with pytest.raises(InputError, match="--run second: no such run in .*; runs there: first"):
        Run.open(storage, shown, "second")


def test_a_run_found_before_its_plan_is_written_opens_once_it_is(tmp_path, monkeypatch):
    import autotune.search.fleet as fleet

    storage, shown = open_storage(str(tmp_path / "s.journal"))
    plan = _plan(Exhaustive(), name="r")
    study = optuna.create_study(study_name=fleet.run_study_name("r"), storage=storage)  # as Run.create starts
    writer = threading.Timer(0.3, lambda: study.set_user_attr(fleet.ATTR_PLAN, plan.to_json()))
    writer.start()
    assert Run.open(storage, shown, "r").plan.name == "r"
    writer.join()
    optuna.create_study(study_name=fleet.run_study_name("broken"), storage=storage)
    monkeypatch.setattr(fleet, "PLAN_WAIT_S", 0.2)
    with pytest.raises(InputError, match="--run broken: the run in .* has no plan"):
        Run.open(storage, shown, "broken")


def test_a_worker_waits_for_a_run_while_its_coordinator_lives(tmp_path):
    storage, shown = open_storage(str(tmp_path / "s.journal"))
    naps: list[float] = []

    def sleep(seconds: float) -> None:  # the coordinator creates the run during the worker's second nap
        naps.append(seconds)
        if len(naps) == 2:
            Run.create(storage, shown, _plan(Exhaustive(), name="late"))

    assert Run.await_open(storage, shown, "late", waiting=lambda: True, sleep=sleep).plan.name == "late"
    assert len(naps) == 2
    alive = iter([True, True, False])
    with pytest.raises(InputError, match="--run never: no such run"):
        Run.await_open(storage, shown, "never", waiting=lambda: next(alive), sleep=lambda s: None)


@pytest.mark.parametrize("kind", ["journal", "postgres"])
def test_a_waiting_trial_goes_to_one_process_only(tmp_path, kind, request):
    """What the fleet relies on Optuna for: concurrent `ask`s never pop the same enqueued trial
    (a journal file, and PostgreSQL's row locks; SQLite has none, and a fleet refuses it)."""
    name = request.getfixturevalue("postgres_url") if kind == "postgres" else str(tmp_path / "s.journal")
    storage, _ = open_storage(name)
    study = optuna.create_study(storage=storage, study_name="s")
    for x in range(40):
        study.enqueue_trial({"x": x})
    script = (f"import optuna, sys; from autotune.search import open_storage; s, _ = open_storage({name!r}); "
              "study = optuna.load_study(study_name='s', storage=s)\n"
              "for _ in range(10):\n"
              "    t = study.ask({'x': optuna.distributions.IntDistribution(0, 39)}); study.tell(t, t.params['x'])")
    processes = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(4)]
    assert [p.wait() for p in processes] == [0, 0, 0, 0]
    values = sorted(t.params["x"] for t in study.get_trials(states=(TrialState.COMPLETE,)))
    assert values == list(range(40))  # each of the 40 enqueued once, none twice


def test_the_running_trial_of_a_dead_worker_is_failed_and_enqueued_again(tmp_path):
    storage, _ = open_storage(str(tmp_path / "s.journal"))
    study = optuna.create_study(storage=storage, study_name="s")
    study.enqueue_trial({}, user_attrs={ATTR_TASK: {"config": {}, "phase": "search"}})
    study.enqueue_trial({}, user_attrs={ATTR_TASK: {"config": {}, "phase": "fixed"}})
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine, theirs = study.ask(), study.ask()
    mine.set_user_attr(ATTR_WORKER, {"host": socket.gethostname(), "pid": os.getpid()})
    theirs.set_user_attr(ATTR_WORKER, {"host": socket.gethostname(), "pid": dead.pid})
    assert recover_interrupted(study, storage, gone=dead_here) == 1
    states = [(t.state, t.user_attrs[ATTR_TASK]["phase"]) for t in study.trials]
    assert states == [(TrialState.RUNNING, "search"), (TrialState.FAIL, "fixed"), (TrialState.WAITING, "fixed")]


def test_a_dead_worker_s_trial_taken_again_is_not_taken_for_dead(tmp_path):
    """The copy enqueued again does not name the dead worker: a live process that takes it is not
    failed in its turn before it names itself (Run.recover forgets ATTR_WORKER)."""
    storage, shown = open_storage(str(tmp_path / "s.journal"))
    optuna.create_study(storage=storage, study_name="study-0")  # the plan's graph study
    run = Run.create(storage, shown, _plan(Exhaustive(), graphs=1))
    sweep = run.sweeps()[0]
    sweep.study.enqueue_trial({}, user_attrs={ATTR_TASK: {"config": {}, "phase": "fixed"}})
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    sweep.study.ask().set_user_attr(ATTR_WORKER, {"host": socket.gethostname(), "pid": dead.pid})
    assert run.recover([sweep]) == 1
    again = sweep.study.ask()  # the copy, taken by a live process that has not named itself yet
    assert ATTR_WORKER not in again.user_attrs and again.user_attrs[ATTR_TASK]["phase"] == "fixed"
    assert run.recover([sweep]) == 0
    assert [t.state for t in sweep.study.trials] == [TrialState.FAIL, TrialState.RUNNING]


def test_a_study_is_pruned_against_its_siblings_best_as_in_one_process(tmp_path):
    """The run's other studies of the same graph and end of the curve (an auto sweep's other
    algorithms) give a study the best to prune against and to abandon a hopeless algorithm by; a
    study of another graph or another end does not."""
    import dataclasses

    storage, shown = open_storage(str(tmp_path / "s.journal"))
    plan = _plan(Exhaustive(), graphs=2)
    first, other_graph = plan.graphs
    sibling = dataclasses.replace(first, algorithm="martin", study="study-sibling")
    latency = dataclasses.replace(first, study="study-latency", objective="latency")
    plan = dataclasses.replace(plan, graphs=(first, other_graph, sibling, latency))
    for graph in plan.graphs:
        optuna.create_study(storage=storage, study_name=graph.study)
    run = Run.create(storage, shown, plan)
    assert run.best_elsewhere(first)() is None  # nothing measured yet
    for study, values in (("study-sibling", (5.0, 2.0)), ("study-latency", (0.5,)), ("study-1", (0.1,))):
        opened = optuna.load_study(study_name=study, storage=storage)
        for value in values:
            opened.add_trial(optuna.trial.create_trial(value=value))
    assert run.best_elsewhere(first)() == 2.0 and run.best_elsewhere(sibling)() is None
    assert run.best_elsewhere(other_graph) is None  # no sibling at all
    assert run.sweep(first).best_elsewhere() == 2.0


def test_devices_are_parsed_and_checked():
    assert parse_devices("0,2", replay=False) == (0, 2)
    assert parse_devices(" 1 ", replay=True) == (1,)
    for text, message in (("0,x", "'x' is not a GPU index"), ("1,1", "GPU 1 is listed twice"),
                          ("", "expected all or GPU indexes")):
        with pytest.raises(InputError, match=message):
            parse_devices(text, replay=False)
    with pytest.raises(InputError, match="a replay has no GPUs to count"):
        parse_devices("all", replay=True)


def test_two_threads_enqueueing_and_asking_share_one_journal(tmp_path):
    storage, _ = open_storage(str(tmp_path / "s.journal"))
    study = optuna.create_study(storage=storage, study_name="s")
    taken: list[int] = []

    def worker():
        for _ in range(20):
            trial = study.ask({"x": optuna.distributions.IntDistribution(0, 99)})
            taken.append(trial.params["x"])
            study.tell(trial, 0.0)

    for x in range(40):
        study.enqueue_trial({"x": x})
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(40))
