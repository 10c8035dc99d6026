"""Strategies on the synthetic landscape: known optimum, budget, enqueued trials, failures."""
from __future__ import annotations

import dataclasses
import importlib.util

import optuna
import pytest
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.measure import Ask, Measurement, Status
from autotune.search import (
    Bayes,
    Exhaustive,
    GraphPlan,
    ModelOnly,
    SearchSpace,
    StudyKey,
    SweepSettings,
    composed_candidates,
    make_sampler,
    make_strategy,
)
from autotune.search.space.neighbours import neighbourhood
from autotune.search.run.sweep import ABANDON_AFTER
from autotune.search.run.trials import ATTRS
from autotune.search.timers.synthetic import SyntheticLandscape, SyntheticTimer
from autotune.launch import LaunchConfig
from autotune.algorithms.thesis import CRAUSER

from search_shared import SMALL_SPACE, default_specials


def test_exhaustive_finds_the_known_optimum(small_space, run_sweep):
    optimum, optimum_ms = SyntheticLandscape().optimum(small_space)
    timer = SyntheticTimer()
    result, _ = run_sweep(timer, small_space, Exhaustive())
    assert result.best.config == optimum
    assert result.best.ms_per_sssp == pytest.approx(optimum_ms)
    # every uniform point once, plus the prediction (not uniform), the composed winners that are
    # new, and 3 rounds over 3 finalists; nothing measured twice outside the re-measurement
    search_calls = [c.key() for c in timer.calls[: len(timer.calls) - 9]]
    assert len(search_calls) == len(set(search_calls))
    assert {c.key() for c in small_space.uniform_configs()} <= set(search_calls)
    assert result.evaluations == len(timer.calls)
    assert result.speedup_over_default > 1 and result.speedup_over_baseline >= result.speedup_over_default


def test_exhaustive_composes_each_kernel_from_its_own_times(small_space, run_sweep):
    result, handle = run_sweep(SyntheticTimer(), small_space, Exhaustive(compose_top=1))
    composed = [t for t in handle.study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "compose"]
    assert len(composed) == 1
    config = LaunchConfig.from_json(composed[0].user_attrs[ATTRS]["config"])
    assert (config.relax.block_size, config.minimum.block_size, config.update.block_size) == (128, 256, 64)
    assert result.best.config == config


def test_bayes_gets_close_with_a_fraction_of_the_grid(small_space, run_sweep):
    _, optimum_ms = SyntheticLandscape().optimum(small_space)
    timer = SyntheticTimer(noise=0.01)
    result, _ = run_sweep(timer, small_space, Bayes(trials=60, seed=1))
    assert result.best.ms_per_sssp <= optimum_ms * 1.05
    assert result.trials >= 60
    assert result.evaluations <= 60 + 3 * 3  # duplicates are answered from earlier measurements


def test_enqueued_trials_come_first(small_space, run_sweep):
    specials = default_specials()
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=12, seed=0), specials=specials)
    count = len(specials.ordered())
    assert count == 4  # the default is also a baseline candidate
    around = neighbourhood(specials.prediction, small_space)
    assert around  # the prediction's neighbours come right after it, before the other specials
    first = [LaunchConfig.from_json(t.user_attrs[ATTRS]["config"]) for t in handle.study.trials[:count + len(around)]]
    assert first == [specials.prediction, *around, *specials.ordered()[1:]]
    roles = [t.user_attrs[ATTRS].get("roles", []) for t in handle.study.trials[:count + len(around)]]
    assert roles == [["prediction"], *([[]] * len(around)), ["default", "baseline_candidate"], ["baseline_candidate"],
                     ["baseline_candidate"]]
    assert result.default.config == CRAUSER.default_config()
    assert result.predicted.config == specials.prediction


