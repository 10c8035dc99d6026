"""The refine stage's climb (`search.climb`) and the transfers between a curve's studies
(`search.transfer`): pure logic, and a Bayesian sweep on the synthetic landscape."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from autotune.algorithms.delta import DELTA
from autotune.algorithms.thesis import CRAUSER
from autotune.launch import CacheState
from autotune.search import Bayes, SearchSpace
from autotune.search.strategies.climb import MAX_CENTRES, climb_neighbours, next_centre
from autotune.search.space.neighbours import cache_neighbours, neighbourhood
from autotune.search.timers.synthetic import SyntheticTimer
from autotune.search.run.transfer import complete_trials, fastest_per_ck, nearest_ck, transfers


def test_cache_neighbours_put_every_kernel_in_each_other_l1_state(small_space):
    config = CRAUSER.uniform(128, "default", 2, 1)
    found = cache_neighbours(config, small_space)
    assert [{k.cache for k in c.kernels.values()} for c in found] == [{CacheState("prefer_l1")}, {CacheState("no_l1")}]
    sizes = {name: launch.block_size for name, launch in config.kernels.items()}
    assert all({n: k.block_size for n, k in c.kernels.items()} == sizes and c.concurrent_kernels == 2 for c in found)


def test_the_climb_measures_the_neighbourhood_then_the_other_l1_states():
    space = SearchSpace("delta", params={"delta": (16, 32, 64, "inf"), "warp_threshold": (32, "off")})
    config = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 32, "warp_threshold": 32})
    around = climb_neighbours(config, space)
    assert around[: len(neighbourhood(config, space))] == neighbourhood(config, space)
    assert {c.param("delta") for c in around} >= {16, 64} and any(c.param("warp_threshold") == "off" for c in around)
    assert len(around) == len(set(around)) and config not in around


def test_the_climb_goes_on_from_a_new_best_and_stops_at_one_it_climbed_from_or_at_its_bound():
    a, b = DELTA.uniform(256, concurrent_kernels=32), DELTA.uniform(512, concurrent_kernels=32)
    points = [SimpleNamespace(config=b), SimpleNamespace(config=a)]  # tuned points, fastest first
    assert next_centre(points, [a.key()]) == b
    assert next_centre(points, [a.key(), b.key()]) is None
    assert next_centre(points, ["x"] * MAX_CENTRES) is None


@pytest.mark.parametrize("ck, values, expected", [
    (32, (2, 4, 8, 16), 16), (1, (2, 4, 8, 16), 2), (16, (32, 64, 128), 32), (2, (1,), 1),
    (64, (2, 4, 8, 16), None), (8, (2, 4, 8, 16), None), (4, (), None)])
def test_a_point_moves_to_the_nearest_ck_at_most_a_factor_of_two_away(ck, values, expected):
    assert nearest_ck(ck, values) == expected


def test_transfers_move_the_other_ends_points_into_the_space_with_their_spread_shapes():
    few = SearchSpace("delta", concurrent_kernels=(2, 4, 8, 16), params={"delta": (16, 32, "inf")})
    batch_best = DELTA.uniform(416, concurrent_kernels=32, params={"delta": 32, "blocks": 1})
    one_query = DELTA.uniform(1024, concurrent_kernels=1, params={"delta": 16, "blocks": 64})
    elsewhere = CRAUSER.uniform(128, concurrent_kernels=32)
    moved = transfers([one_query, batch_best, elsewhere], few)
    # the one-query point first at the largest CK, where the study's best per SSSP lies, then the nearest
    assert [(c.concurrent_kernels, c.param("blocks")) for c in moved] == [(16, 64), (2, 64), (16, 1), (16, 8)]
    assert all(few.contains(c) for c in moved)
    assert moved[0] == one_query.replace(concurrent_kernels=16)
    assert moved[2] == batch_best.replace(concurrent_kernels=16)
    assert transfers([batch_best.replace(concurrent_kernels=4)], few) == []  # a CK the space searches itself
    batch_end = SearchSpace("delta", concurrent_kernels=(32, 64), params={"delta": (16, 32, "inf")})
    assert transfers([one_query], batch_end) == []  # only the middle takes the latency end's point at its top


def test_the_fastest_verified_point_per_ck_is_read_from_the_trials(small_space, run_sweep):
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=12, seed=1))
    points = fastest_per_ck(handle.study.trials)
    study_id = handle.storage.get_study_id_from_name(handle.study.study_name)
    assert points == fastest_per_ck(complete_trials(handle.storage, [study_id]))  # as a sweep reads its siblings
    assert sorted({p.concurrent_kernels for p in points}) == [p.concurrent_kernels for p in points]
    by_ck = {}
    for e in result.log:
        if e.measurement.ok:
            by_ck.setdefault(e.config.concurrent_kernels, []).append(e.measurement.ms_per_sssp)
    times = {p.concurrent_kernels: [e.measurement.ms_per_sssp for e in result.log if e.config == p] for p in points}
    assert {ck: min(t) for ck, t in times.items()} == {ck: min(t) for ck, t in by_ck.items()}


def test_a_bayesian_search_climbs_from_its_best_until_no_neighbour_is_faster(small_space, run_sweep):
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=10, seed=0))
    climbed = [e for e in result.log if e.phase == "refine"]
    assert climbed
    centres = handle.study.user_attrs["climbed_from"]
    assert 1 <= len(centres) <= MAX_CENTRES
    best_before_remeasure = min((e for e in result.log if e.phase != "remeasure" and e.measurement.ok),
                                key=lambda e: e.measurement.ms_per_sssp).config
    measured = {e.config.key() for e in result.log}
    assert len(centres) < MAX_CENTRES  # so the climb ended at a point none of whose neighbours is faster
    assert best_before_remeasure.key() == centres[-1]
    assert all(c.key() in measured for c in climb_neighbours(best_before_remeasure, small_space))


def test_a_sweep_measures_its_siblings_points_moved_to_its_ck_before_climbing(small_space, run_sweep):
    sibling = CRAUSER.uniform(256, "no_l1", 8, 4)  # CK 8: the space's CK 4 is nearest
    result, _ = run_sweep(SyntheticTimer(), small_space, Bayes(trials=6, seed=2), siblings=lambda: [sibling])
    moved = [e.config for e in result.log if e.phase == "transfer"]
    assert moved == [sibling.replace(concurrent_kernels=4)]
    phases = [e.phase for e in result.log]
    assert phases.index("transfer") < phases.index("refine")


def test_a_study_whose_slice_ended_still_measures_its_siblings_points_while_the_run_lasts(small_space, run_sweep):
    """The search cut by the study's slice (here from its start), the run's time left: the siblings'
    points are measured in the curve stage, and the best is one of them (before, the study ended
    without a best; on road-FLA, whose sweep the budget cut, the H100 table holds 4.11 ms per SSSP
    at CK 16 and 1.44 at CK 32)."""
    import time

    from autotune.search.run.plan import Budget

    now = time.monotonic()
    sibling = CRAUSER.uniform(256, "no_l1", 8, 4)  # CK 8: the space's CK 4 is nearest
    result, handle = run_sweep(SyntheticTimer(), small_space, Bayes(trials=6, seed=2), siblings=lambda: [sibling],
                               budget=Budget(run_end=now + 600, slice_end=now))
    assert "search" in handle.study.user_attrs["cut_by_budget"]
    assert [e.config for e in result.log if e.phase == "transfer"] == [sibling.replace(concurrent_kernels=4)]
    assert result.best is not None and result.best.config == sibling.replace(concurrent_kernels=4)
