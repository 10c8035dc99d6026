"""A study held after its ends (`sweep_graph`'s `hold`), and the bridges and rounds another study
outpaced at their CK, left unmeasured (`plan.outpaced`): issue 68, a budget spent where it can win."""
from __future__ import annotations

from autotune.search import Bayes, SweepSettings, sweep_graph
from autotune.search.run.stages import ATTR_STAGE, CURVE, DONE, HELD
from autotune.search.strategies import ModelOnly
from autotune.search.run.trials import phase_of
from autotune.search.timers.synthetic import SyntheticTimer

LATER = {"curve", "compose", "remeasure"}


def _phases(handle):
    return [phase_of(t) for t in handle.study.get_trials(deepcopy=False)]


def test_a_held_study_stops_after_its_ends_and_goes_on_from_there(small_space, run_sweep, device):
    timer = SyntheticTimer()
    held, handle = run_sweep(timer, small_space, Bayes(trials=12, seed=1), hold=True)
    assert handle.study.user_attrs[ATTR_STAGE] == HELD and not held.partial and held.best is not None
    assert held.finalists == () and not LATER & set(_phases(handle))
    measured, trials = len(timer.calls), len(_phases(handle))
    done = sweep_graph(timer, held_plan(small_space, handle), handle, device)
    assert handle.study.user_attrs[ATTR_STAGE] == DONE and not done.partial
    phases = _phases(handle)
    assert len(timer.calls) > measured and "remeasure" in phases[trials:] and "search" not in phases[trials:]
    assert len(done.finalists) == 3 and all(f.measurements >= 2 for f in done.finalists)


def held_plan(space, handle):
    from autotune.search import GraphPlan
    from autotune.search.run import specials as sp
    from autotune.search.timers.synthetic import synthetic_device, synthetic_graph
    from search_shared import default_specials

    graph = sp.classify_graph(synthetic_graph(), sp.profile_from_json(synthetic_device()))
    return GraphPlan(graph, space, Bayes(trials=12, seed=1), default_specials(), SweepSettings())


def test_rounds_another_study_outpaced_at_their_ck_are_not_measured(small_space, run_sweep):
    settings = SweepSettings(finalists=3, rounds=2)
    free, _ = run_sweep(SyntheticTimer(), small_space, ModelOnly(), settings=settings)
    assert all(f.measurements == 3 for f in free.finalists) and "outpaced" not in free.protocol

    timer = SyntheticTimer()
    faster = {ck: 1e-6 for ck in small_space.concurrent_kernels}  # every CK has a far faster point elsewhere
    beaten, _ = run_sweep(timer, small_space, ModelOnly(), settings=settings, rivals=lambda: faster)
    assert all(f.measurements == 1 for f in beaten.finalists)
    assert beaten.protocol["outpaced"] == {"rounds": 3 * 2}
    assert beaten.best == min(beaten.finalists, key=lambda f: (f.ms_per_sssp, f.config.key()))

    close = {ck: 0.95 * min(f.ms_per_sssp for f in free.finalists) for ck in small_space.concurrent_kernels}
    contended, _ = run_sweep(SyntheticTimer(), small_space, ModelOnly(), settings=settings, rivals=lambda: close)
    assert any(f.measurements == 3 for f in contended.finalists)  # within contender_factor: measured again


def test_bridges_another_study_outpaced_at_their_ck_are_not_measured(small_space, run_sweep):
    from autotune.algorithms.thesis import CRAUSER
    from autotune.search import Specials

    settings = SweepSettings(finalists=1, rounds=1, bridge=True)
    at_four = Specials(CRAUSER.uniform(64, concurrent_kernels=4), prediction=CRAUSER.uniform(128, concurrent_kernels=4))
    plain, handle = run_sweep(SyntheticTimer(), small_space, ModelOnly(), settings=settings, specials=at_four)
    bridged = [p for p in _phases(handle) if p == "curve"]
    assert bridged, "the space's CK values below the best are bridged"

    beaten, handle = run_sweep(SyntheticTimer(), small_space, ModelOnly(), settings=settings, specials=at_four,
                               rivals=lambda: {ck: 1e-6 for ck in small_space.concurrent_kernels})
    assert "curve" not in _phases(handle) and beaten.protocol["outpaced"]["bridges"] == len(bridged)
    assert [p.config.concurrent_kernels for p in beaten.curve] != [p.config.concurrent_kernels for p in plain.curve]