def test_specials_outside_the_space_are_measured_as_trials_of_their_own(small_space, run_sweep):
    specials = default_specials()
    outside = CRAUSER.uniform(512, "prefer_shared", 8, 8)
    specials = dataclasses.replace(specials, prediction=outside)
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=8), specials=specials)
    fixed = [t for t in handle.study.trials if t.user_attrs[ATTRS]["phase"] == "fixed"]
    assert len(fixed) == 1 and fixed[0].params == {}
    assert LaunchConfig.from_json(fixed[0].user_attrs[ATTRS]["config"]) == outside
    assert result.predicted.config == outside and result.model_gap > 0


def test_invalid_and_wrong_are_told_as_pruned_with_their_reason_and_never_win(run_sweep):
    space = SearchSpace.from_options("crauser", block_sizes="32,64,1024", caches="prefer_l1,no_l1", ck="1,4", lanes="1")
    fastest = CRAUSER.uniform(64, "no_l1", 4, 1)
    timer = SyntheticTimer(flaky=(fastest,))  # ok and 5x faster the first time, wrong afterwards
    result, handle = run_sweep(timer, space, Exhaustive())
    failed = [t for t in handle.study.trials if "fail_reason" in t.user_attrs]
    reasons = {t.user_attrs["fail_reason"].split(":")[0] for t in failed}
    assert reasons == {"invalid", "wrong"}
    assert all(t.state is TrialState.PRUNED and t.value is None and not t.intermediate_values for t in failed)
    assert result.best is not None and result.best.config != fastest
    assert fastest.key() in {c.config.key() for c in result.finalists}
    assert all(c.status is Status.WRONG for c in result.finalists if c.config == fastest)
    assert result.best.ok


def test_the_sampler_learns_from_a_refused_point_instead_of_proposing_it_again(run_sweep):
    """TPE ignores FAIL trials: told as failed, one refused configuration took 30 of this sweep's 50
    trials (answered again and again from its first measurement); told as pruned, it is left."""
    space = SearchSpace.from_options("crauser", block_sizes="32,64,128,256,512,1024", caches="default,prefer_l1,no_l1",
                                     ck="1,4,16,64", lanes="1,4")
    result, handle = run_sweep(SyntheticTimer(), space, Bayes(trials=40, seed=1), settings=SweepSettings(prune=True))
    refused = [t for t in handle.study.trials if t.user_attrs.get("fail_reason", "").startswith("invalid")]
    assert len(refused) <= 5, len(refused)
    assert result.best is not None and result.best.ms_per_sssp < 2.5  # 2.58 when it was stuck


def test_model_strategy_measures_only_the_specials(small_space, run_sweep):
    timer = SyntheticTimer()
    specials = default_specials()
    result, handle = run_sweep(timer, small_space, ModelOnly(), specials=specials,
                               settings=SweepSettings(finalists=2, rounds=1))
    assert result.evaluations == len(specials.ordered()) + 2
    assert {c.key() for c in timer.calls} == {c.key() for c in specials.ordered()}
    assert result.baseline.ms_per_sssp == max(c.ms_per_sssp for c in result.baseline_candidates)


def test_finalists_are_measured_again_interleaved(small_space, run_sweep):
    timer = SyntheticTimer(noise=0.02)
    result, _ = run_sweep(timer, small_space, ModelOnly(), settings=SweepSettings(finalists=3, rounds=2))
    tail = [c.key() for c in timer.calls[-6:]]
    assert tail[:3] == tail[3:] and len(set(tail)) == 3
    assert all(c.measurements == 3 for c in result.finalists)
    assert result.best.ms_per_sssp == min(c.ms_per_sssp for c in result.finalists)
    assert len(result.best.times_ms) == 3 * 3


