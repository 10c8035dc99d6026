"""The pieces of a multi-GPU sweep, in one process: tickets under concurrency, liveness, the run's
plan and its tasks, `--devices` parsing."""
from __future__ import annotations

import dataclasses
import threading
from collections import Counter

import optuna
import pytest
from optuna.trial import TrialState

from autotune.errors import GpuUnavailable, InputError
from autotune.search import Bayes, Exhaustive, ModelOnly, SearchSpace, SweepSettings, open_storage
from autotune.search.coordinator import parse_devices
from autotune.search.runplan import (ENQUEUED, FINALIZE, FIXED, GRID, SAMPLE, GraphPlan, RunPlan, Timing,
                                     bayes_first_trials, grid_points, plan_graph)
from autotune.search.strategies import initial_design
from autotune.search.synthetic import synthetic_device, synthetic_graph
from autotune.search.workqueue import Liveness, RunStudy, run_names

from conftest import SMALL_SPACE, default_specials


def _plan(strategy, graphs=1, name="r1") -> RunPlan:
    space = SearchSpace.from_options(**SMALL_SPACE)
    specials = default_specials()
    plans = tuple(plan_graph(synthetic_graph(f"g{i}"), f"study-{i}", f"g{i}", specials, strategy, space,
                             measured=lambda config: False) for i in range(graphs))
    return RunPlan(name=name, algorithm="crauser", strategy=strategy, space=space, settings=SweepSettings(),
                   protocol={"repetitions": 3}, device=synthetic_device(), timer={"kind": "replay", "records": "x"},
                   graphs=plans, timing=Timing.from_heartbeat(0.2))


def test_a_plan_survives_json_and_lists_each_graph_s_tasks_then_its_finalize():
    plan = _plan(Exhaustive(), graphs=2)
    again = RunPlan.from_json(plan.to_json())
    assert again.key() == plan.key() and again.tasks == plan.tasks
    kinds = Counter(t.kind for t in plan.tasks)
    specials = default_specials().ordered()
    in_grid = sum(1 for c in specials if c.key() in {plan.space.from_grid_params(p).key() for p in grid_points(plan.space)})
    assert kinds[FIXED] == 2 * len(specials)
    assert kinds[GRID] == 2 * (plan.space.uniform_size - in_grid)
    assert kinds[FINALIZE] == 2 and plan.tasks[-1].kind == FINALIZE
    assert [t.index for t in plan.tasks] == list(range(len(plan.tasks)))
    assert max(t.index for t in plan.tasks if t.graph == 0) < min(t.index for t in plan.tasks if t.graph == 1)


def test_a_bayes_plan_spends_the_trial_budget_on_its_first_trials_then_samples():
    plan = _plan(Bayes(trials=12))
    kinds = Counter(t.kind for t in plan.tasks)
    inside = [c for c in default_specials().ordered() if plan.space.contains(c)]
    design = [c for c in initial_design(plan.space) if c.key() not in {i.key() for i in inside}]
    assert kinds[ENQUEUED] == len(inside) + len(design) and kinds[ENQUEUED] + kinds[SAMPLE] == 12
    assert Counter(t.kind for t in _plan(ModelOnly()).tasks) == {FIXED: len(default_specials().ordered()),
                                                                   FINALIZE: 1}
    assert _plan(Bayes(trials=12)).differences(_plan(Bayes(trials=13))) == ["strategy"]
    assert Counter(t.kind for t in _plan(Bayes(trials=3)).tasks)[SAMPLE] == 0  # the first trials exceed the budget


def _one_process_first_trials(space: SearchSpace, measured: list) -> list:
    """The configurations `Bayes.enqueue` queues in a one-process sweep's study that has measured
    `measured` (as search trials), in their order."""
    study = optuna.create_study(storage=optuna.storages.InMemoryStorage())
    for config in measured:
        study.add_trial(optuna.trial.create_trial(params=space.to_params(config), distributions=space.distributions(),
                                                  value=1.0))
    Bayes(trials=12).enqueue(study, space, default_specials().ordered())
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    return [space.from_params(t.system_attrs["fixed_params"]) for t in sorted(waiting, key=lambda t: t.number)]


