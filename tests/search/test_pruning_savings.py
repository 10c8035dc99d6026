"""What pruning saves besides pruned trials (`search.trials`' docstring): the baseline candidates
probed on their warm-up, the repetitions of configurations out of contention, the re-measurement
rounds of one repetition (and one round of long batches), and the warm-up's time limit handed to
the timer."""
from __future__ import annotations

from collections import Counter
from typing import Callable

import pytest

from autotune.algorithms.thesis import CRAUSER
from autotune.launch import LaunchConfig
from autotune.measure import Ask, Measurement, Status
from autotune.search import SearchSpace, SweepSettings
from autotune.search.strategies import Bayes, Exhaustive, ModelOnly

from search_shared import default_specials

SLOW = {CRAUSER.uniform(64).key(): 100.0, CRAUSER.uniform(128).key(): 120.0, CRAUSER.default_config().key(): 90.0}


class ScriptedTimer:
    """Times each configuration at `ms(config)` per SSSP (by default SLOW's times, 1.0 for the rest)
    and asks `stop` as the GPU timer does: at the warm-up (a part of the sample), then after each
    repetition up to `cap`."""

    def __init__(self, ms: Callable[[LaunchConfig], float] = lambda c: SLOW.get(c.key(), 1.0), cap: int = 4) -> None:
        self.ms = ms
        self.cap = cap
        self.calls: list[tuple[object, float | None, bool]] = []

    def measure(self, config, stop=None, *, limit_ms=None, profile=True):
        self.calls.append((config, limit_ms, profile))
        ms = self.ms(config)
        if stop is not None and stop((ms,), True) is Ask.PRUNE:
            return Measurement(config, Status.PRUNED, times_ms=(ms,), reason="pruned after the warm-up", warm_up_ms=ms)
        times: list[float] = []
        while len(times) < self.cap:
            times.append(ms)
            answer = stop(times, False) if stop is not None else Ask.GO_ON
            if answer is Ask.PRUNE:
                return Measurement(config, Status.PRUNED, times_ms=tuple(times), warm_up_ms=ms)
            if answer is Ask.ENOUGH:
                break
        return Measurement(config, Status.OK, times_ms=tuple(times), kernel_ms={"relax": ms} if profile else {},
                           warm_up_ms=ms)


def phases_of(result, key):
    return [e.phase for e in result.log if e.config.key() == key]


def test_far_behind_candidates_are_probed_and_only_the_slowest_is_measured_whole(small_space, run_sweep):
    timer = ScriptedTimer()
    result, _ = run_sweep(timer, small_space, ModelOnly(), specials=default_specials(),
                          settings=SweepSettings(prune=True))
    slowest, probed = CRAUSER.uniform(128), CRAUSER.uniform(64)
    assert phases_of(result, slowest.key())[:2] == ["probe", "search"]  # probed, then measured whole
    assert phases_of(result, probed.key()) == ["probe"]
    assert result.baseline is not None and result.baseline.config == slowest and result.baseline.ok
    (whole,) = [e for e in result.log if e.config == slowest and e.phase == "search"]
    assert len(whole.measurement.times_ms) == 1  # out of contention: one repetition
    (candidate,) = [c for c in result.baseline_candidates if c.config == probed]
    assert candidate.status is Status.PRUNED and candidate.reason.startswith("probed")
    assert result.default is not None and result.default.ok  # the default is measured whole for its own entry


def test_without_pruning_every_candidate_is_measured_whole(small_space, run_sweep):
    result, _ = run_sweep(ScriptedTimer(), small_space, ModelOnly(), specials=default_specials(),
                          settings=SweepSettings(prune=False))
    assert all(e.phase != "probe" for e in result.log)
    assert all(c.ok for c in result.baseline_candidates)
    assert result.baseline.config == CRAUSER.uniform(128)


def test_a_candidate_in_contention_is_measured_whole_and_can_win(small_space, run_sweep):
    contender = CRAUSER.uniform(64)
    timer = ScriptedTimer(lambda c: 0.5 if c == contender else SLOW.get(c.key(), 1.0))  # faster than the prediction
    result, _ = run_sweep(timer, small_space, ModelOnly(), specials=default_specials(),
                          settings=SweepSettings(prune=True))
    assert phases_of(result, contender.key())[0] == "probe"
    assert result.best is not None and result.best.config == contender