def test_a_study_past_the_run_s_end_goes_on_from_held_without_measuring(small_space, run_sweep):
    from autotune.search.run.plan import Budget

    held, handle = run_sweep(SyntheticTimer(), small_space, ModelOnly(), hold=True)
    assert handle.study.user_attrs[ATTR_STAGE] == HELD
    over = Budget(run_end=0.0, clock=lambda: 1.0)
    timer = SyntheticTimer()
    done = sweep_graph(timer, held_plan(small_space, handle), handle, {"name": "Synthetic GPU"}, budget=over)
    assert handle.study.user_attrs[ATTR_STAGE] == DONE and timer.calls == [] and done.best is not None
    assert done.protocol["cut_by_budget"] == [CURVE, "remeasure"]  # said in the table, as any stage the budget cut


def test_the_rivals_are_the_fastest_verified_points_per_ck_but_references():
    import optuna

    from autotune.algorithms.thesis import CRAUSER
    from autotune.measure import Measurement, Status
    from autotune.search.run.storage import ATTR_BOOKKEEPING
    from autotune.search.run.transfer import fastest_ms_per_ck

    def trial(ck: int, ms: float, roles=(), status=Status.OK):
        measurement = Measurement(CRAUSER.uniform(64, concurrent_kernels=ck), status, times_ms=(ms,) * 3)
        attrs = {"measurement": measurement.to_json(), **({"roles": list(roles)} if roles else {})}
        return optuna.trial.create_trial(value=ms, user_attrs={ATTR_BOOKKEEPING: attrs})

    trials = [trial(1, 5.0), trial(1, 4.0), trial(2, 1.0, roles=("default",)), trial(2, 3.0),
              trial(4, 0.5, roles=("default", "prediction")), trial(8, 0.1, status=Status.WRONG)]
    assert fastest_ms_per_ck(trials) == {1: 4.0, 2: 3.0, 4: 0.5}


