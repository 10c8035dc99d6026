"""ReplayTimer and records: the Timer contract, recorded / composed / unrecorded answers, and a
replay that repeats a live sweep."""
from __future__ import annotations

import dataclasses
import json
import statistics

import pytest

from autotune.errors import InputError
from autotune.measure import Ask, Measurement, Status
from autotune.search import (
    NOT_RECORDED,
    Bayes,
    Exhaustive,
    Record,
    ReplayTimer,
    SearchSpace,
    read_records,
    records_of,
    write_records,
)
from autotune.search.run import specials as plan
from autotune.search.results.records import kept_records
from autotune.search.timers.replay import recorded_space
from autotune.search.timers.synthetic import SyntheticTimer, synthetic_graph
from autotune.algorithms.thesis import CRAUSER

from search_shared import SYNTHETIC_RECORDS


def _record(measurement: Measurement, phase: str = "search", graph=None) -> Record:
    return Record(graph=graph or synthetic_graph(), algorithm="crauser", device={"name": "test GPU"},
                  strategy="exhaustive", measurement=measurement, trial=0, phase=phase)


def _records_of_grid(space: SearchSpace, timer: SyntheticTimer) -> list[Record]:
    return [_record(timer.measure(config)) for config in space.uniform_configs()]


class TimerContract:
    """What every Timer must do (the GPU's CudaEventTimer is held to it in tests/gpu)."""

    ok_config = CRAUSER.uniform(128, "prefer_l1", 2, 4)
    invalid_config = CRAUSER.uniform(1024, "no_l1")

    def make_timer(self):
        raise NotImplementedError

    def test_measures_the_configuration_it_is_given(self):
        measurement = self.make_timer().measure(self.ok_config)
        assert measurement.config == self.ok_config
        assert measurement.status is Status.OK and measurement.verified
        assert measurement.times_ms and all(t > 0 for t in measurement.times_ms)
        assert {"relax", "minimum", "update"} <= set(measurement.kernel_ms)
        assert measurement.ms_per_sssp == statistics.median(measurement.times_ms)

    def test_an_invalid_configuration_is_a_measurement_with_a_reason(self):
        measurement = self.make_timer().measure(self.invalid_config)
        assert measurement.status is Status.INVALID and measurement.reason
        assert measurement.ms_per_sssp is None

    def test_measurements_survive_json(self):
        measurement = self.make_timer().measure(self.ok_config)
        assert Measurement.from_json(json.loads(json.dumps(measurement.to_json()))) == measurement


class TestSyntheticTimer(TimerContract):
    def make_timer(self):
        return SyntheticTimer(noise=0.01)


class TestReplayTimer(TimerContract):
    def make_timer(self):
        space = SearchSpace.from_options("crauser", block_sizes="128,1024", caches="prefer_l1,no_l1", ck="2", lanes="4")
        return ReplayTimer(_records_of_grid(space, SyntheticTimer(noise=0.01)))


def test_recorded_configurations_are_answered_in_turn():
    config = CRAUSER.default_config()
    first, second = (Measurement(config, Status.OK, times_ms=(t,)) for t in (1.0, 2.0))
    timer = ReplayTimer([_record(first), _record(second)])
    assert [timer.measure(config).ms_per_sssp for _ in range(3)] == [1.0, 2.0, 1.0]
    assert timer.stats.recorded == 3


def test_unrecorded_configurations_are_composed_from_uniform_runs():
    space = SearchSpace.from_options("crauser", block_sizes="64,128,256", caches="default,no_l1", ck="2", lanes="4")
    synthetic = SyntheticTimer()
    timer = ReplayTimer(_records_of_grid(space, synthetic))
    config = CRAUSER.uniform(128, "default", 2, 4).replace(
        minimum=CRAUSER.uniform(256).minimum, update=CRAUSER.uniform(64, "no_l1").update)
    composed = timer.measure(config)
    assert composed.ok and timer.stats.composed == 1
    parts = {k: synthetic.landscape.kernel_ms(CRAUSER.uniform(b, c, 2, 4))
             for k, b, c in (("relax", 128, "default"), ("minimum", 256, "default"), ("update", 64, "no_l1"))}
    expected_kernels = {k: parts[k][k] for k in parts}
    assert {k: composed.kernel_ms[k] for k in expected_kernels} == pytest.approx(expected_kernels)
    others = [parts[k]["other"] for k in parts]  # the synthetic 'other' depends on CK only
    assert composed.ms_per_sssp == pytest.approx(sum(expected_kernels.values()) + statistics.median(others))
    # the landscape is separable, so the composition is exact here
    assert composed.ms_per_sssp == pytest.approx(synthetic.landscape.ms_per_sssp(config))