@pytest.mark.parametrize("prune", [True, False])
def test_re_measurement_rounds_take_one_repetition_without_the_profile_when_pruning(small_space, run_sweep, prune):
    timer = ScriptedTimer()
    result, _ = run_sweep(timer, small_space, ModelOnly(), specials=default_specials(),
                          settings=SweepSettings(prune=prune))
    rounds = [e for e in result.log if e.phase == "remeasure"]
    assert len(rounds) == 9
    assert {len(e.measurement.times_ms) for e in rounds if e.config == result.best.config} == {1 if prune else 4}
    assert all((not e.measurement.kernel_ms) is prune for e in rounds)
    assert result.best.kernel_ms  # the search's profile stays
    assert len(result.best.times_ms) == 4 + 3 * (1 if prune else 4)  # every repetition pooled


@pytest.mark.parametrize("ms, rounds", [(40.0, 1), (1.0, 3)])
def test_finalists_whose_batches_are_long_are_re_measured_in_one_round(run_sweep, ms, rounds):
    """Batches of the whole sample of a second or more (40 ms x CK 32: 1.28 s) spread within 1% (rmat22's
    batch end): one round of the finalists, not three; 1 ms x 32 keeps three."""
    space = SearchSpace.from_options("crauser", block_sizes="64,128,256", caches="default", ck="32", lanes="1")
    result, _ = run_sweep(ScriptedTimer(lambda c: ms), space, Exhaustive(), specials=default_specials(),
                          settings=SweepSettings(prune=True))
    again = Counter(e.config.key() for e in result.log if e.phase == "remeasure")
    assert len(again) == 3 and set(again.values()) == {rounds}


def test_out_of_contention_trials_stop_after_one_repetition_and_the_warm_up_gets_the_bound(small_space, run_sweep):
    timer = ScriptedTimer(lambda c: SLOW.get(c.key(), 1.3 if c.lanes == 4 else 1.0))
    result, handle = run_sweep(timer, small_space, Bayes(trials=16, seed=0), specials=default_specials(),
                               settings=SweepSettings(prune=True, contender_factor=1.1))
    searched = [e for e in result.log if e.phase == "search" and not e.roles and e.measurement.ok]
    # the prediction's neighbours (lanes 4, as it) come before any trial at 1.0: in contention then
    first_fast = next(i for i, e in enumerate(result.log) if e.measurement.ok and e.measurement.times_ms[0] <= 1.0)
    behind = [e for e in searched if e.measurement.times_ms[0] > 1.1 and result.log.index(e) > first_fast]
    assert behind and all(len(e.measurement.times_ms) == 1 for e in behind)
    assert all(len(e.measurement.times_ms) == 4 for e in searched if e not in behind)
    limits = [limit for config, limit, _profile in timer.calls if config.key() not in SLOW and limit is not None]
    assert limits and set(limits) == {1.5 * 1.3, 1.5 * 1.0}  # 1.5 x the best so far: the prediction's, then 1.0



def test_probes_count_in_the_trial_budget_as_the_candidates_did(small_space, run_sweep):
    from autotune.search.run.trials import task_of

    sampled = {}
    for prune in (True, False):
        _, handle = run_sweep(ScriptedTimer(), small_space, Bayes(trials=16, seed=0), specials=default_specials(),
                              settings=SweepSettings(prune=prune))
        sampled[prune] = sum(1 for t in handle.study.trials if task_of(t) is None)
    assert sampled[True] == sampled[False] > 0