def test_composed_candidates_rank_by_estimate():
    def m(block, ck, relax, minimum, update, other=0.5):
        config = CRAUSER.uniform(block, concurrent_kernels=ck)
        kernel_ms = {"relax": relax, "minimum": minimum, "update": update}
        return Measurement(config, Status.OK, times_ms=(relax + minimum + update + other,), kernel_ms=kernel_ms)

    space = SearchSpace.from_options("crauser", block_sizes="64,128", caches="default", ck="1,2", lanes="1")
    runs = [m(64, 1, 1.0, 2.0, 3.0), m(128, 1, 2.0, 1.0, 1.0), m(64, 2, 0.5, 0.5, 0.5), m(128, 2, 0.4, 0.6, 0.6)]
    ranked = composed_candidates({r.config.key(): [r] for r in runs}, space)
    assert [c.concurrent_kernels for c in ranked] == [2, 1]
    assert (ranked[0].relax.block_size, ranked[0].minimum.block_size) == (128, 64)
    assert (ranked[1].relax.block_size, ranked[1].minimum.block_size, ranked[1].update.block_size) == (64, 128, 128)


def test_exhaustive_enqueues_every_grid_point_once_in_a_fixed_order(small_space):
    specials = default_specials().ordered()
    first = Exhaustive().first_trials(small_space, specials)
    grid = small_space.uniform_configs()
    assert len(first) == len(set(first)) and set(grid) <= set(first)
    assert first == Exhaustive().first_trials(small_space, specials)
    assert small_space.uniform_size == len(grid) == 3 * 3 * 3 * 2


def test_an_exhaustive_grid_too_large_to_run_is_refused_with_a_hint():
    space = SearchSpace.from_options("delta")  # every block size, cache, CK and parameter value
    assert space.uniform_size > 20_000
    with pytest.raises(InputError, match="narrow it with"):
        Exhaustive().first_trials(space, [])


def test_make_strategy_and_sampler_errors():
    assert make_strategy("bayes").trials == 100
    assert make_strategy("bayes", 7, "random").label == "bayes-random"
    with pytest.raises(InputError, match="--strategy"):
        make_strategy("annealing")
    with pytest.raises(InputError, match="--trials"):
        make_strategy("bayes", 0)
    assert isinstance(make_sampler("random", 1), optuna.samplers.RandomSampler)
    if importlib.util.find_spec("torch") is None:
        with pytest.raises(InputError, match="pip install torch"):
            make_sampler("gp", 0)
    if importlib.util.find_spec("cmaes") is None:
        with pytest.raises(InputError, match="pip install cmaes"):
            make_sampler("cmaes", 0)


@pytest.mark.parametrize("sampler", ["random", "cmaes", "gp"])
def test_other_samplers_run_the_joint_space(sampler, small_space, run_sweep):
    module = {"cmaes": "cmaes", "gp": "torch"}.get(sampler)
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    result, _ = run_sweep(SyntheticTimer(), small_space, Bayes(trials=15, sampler_name=sampler, seed=0))
    assert result.best is not None and result.trials >= 15


def test_when_every_finalist_fails_the_best_ok_configuration_wins(small_space, run_sweep):
    specials = default_specials()
    fastest = specials.prediction
    result, _ = run_sweep(SyntheticTimer(flaky=(fastest,)), small_space, ModelOnly(), specials=specials,
                          settings=SweepSettings(finalists=1, rounds=2))
    assert [f.config for f in result.finalists] == [fastest] and not result.finalists[0].ok
    assert result.best is not None and result.best.ok and result.best.config != fastest


def test_a_special_outside_the_narrowed_space_is_reported_but_never_the_best(small_space, run_sweep):
    outside = CRAUSER.uniform(512, "prefer_shared", 8, 8)  # CK 8: outside --ck 1,2,4

    class FastOutside(SyntheticTimer):
        def measure(self, config, stop=None, **options):
            measured = super().measure(config, stop)
            if config == outside:
                return dataclasses.replace(measured, times_ms=tuple(t / 100 for t in measured.times_ms))
            return measured

    specials = dataclasses.replace(default_specials(), prediction=outside)
    result, _ = run_sweep(FastOutside(), small_space, Exhaustive(), specials=specials)
    assert result.predicted.config == outside and result.predicted.ms_per_sssp < result.best.ms_per_sssp
    assert small_space.contains(result.best.config) and result.best.config != outside