def test_a_price_is_the_median_of_the_ok_records_else_the_composition_and_serves_nothing():
    config = CRAUSER.default_config()
    records = [_record(Measurement(config, Status.OK, times_ms=(t,))) for t in (3.0, 1.0, 2.0)]
    records.append(_record(Measurement(config, Status.WRONG, times_ms=(0.1,))))
    timer = ReplayTimer(records)
    assert timer.price(config) == (2.0, "recorded")
    assert timer.measure(config).ms_per_sssp == 3.0  # pricing served nothing: the first record comes first
    assert timer.price(CRAUSER.uniform(1024, concurrent_kernels=8)) is None
    space = SearchSpace.from_options("crauser", block_sizes="64,128", caches="default", ck="2", lanes="1")
    grid = ReplayTimer(_records_of_grid(space, SyntheticTimer()))
    mixed = CRAUSER.uniform(64, concurrent_kernels=2).replace(minimum=CRAUSER.uniform(128).minimum)
    price, how = grid.price(mixed)
    assert how == "composed" and price == pytest.approx(grid.measure(mixed).ms_per_sssp)


def test_configurations_neither_recorded_nor_composable_are_invalid_or_an_error():
    space = SearchSpace.from_options("crauser", block_sizes="64", caches="default", ck="1", lanes="1")
    records = _records_of_grid(space, SyntheticTimer())
    unrecorded = CRAUSER.uniform(128, concurrent_kernels=8)
    measurement = ReplayTimer(records).measure(unrecorded)
    assert measurement.status is Status.INVALID and measurement.reason.startswith(NOT_RECORDED)
    assert "no ok uniform run 128:default at CK 8, L 1" in measurement.reason
    assert ReplayTimer(records, compose=False).measure(CRAUSER.uniform(64).replace(
        relax=CRAUSER.uniform(64, lanes=2).relax)).status is Status.INVALID
    with pytest.raises(InputError, match=NOT_RECORDED):
        ReplayTimer(records, strict=True).measure(unrecorded)


def test_replay_needs_one_graph_s_records():
    config = CRAUSER.default_config()
    a = _record(Measurement(config, Status.OK, times_ms=(1.0,)), graph=synthetic_graph("a"))
    b = _record(Measurement(config, Status.OK, times_ms=(1.0,)), graph=synthetic_graph("b"))
    with pytest.raises(InputError, match="mix 2 graphs"):
        ReplayTimer([a, b])
    assert ReplayTimer.select([a, b], "b") == [b]
    with pytest.raises(InputError, match="no records"):
        ReplayTimer([])