class _SlowTimer(SyntheticTimer):
    """Each measurement takes `seconds` of wall time, as a large graph's batch does."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def measure(self, config, stop=None, **options):
        import time

        time.sleep(self.seconds)
        return super().measure(config, stop, **options)


def test_no_trial_begins_that_even_the_study_s_quickest_would_end_past_the_run(small_space, run_sweep):
    """rmat23 at 735bb51: a batch end whose trials took 6.9 to 9.4 s began one 4.4 s before the run's
    end, and the sweep ended 15 s past it."""
    import time

    from autotune.search.run.plan import Budget

    end = time.time() + 0.7  # the study's share ends with the run, as the last study's does
    result, handle = run_sweep(_SlowTimer(0.2), small_space, Bayes(trials=20, seed=1),
                               budget=Budget(run_end=end, slice_end=end, clock=time.time))
    ends = [t.datetime_complete.timestamp() for t in handle.study.get_trials(deepcopy=False) if t.datetime_complete
            and t.datetime_start and (t.datetime_complete - t.datetime_start).total_seconds() > 0.1]
    # a fourth would begin by 0.6 s and end by 0.8; on a loaded machine (a CI beside other work) the study's set-up
    # has left room for one only
    assert 1 <= len(ends) <= 3 and max(ends) <= end + 0.05
    assert "search" in result.protocol["cut_by_budget"] and result.best is not None


def test_no_trial_begins_whose_two_batches_at_the_graph_s_fastest_would_end_past_the_run(small_space, run_sweep):
    """grid24 at d3bc23d: a trial begun with 51 s of the run left had not ended 157 s later (one solve
    at CK 1 took 68.8 ms; a batch the budget stops measures nothing)."""
    from autotune.search.run.plan import Budget
    from autotune.search.run.storage import ATTR_REASON

    def sweep(rivals):  # 6 ms left, and always 6 ms left: the budget ends nothing by itself
        timer = SyntheticTimer()
        result, handle = run_sweep(timer, small_space, Bayes(trials=12, seed=1), rivals=rivals,
                                   budget=Budget(run_end=1.0, slice_end=1.0, clock=lambda: 0.994))
        return timer, result, handle

    timer, result, _ = sweep(None)  # its own 2 to 4 ms per SSSP: two batches of 2 or 4 take 8 ms and more
    assert {c.concurrent_kernels for c in timer.calls} == {1}
    timer, result, handle = sweep(lambda: {8: 1.0})  # another study's 1 ms per SSSP: CK 1 and 2 fit, CK 4 does not
    assert {c.concurrent_kernels for c in timer.calls} == {1, 2} and result.best is not None
    said = [t.user_attrs.get(ATTR_REASON, "") for t in handle.study.get_trials(deepcopy=False)]
    assert any(s.startswith("pruned: foreseen past the sweep's budget: two batches of 4 SSSPs at 1 ms each take")
               for s in said)


def test_the_quickest_trial_is_one_that_measured():
    """Answered from an earlier measurement (cached) or refused before any: no time a trial takes."""
    import datetime

    import optuna
    from optuna.distributions import IntDistribution
    from optuna.trial import TrialState, create_trial

    from autotune.search.run.stages import quickest_trial_s

    start = datetime.datetime(2026, 11, 29, 12, 0, 0)

    def trial(seconds, state=TrialState.COMPLETE, cached=False, warm_up=True):
        made = create_trial(state=state, value=1.0 if state is TrialState.COMPLETE else None,
                            params={"x": 1}, distributions={"x": IntDistribution(0, 2)},
                            user_attrs={"autotune": {"cached": cached}},
                            intermediate_values={0: 1.0} if warm_up else {})
        made.datetime_start, made.datetime_complete = start, start + datetime.timedelta(seconds=seconds)
        return made

    study = optuna.create_study()
    assert quickest_trial_s(study) == 0.0
    for made in (trial(7.5), trial(0.01, cached=True), trial(0.0, TrialState.PRUNED, warm_up=False),
                 trial(6.9, TrialState.PRUNED)):
        study.add_trial(made)
    assert quickest_trial_s(study) == 6.9


def test_a_trial_slower_than_the_graph_s_fastest_at_a_smaller_ck_is_pruned_as_dominated(small_space, run_sweep):
    """grid24 at 0a78e87: delta_lanes' first batch-end trial ran its warm-up 105 s at 2.5 s per SSSP,
    where Δ-stepping had verified 68.3 ms at CK 1; nothing bounded it, its study having no best yet."""
    import dataclasses

    from autotune.algorithms.thesis import CRAUSER
    from autotune.measure import Status
    from autotune.search.run.storage import ATTR_REASON
    from search_shared import default_specials
    from optuna.trial import TrialState

    settings = SweepSettings(prune=True)
    specials = dataclasses.replace(default_specials(), prediction=CRAUSER.uniform(128, "prefer_l1", 4))
    free, _ = run_sweep(SyntheticTimer(), small_space, Bayes(trials=12, seed=1), settings=settings, specials=specials)
    assert {p.config.concurrent_kernels for p in free.curve} == {1, 2, 4}

    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=12, seed=1), settings=settings,
                               specials=specials, rivals=lambda: {2: 1e-3})  # another study's CK 2: far faster
    trials = handle.study.get_trials(deepcopy=False)
    said = [t.user_attrs.get(ATTR_REASON, "") for t in trials]
    assert any("dominated, the graph's fastest at CK 4 or less is 0.001 ms per SSSP" in s for s in said)
    assert {p.config.concurrent_kernels for p in result.curve} == {1}  # CK 1 has nothing faster at its CK or below
    assert all(t.state is not TrialState.COMPLETE for t in trials if t.params.get("concurrent_kernels_log2", 0) > 0)
    assert free.predicted.ok and result.predicted.status is Status.PRUNED  # a special too (the prediction)
    assert "dominated" in result.predicted.reason


def test_a_study_whose_first_trials_are_all_dominated_is_abandoned(small_space, run_sweep):
    """grid24's delta_lanes: every CK of its space dominated by another study's CK 1 (here 1e-6 ms
    per SSSP): its first `ABANDON_AFTER` trials, specials included, are pruned and it is given up."""
    from autotune.algorithms.thesis import CRAUSER
    from autotune.search import Specials
    from autotune.search.run.sweep import ABANDON_AFTER

    specials = Specials(CRAUSER.uniform(128, "default", 2), prediction=CRAUSER.uniform(256, "default", 4))
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=30, seed=1),
                               settings=SweepSettings(prune=True), specials=specials, rivals=lambda: {1: 1e-6})
    trials = handle.study.get_trials(deepcopy=False)
    assert len(trials) == ABANDON_AFTER and result.best is None and not result.partial