@pytest.mark.parametrize("resumed", [False, True])
def test_a_fleet_queues_the_same_first_bayes_trials_as_one_process(resumed):
    space = SearchSpace.from_options(**SMALL_SPACE)
    first = bayes_first_trials(default_specials().ordered(), space, measured=lambda config: False)
    measured = [first[1], first[-1]] if resumed else []  # one special, one point of the initial design
    keys = {c.key() for c in measured}
    graph = plan_graph(synthetic_graph("g"), "study", "g", default_specials(), Bayes(trials=12), space,
                       measured=lambda config: config.key() in keys)
    plan = dataclasses.replace(_plan(Bayes(trials=12)), graphs=(graph,))
    queued = [t for t in plan.tasks if t.kind == ENQUEUED]
    expected = _one_process_first_trials(space, measured)
    assert [t.config for t in queued] == expected and len(expected) == len(first) - len(measured)
    assert [dict(t.params) for t in queued] == [space.to_params(c) for c in expected]
    assert set(initial_design(space)) - set(measured) <= {t.config for t in queued}


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_tickets_are_unique_and_dense_when_many_claim_at_once(tmp_path, kind):
    spec = str(tmp_path / ("q.db" if kind == "sqlite" else "q.log"))
    storage, _ = open_storage(spec)
    run = RunStudy.create(storage, _plan(ModelOnly()))
    numbers: list[int] = []

    def claim_many(worker: str) -> None:
        own, _ = open_storage(spec)  # a storage object of its own: another connection, as another process has
        mine = RunStudy.open(own, run.name)
        for _ in range(25):
            ticket = mine.claim(worker)
            numbers.append(ticket.number)
            mine.finish(ticket, TrialState.COMPLETE)

    threads = [threading.Thread(target=claim_many, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(numbers) == list(range(100))
    assert run_names(storage) == [run.name]


def test_a_recovery_claim_goes_on_only_if_it_is_the_lowest_live_one(tmp_path):
    storage, _ = open_storage(str(tmp_path / "q.db"))
    run = RunStudy.create(storage, _plan(ModelOnly()))
    first = run.claim("dead")  # task 0, its worker gone
    a, b = run.claim("a", first.task), run.claim("b", first.task)
    assert run.won(a, gone={"dead"}) and not run.won(b, gone={"dead"})
    assert not run.won(a, gone=set())  # while "dead" counts as alive, its ticket goes first
    run.finish(a, TrialState.COMPLETE)
    assert not run.won(b, gone={"dead"})  # done already
    assert run.finish(b, TrialState.PRUNED) and not run.finish(b, TrialState.FAIL)


def test_a_worker_is_gone_when_it_says_so_when_its_pid_is_gone_or_when_its_heartbeat_stops():
    now = [0.0]
    liveness = Liveness(grace_s=5.0, host="here", clock=lambda: now[0], alive=lambda pid: pid != 2)
    records = {"ok": {"host": "here", "pid": 1, "beats": 1}, "killed": {"host": "here", "pid": 2, "beats": 1},
               "stopped": {"host": "here", "pid": 1, "beats": 1, "state": "stopped"},
               "remote": {"host": "there", "pid": 2, "beats": 1}}
    assert liveness.gone(records) == {"killed", "stopped"}
    now[0] = 6.0
    records["ok"] = {**records["ok"], "beats": 2}
    assert liveness.gone(records) == {"killed", "stopped", "remote"}  # its beats stood still for 6 s


@pytest.mark.parametrize(
    ("text", "replay", "message"),
    [
        ("", True, "expected all or GPU indexes"),
        ("0,,1", True, "expected all or GPU indexes"),
        ("x", True, "'x' is not a GPU index"),
        ("-1", True, "'-1' is not a GPU index"),
        ("0,1,0", True, "GPU 0 is listed twice"),
        ("all", True, "a replay has no GPUs to count"),
        ("0,2", False, "there is no GPU 2; this machine has 2"),
    ],
)
def test_bad_devices_are_named(text, replay, message):
    with pytest.raises(InputError, match=message):
        parse_devices(text, replay, count=lambda: 2)


def test_devices_all_counts_the_gpus():
    assert parse_devices(" all ", False, count=lambda: 3) == (0, 1, 2)
    assert parse_devices("2,0", True) == (2, 0)

    def no_gpu() -> int:
        raise GpuUnavailable("PyCUDA is not installed")

    with pytest.raises(GpuUnavailable):
        parse_devices("all", False, count=no_gpu)


def test_optuna_logs_nothing_about_run_studies(tmp_path, caplog):
    storage, _ = open_storage(str(tmp_path / "q.db"))
    RunStudy.create(storage, _plan(ModelOnly(), name="quiet"))
    assert [s.study_name for s in storage.get_all_studies()] == ["autotune-run/quiet"]
    with pytest.raises(optuna.exceptions.DuplicatedStudyError):
        RunStudy.create(storage, _plan(ModelOnly(), name="quiet"))
    with pytest.raises(InputError, match="--run nosuch: no such run in the storage; runs there: quiet"):
        RunStudy.open(storage, "nosuch")