@pytest.mark.parametrize("elsewhere", [None, 1e-6])
def test_an_auto_sweep_prunes_the_specials_of_an_algorithm_once_another_has_a_best(device, graph, elsewhere):
    """The first algorithm of a graph (nothing elsewhere) measures its specials whole; a later one,
    against another algorithm's far better best, stops them after the warm-up, and gives up once
    its first trials were all pruned."""
    from autotune.search import open_storage, open_study, sweep_graph

    space = SearchSpace.from_options("crauser", **SMALL_SPACE)
    strategy = make_strategy("bayes", 30, "tpe", 0)
    storage, url = open_storage("memory")
    key = StudyKey(graph.sha256, "crauser", device["name"], strategy.label, space.digest(), {"repetitions": 3})
    handle = open_study(storage, url, key, strategy.sampler(space), resume=False)
    plan = GraphPlan(graph, space, strategy, default_specials(), SweepSettings(prune=True))
    result = sweep_graph(SyntheticTimer(), plan, handle, device,
                         best_elsewhere=None if elsewhere is None else (lambda: elsewhere))
    if elsewhere is None:
        assert result.default is not None and result.default.ok
        assert len(handle.study.trials) > ABANDON_AFTER
    else:
        assert result.default is not None and result.default.status is Status.PRUNED
        assert all(t.state is TrialState.PRUNED for t in handle.study.trials)
        assert result.best is None  # a pruned trial never wins
        # abandoned after ABANDON_AFTER pruned trials, out of 30 + the specials, and not partial
        assert len(handle.study.trials) == ABANDON_AFTER and not result.partial


def test_a_special_far_behind_the_best_is_timed_whole_once(small_space, run_sweep):
    """Pruning on: a reference (the baseline candidates, 100x slower here) is never pruned, and
    once a repetition finds it as far behind the best as a pruned trial would be, its repetitions
    end there (one whole repetition); what is close to the best (the prediction) repeats as the
    noise asks (here: the cap). Pruning off: every configuration to the cap."""
    specials = default_specials()
    slow = set(specials.baseline_candidates) - {specials.prediction}

    class AdaptiveTimer(SyntheticTimer):  # the GPU timer's loop: ask after each repetition
        cap = 5

        def __init__(self):
            super().__init__()
            self.repetitions_of = {}

        def measure(self, config, stop=None, **options):
            measured = super().measure(config)
            if not measured.ok:
                return measured
            each = measured.times_ms[0] * (100 if config in slow else 1)
            times = []
            while len(times) < self.cap:
                times.append(each)
                answer = stop(times, False) if stop is not None else Ask.GO_ON
                if answer is Ask.PRUNE:
                    return dataclasses.replace(measured, status=Status.PRUNED, times_ms=tuple(times))
                if answer is Ask.ENOUGH:
                    break
            self.repetitions_of.setdefault(config, len(times))  # the first: re-measurement rounds take one
            return dataclasses.replace(measured, times_ms=tuple(times))

    for prune, slow_repetitions in ((True, 1), (False, AdaptiveTimer.cap)):
        timer = AdaptiveTimer()
        result, _ = run_sweep(timer, small_space, ModelOnly(), specials=specials,
                              settings=SweepSettings(prune=prune))
        assert result.baseline is not None and result.baseline.ok
        whole = [c for c in slow if c in timer.repetitions_of]  # with pruning, the others were probed
        assert {timer.repetitions_of[c] for c in whole} == {slow_repetitions}
        assert len(whole) == (2 if prune else len(slow))  # the default, and the slowest candidate
        assert timer.repetitions_of[specials.prediction] == AdaptiveTimer.cap