def test_a_study_that_prunes_its_references_never_measures_those_outside_its_space(small_space, run_sweep):
    """The queries curve's middle (CK 2 to 16) measures no default or baseline candidate of CK 1:
    the batch end reports them, and the first measured would have no incumbent to be pruned against."""
    import dataclasses

    middle = dataclasses.replace(small_space, concurrent_kernels=(2, 4))
    specials = default_specials()
    specials = dataclasses.replace(specials, prediction=specials.prediction.replace(concurrent_kernels=2))
    timer = ScriptedTimer()
    result, _ = run_sweep(timer, middle, Bayes(trials=8, seed=0), specials=specials,
                          settings=SweepSettings(prune=True, prune_references=True))
    assert timer.calls and all(config.concurrent_kernels in (2, 4) for config, _limit, _profile in timer.calls)
    assert all(e.phase != "fixed" for e in result.log) and result.best is not None
    batch, _ = run_sweep(ScriptedTimer(), middle, Bayes(trials=8, seed=0), specials=specials,
                         settings=SweepSettings(prune=True))
    assert any(e.phase == "fixed" for e in batch.log)  # without: measured as references


@pytest.mark.parametrize("prune", [True, False])
def test_a_measurement_in_flight_when_the_budget_ends_stops_at_its_next_step(small_space, run_sweep, prune):
    """The budget's end reaches into the measurement in hand: one whole repetition ends it (a
    measurement still), and a warm-up is pruned; nothing more is measured after it."""
    from autotune.search.run.plan import Budget
    from autotune.search.run.pruning import BudgetStop

    over = [False]
    assert BudgetStop(None, lambda: over[0])((1.0,), True) is Ask.GO_ON
    assert BudgetStop(lambda t, w: Ask.PRUNE, lambda: over[0])((1.0,), False) is Ask.PRUNE
    over[0] = True
    assert BudgetStop(lambda t, w: Ask.GO_ON, lambda: over[0])((1.0,), True) is Ask.PRUNE
    assert BudgetStop(None, lambda: over[0])((1.0,), False) is Ask.ENOUGH

    clock = [0.0]

    class Ending(ScriptedTimer):  # the budget ends once the first measurement's warm-up is done
        def measure(self, config, stop=None, **options):
            def ask(times_ms, warm_up):
                answer = stop(times_ms, warm_up)
                clock[0] = 10.0
                return answer

            return super().measure(config, ask, **options)

    timer = Ending()
    budget = Budget(run_end=5.0, clock=lambda: clock[0])
    budget.share(1.0, 1.0)  # the one study's slice: the whole run
    result, _ = run_sweep(timer, small_space, Bayes(trials=16, seed=0), specials=default_specials(),
                          settings=SweepSettings(prune=prune), budget=budget)
    first, *later = [e.measurement for e in result.log]
    assert first.status is Status.OK and len(first.times_ms) == 1  # one repetition, not four
    assert all(m.status is Status.PRUNED and m.reason == "the sweep's budget ended it (pruned after the warm-up)"
               for m in later)
    assert BudgetStop(None, lambda: True)((1.0,), True) is Ask.PRUNE  # a warm-up past the end: pruned


def test_a_special_far_behind_the_study_s_best_gets_its_warm_up_bounded_as_hopeless(small_space, run_sweep):
    """grid22 at 9335681: the default Δ-stepping launch (one block) took 11.3 s a SSSP against the
    study's 29 ms, and its repetitions ran until the sweep's budget ended them (grid24's baseline
    probe too): a special or a probe measured once the study has a best has its warm-up bounded at
    `HOPELESS_FACTOR` times it."""
    from autotune.search.run.pruning import HOPELESS_FACTOR

    timer = ScriptedTimer(lambda c: SLOW.get(c.key(), 1.0))
    run_sweep(timer, small_space, Bayes(trials=8, seed=0), specials=default_specials(), settings=SweepSettings(prune=True))
    order = [config.key() for config, _limit, _profile in timer.calls]
    default = CRAUSER.default_config().key()
    bounds = [limit for config, limit, _profile in timer.calls if config.key() == default]
    assert order.index(default) > 0 and bounds[0] == HOPELESS_FACTOR * 1.0  # the prediction's 1.0 came first
    candidates = {CRAUSER.uniform(64).key(), CRAUSER.uniform(128).key()}  # probed: their warm-ups bounded too
    assert [limit for config, limit, _ in timer.calls if config.key() in candidates][0] == HOPELESS_FACTOR * 1.0