def test_records_round_trip_and_bad_lines_name_the_line(tmp_path):
    records = [_record(SyntheticTimer().measure(CRAUSER.default_config()), phase="fixed")]
    path = write_records(tmp_path / "r.jsonl", records, header="synthetic")
    assert path.read_text().startswith("# synthetic\n")
    assert read_records(path) == records
    bad = tmp_path / "bad.jsonl"
    bad.write_text(path.read_text() + "{not json\n")
    with pytest.raises(InputError, match=r"bad.jsonl:3: invalid JSON"):
        read_records(bad)
    bad.write_text('{"format": "autotune.records/1", "graph": {"name": "g"}}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:1: missing key 'measurement'"):
        read_records(bad)
    with pytest.raises(InputError, match="cannot read"):
        read_records(tmp_path / "missing.jsonl")


def test_records_keep_the_graphs_distance_width_and_hub_order_which_tables_leave_out(tmp_path):
    measurement = SyntheticTimer().measure(CRAUSER.default_config())
    wide = dataclasses.replace(synthetic_graph(), distance_bits=64, hub_ordered=True)
    back = read_records(write_records(tmp_path / "wide.jsonl", [_record(measurement, graph=wide)]))[0].graph
    assert (back.distance_bits, back.hub_ordered) == (64, True)  # x-distance_bits, x-memory's copy
    assert not {"distance_bits", "hub_ordered"} & set(wide.to_json())  # a table entry's graph: x-distance_bits
    narrow = read_records(write_records(tmp_path / "narrow.jsonl", [_record(measurement)]))[0].graph
    assert (narrow.distance_bits, narrow.hub_ordered) == (32, False)


def test_records_named_gz_are_gzip_and_read_back_and_are_kept_on_resume(tmp_path):
    records = [_record(SyntheticTimer().measure(CRAUSER.default_config()), phase="fixed")]
    path = write_records(tmp_path / "r.records.jsonl.gz", records, header="synthetic")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert read_records(path) == records
    kept = kept_records(path, resume=True)
    assert kept[0] == "# synthetic" and len(kept) == 2
    more = [_record(SyntheticTimer().measure(CRAUSER.default_config()), phase="search")]
    assert read_records(write_records(path, more, kept=kept)) == records + more


def test_a_replay_of_a_live_sweep_s_records_finds_the_same_winner(small_space, run_sweep):
    live_timer = SyntheticTimer(noise=0.03, seed=5)
    live, _ = run_sweep(live_timer, small_space, Bayes(trials=25, seed=2))
    records = records_of(live)
    assert len(records) == live.evaluations == len(live_timer.calls)
    replay_timer = ReplayTimer(records, strict=True)
    replayed, _ = run_sweep(replay_timer, small_space, Bayes(trials=25, seed=2))
    assert replayed.best.config == live.best.config
    assert replayed.best.ms_per_sssp == live.best.ms_per_sssp
    assert [r.measurement for r in records_of(replayed)] == [r.measurement for r in records]
    assert replay_timer.stats.recorded == len(records) and replay_timer.stats.not_recorded == 0


def test_the_committed_synthetic_records_replay_every_strategy(run_sweep):
    records = read_records(SYNTHETIC_RECORDS)
    assert SYNTHETIC_RECORDS.read_text().startswith("# SYNTHETIC")
    assert all("Synthetic" in r.device_name for r in records)
    space = SearchSpace.from_options("crauser", **recorded_space(records))
    assert space.uniform_size == 4 * 4 * 2 * 2
    profile = plan.profile_from_json(records[0].device)
    specials = plan.recorded_specials(records, records[0].graph, profile)
    assert specials.prediction is not None and len(specials.baseline_candidates) == 5
    exhaustive, _ = run_sweep(ReplayTimer(records), space, Exhaustive(), specials=specials)
    bayes, _ = run_sweep(ReplayTimer(records), space, Bayes(trials=30, seed=0), specials=specials)
    assert exhaustive.best.ms_per_sssp <= bayes.best.ms_per_sssp * 1.03
    assert exhaustive.replay == {"recorded": exhaustive.evaluations, "composed": 0, "not_recorded": 0}
    assert bayes.replay["not_recorded"] == 0 and bayes.replay["composed"] > 0


def test_a_replay_asked_to_stop_returns_what_it_timed_as_pruned():
    config = CRAUSER.uniform(64)
    timer = ReplayTimer([_record(Measurement(config, Status.OK, times_ms=(5.0, 4.0, 6.0)))])
    asked = []

    def stop(times, warm_up):
        asked.append(tuple(times))
        return Ask.PRUNE if len(times) == 2 else Ask.GO_ON

    pruned = timer.measure(config, stop)
    assert pruned.status is Status.PRUNED and pruned.times_ms == (5.0, 4.0) and asked == [(5.0,), (5.0, 4.0)]
    assert timer.stats.pruned == 1 and timer.measure(config).ok


def test_a_replay_prunes_at_a_recorded_warm_up_and_shortened_answers_take_the_repetitions_in_turn():
    config = CRAUSER.uniform(64)
    timer = ReplayTimer([_record(Measurement(config, Status.OK, times_ms=(5.0, 4.0, 6.0), warm_up_ms=7.0))])
    pruned = timer.measure(config, lambda times, warm_up: Ask.PRUNE if warm_up else Ask.GO_ON)
    assert pruned.status is Status.PRUNED and pruned.times_ms == (7.0,) and pruned.warm_up_ms == 7.0
    one = [timer.measure(config, lambda times, warm_up: Ask.GO_ON if warm_up else Ask.ENOUGH).times_ms
           for _ in range(3)]
    assert one == [(4.0,), (6.0,), (5.0,)]  # answers 2, 3 and 4 of the record: each repetition once


def test_a_replay_knows_the_wall_time_of_each_answer_and_a_paced_one_takes_it(monkeypatch):
    from autotune.search.timers import replay as sweep_jobs

    config, other = CRAUSER.uniform(64), CRAUSER.uniform(128)
    records = [dataclasses.replace(_record(Measurement(config, Status.OK, times_ms=(5.0, 4.0, 6.0, 5.0))), wall_s=2.0)]
    timer = ReplayTimer(records)
    timer.measure(config)
    assert timer.last_wall_s == 2.0
    timer.measure(config, lambda times, warm_up: Ask.PRUNE)  # after one of four repetitions
    assert timer.last_wall_s == 0.5
    timer.measure(other)  # neither recorded nor composable
    assert timer.last_wall_s == 0.0
    slept = []
    monkeypatch.setattr(sweep_jobs.time, "sleep", slept.append)
    paced = sweep_jobs.replay_timer(records, delay_s=0.1, pace=0.5)
    assert paced.measure(config).ok and slept == [pytest.approx(1.1)]