def test_only_a_sampler_that_proposes_points_is_told_the_enqueued_values(small_space, run_sweep):
    """Each suggested value is a write to the storage: an exhaustive sweep's enqueued trials keep
    their configuration in their task alone, a Bayesian one's also as parameters for the sampler."""
    for strategy, told in ((Exhaustive(), False), (Bayes(trials=12, seed=0), True)):
        _, handle = run_sweep(SyntheticTimer(), small_space, strategy)
        enqueued = [t for t in handle.study.get_trials() if "autotune:task" in t.user_attrs and t.state.is_finished()]
        assert enqueued and all(bool(t.params) is told for t in enqueued), strategy.name


def test_a_search_of_one_query_starts_from_the_algorithm_s_own_shapes_for_it():
    from autotune.search.strategies import initial_design
    from autotune.algorithms import get
    from autotune.model import GraphFeatures

    graph = GraphFeatures("g", 100_000, 300_000, max_degree=10, mean_weight=50, min_positive_weight=1, max_weight=100)
    latency = SearchSpace.from_options("delta", ck="1", graph=graph)
    design = initial_design(latency)
    assert design[: len(get("delta").latency_design(latency))] == get("delta").latency_design(latency)
    assert {c.param("blocks") for c in design[:6]} == {1, 128, 256} and all(c.concurrent_kernels == 1 for c in design)
    assert design[0].param("blocks") == 128  # measured first: one block on a large graph is the slow shape
    sizes = {c.param("blocks"): c.kernel("advance").block_size for c in design[:6]}
    assert sizes[256] * 2 == sizes[128] == sizes[1]  # twice the blocks of half the size: the same threads
    batches = SearchSpace.from_options("delta", graph=graph)
    assert not any(c.param("blocks") == 128 for c in initial_design(batches))  # batches: the plain design
    assert {c.param("defer_work") for c in design} == {"off"}  # no vertex of 32 edges: nothing deferred
    skewed = SearchSpace.from_options("delta", ck="1", graph=dataclasses.replace(graph, max_degree=4000))
    grids = [c for c in get("delta").latency_design(skewed) if c.param("blocks") == 128]
    assert [c.param("defer_work") for c in grids] == ["off", 400, "off", 400]  # 4 x the largest weight, 100
    assert all(c.param("defer_work") == "off" for c in get("delta").latency_design(skewed) if c.param("blocks") == 1)


def test_a_search_of_a_few_queries_starts_from_their_instances_spread_over_a_grid():
    from autotune.algorithms import get
    from autotune.search.strategies import initial_design

    graph = _design_graph()
    few = SearchSpace.from_options("delta", ck="2,4,8,16", graph=graph)
    assert few.few_queries and not SearchSpace.from_options("delta", ck="1,2,4", graph=graph).few_queries
    design = initial_design(few)
    spread = [(c.concurrent_kernels, c.param("blocks")) for c in design if c.param("warp_threshold") == "off"]
    assert {(2, 64), (4, 32), (8, 16), (16, 8)} <= set(spread)
    own = get("delta").latency_design(few)
    one_block = {c.concurrent_kernels for c in own if c.param("blocks") == 1 and c.param("loop") == "persistent"}
    assert one_block == {16}  # the largest CK also gets one block per instance, as one query does
    assert [c.concurrent_kernels for c in own] == sorted((c.concurrent_kernels for c in own), reverse=True)
    assert [c.param("delta") for c in own if c.param("blocks") == 1][-1] == "inf"  # one block: a finite Δ first
    assert all(c.concurrent_kernels * c.param("blocks") <= 128 for c in design)


def _design_graph():
    from autotune.model import GraphFeatures

    return GraphFeatures("g", 100_000, 300_000, max_degree=10, mean_weight=50, min_positive_weight=1, max_weight=100)


def test_a_bayesian_search_measures_its_best_s_neighbours_along_the_block_size(small_space, run_sweep):
    from autotune.search.space.neighbours import block_neighbours

    result, _ = run_sweep(SyntheticTimer(), small_space, Bayes(trials=10, seed=0))
    searched = [e for e in result.log if e.phase == "search" and e.measurement.ok]
    assert any(e.phase == "refine" for e in result.log)
    measured = {e.config.key() for e in result.log}
    best_of_sampling = min((e for e in searched[:10]), key=lambda e: e.measurement.ms_per_sssp).config
    neighbours = block_neighbours(best_of_sampling, small_space)
    assert neighbours and all(c.key() in measured for c in neighbours)
    sizes = {launch.block_size for c in neighbours for launch in c.kernels.values()}
    assert sizes <= set(small_space.block_sizes)


def test_patience_ends_a_converged_search_before_its_trial_budget(small_space, run_sweep):
    """With patience, the sampler stops once that many finished trials in a row bettered nothing by
    1% (after as many of its own): the search ends early, near the same best, and says when."""
    _, optimum_ms = SyntheticLandscape().optimum(small_space)
    whole, _ = run_sweep(SyntheticTimer(noise=0.01), small_space, Bayes(trials=200, seed=1))
    patient, handle = run_sweep(SyntheticTimer(noise=0.01), small_space, Bayes(trials=200, seed=1),
                                settings=SweepSettings(patience=12))
    converged = handle.study.user_attrs["converged_after"]
    assert patient.trials < whole.trials and converged < whole.trials
    assert patient.best.ms_per_sssp <= optimum_ms * 1.05
    assert patient.protocol["converged_after"] == converged and "converged_after" not in whole.protocol


def _patient_sweeps(run_sweep, space, trials: int, enough: int):
    """Two patient sweeps of `trials` sampled trials, without and with `enough`: the first's result,
    the second's, its study handle and its verified configurations at its best's CK."""
    settings = SweepSettings(patience=12)
    plain, _ = run_sweep(SyntheticTimer(noise=0.01), space, Bayes(trials=trials, seed=1), settings=settings)
    thorough, handle = run_sweep(SyntheticTimer(noise=0.01), space, Bayes(trials=trials, seed=1),
                                 settings=dataclasses.replace(settings, enough=enough))
    ck = thorough.best.config.concurrent_kernels
    return plain, thorough, handle, {e.config.key() for e in thorough.log
                                     if e.measurement.ok and e.config.concurrent_kernels == ck}


def test_a_search_leading_its_end_converges_only_with_enough_configurations_at_its_best_s_ck(small_space, run_sweep):
    """Issue 68: at least 30 configurations verified at each end of the curve. Patience alone ended
    grid22's PHAST studies with 22 and 11 at 83 s of a 110-s budget; with `enough` the leading study
    samples on until its best's CK has that many (where its trial budget allows)."""
    patient, thorough, handle, verified = _patient_sweeps(run_sweep, small_space, 200, 40)
    assert len(verified) >= 40 and thorough.trials > patient.trials
    assert handle.study.user_attrs["converged_after"] <= thorough.trials


def test_a_search_short_of_enough_configurations_samples_past_its_trial_budget(small_space, run_sweep):
    """Issue 68: a leading end short of `enough` verified configurations at its best's CK samples on
    past its strategy's trials (rmat22's latency end at 02935ed verified 13 in its 40), up to
    `SAMPLED_WHILE_SHORT` x enough in all, the budget kept in the study."""
    from autotune.search.run.plan import SAMPLED_WHILE_SHORT

    plain, extended, handle, verified = _patient_sweeps(run_sweep, small_space, 10, 20)
    assert len(verified) >= 20 and extended.trials > plain.trials
    assert 10 < handle.study.user_attrs["sampled_budget"] <= SAMPLED_WHILE_SHORT * 20


def test_converged_after_counts_trials_without_a_gain():
    from autotune.search.run.plan import converged_after

    assert converged_after([5.0, 4.0, 4.0, 4.0], 2) == 4
    assert converged_after([5.0, None, None], 2) == 3  # pruned and failed trials gain nothing
    assert converged_after([5.0, 4.0, 3.0], 0) is None
