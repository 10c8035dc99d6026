"""The GPU timer's protocol, on a CPU: `CudaEventTimer` drives any `Solver`, here one that answers
with made-up times and the expected distances, so the repetition loop and the stop callback's
answers (`measure.Ask`) can be checked without a GPU."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autotune.algorithms.thesis import CRAUSER
from autotune.gpu.engine import Overtime, SolveResult
from autotune.gpu.timer import CudaEventTimer
from autotune.measure import Ask, Protocol, Status
from autotune.reference.distance_range import NARROW

N = 5
SAMPLE = (0, 1, 2, 3)


class TimedSolver:
    """Solves in `ms_per_solve` (cycling through the list) with the expected distances."""

    def __init__(self, ms_per_solve):
        self.graph = SimpleNamespace(n_vertices=N, n_edges=2 * N)
        self.width = NARROW  # the distances' width, as an engine's
        self.ms = list(ms_per_solve)
        self.solves = 0

    def solve(self, config, sources, profile=False, deadline_ms=None):
        ms = self.ms[self.solves % len(self.ms)]
        self.solves += 1
        if deadline_ms is not None and ms > deadline_ms:
            raise Overtime(deadline_ms)  # stopped at the deadline, as the engines do
        ck = len(sources)
        return SolveResult(ms, ms, 0.0, np.zeros((ck, N), dtype=np.int32), np.ones(ck),
                           {"relax": ms} if profile else {})


def timer_of(ms_per_solve, minimum=2, maximum=6):
    expected = {s: np.zeros(N, dtype=np.int32) for s in SAMPLE}
    protocol = Protocol(sample=len(SAMPLE), min_repetitions=minimum, max_repetitions=maximum, noise=0.01)
    return CudaEventTimer(TimedSolver(ms_per_solve), SAMPLE, protocol, expected=expected)


CONFIG = CRAUSER.uniform(256, "default", 4)  # CK 4: one batch per repetition, the warm-up solves the whole sample
PARTIAL = CRAUSER.uniform(256, "default", 2)  # CK 2: two batches per repetition, the warm-up solves half the sample


def test_noisy_repetitions_go_on_to_the_cap_and_agreeing_ones_stop_at_the_minimum():
    assert len(timer_of([1.0, 2.0]).measure(CONFIG).times_ms) == 6
    assert len(timer_of([1.0]).measure(CONFIG).times_ms) == 2


@pytest.mark.parametrize("answer, status, repetitions", [(Ask.GO_ON, Status.OK, 6), (Ask.ENOUGH, Status.OK, 1),
                                                          (Ask.PRUNE, Status.PRUNED, 1)])
def test_the_stop_callbacks_answer_after_a_repetition(answer, status, repetitions):
    asked = []

    def stop(times, warm_up):
        asked.append(warm_up)
        return Ask.GO_ON if warm_up else answer

    measurement = timer_of([1.0, 2.0, 3.0]).measure(PARTIAL, stop)
    assert measurement.status is status and len(measurement.times_ms) == repetitions
    assert asked[0] is True  # the warm-up is asked first, and never gets ENOUGH's meaning


def test_a_warm_up_of_the_whole_sample_is_reported_as_a_repetition_would_be():
    asked = []
    timer_of([1.0]).measure(CONFIG, lambda times, warm_up: asked.append(warm_up) or Ask.GO_ON)
    assert asked[0] is False  # the same work as a repetition: the pruner judges it without slack


def test_enough_at_the_warm_up_neither_prunes_nor_cuts_the_repetitions():
    measurement = timer_of([1.0, 2.0, 3.0], minimum=3).measure(
        PARTIAL, lambda times, warm_up: Ask.ENOUGH if warm_up else Ask.GO_ON)
    assert measurement.status is Status.OK and len(measurement.times_ms) == 6  # noisy: the cap


def test_a_warm_up_past_the_limit_is_stopped_and_pruned_with_what_it_ran():
    asked = []
    measurement = timer_of([8.0]).measure(CONFIG, lambda times, warm_up: asked.append(times) or Ask.GO_ON,
                                          limit_ms=1.0)  # per SSSP: a CK 4 batch may run 4 ms
    assert measurement.status is Status.PRUNED and measurement.times_ms == (1.0,) and measurement.warm_up_ms == 1.0
    assert "during the warm-up" in measurement.reason and asked == [[1.0]]  # reported all the same


def test_a_partial_warm_up_gets_twice_the_limit():
    measurement = timer_of([3.0]).measure(PARTIAL, limit_ms=1.0)  # a CK 2 batch may run 2 x 2 x 1 ms
    assert measurement.status is Status.OK and measurement.warm_up_ms == 1.5
    assert timer_of([5.0]).measure(PARTIAL, limit_ms=1.0).status is Status.PRUNED


def test_a_measurement_without_the_profiled_batch_has_no_kernel_times():
    solver_runs = timer_of([1.0])
    measurement = solver_runs.measure(CONFIG, profile=False)
    assert measurement.ok and measurement.kernel_ms == {} and solver_runs.solver.solves == 1 + 2
    assert timer_of([1.0]).measure(CONFIG).kernel_ms == {"relax": 0.25}


def test_long_batches_of_the_whole_sample_take_fewer_repetitions_and_no_profiled_batch():
    """A warm-up of the whole sample of at least `LONG_BATCH_MS` (rmat22's batch end: 1.5 s a batch):
    two agreeing repetitions suffice and no batch is profiled; a shorter one keeps the protocol's
    three, and a partial warm-up that long keeps them too (it solved part of the sample)."""
    long_ms = [1500.0, 1505.0, 1502.0]
    measured = timer_of(long_ms, minimum=3).measure(CONFIG)
    assert len(measured.times_ms) == 2 and measured.kernel_ms == {}
    short = timer_of([ms / 10 for ms in long_ms], minimum=3).measure(CONFIG)
    assert len(short.times_ms) == 3 and short.kernel_ms
    partial = timer_of(long_ms, minimum=3).measure(PARTIAL)
    assert len(partial.times_ms) == 3 and partial.kernel_ms


def test_enough_after_a_repetition_ends_below_the_minimum():
    measurement = timer_of([1.0, 2.0], minimum=3).measure(CONFIG, lambda times, warm_up: Ask.ENOUGH)
    assert measurement.status is Status.OK and len(measurement.times_ms) == 1 and measurement.kernel_ms


class RowsOnDevice(TimedSolver):
    """A solver whose rows stay "on the GPU" (`device_row_blocks`) and are copied only when read;
    instance `wrong_instance` of every solve has a wrong distance at vertex 3."""

    def __init__(self, ms_per_solve, wrong_instance=None):
        super().__init__(ms_per_solve)
        self.wrong_instance = wrong_instance
        self.copies = 0
        self.rows = None

    def solve(self, config, sources, profile=False, deadline_ms=None):
        plain = super().solve(config, sources, profile, deadline_ms)
        self.rows = np.zeros((len(sources), N), dtype=np.int32)
        if self.wrong_instance is not None:
            self.rows[self.wrong_instance, 3] = 7

        def copy():
            self.copies += 1
            return self.rows.copy()

        return SolveResult(plain.elapsed_ms, plain.wall_ms, 0.0, copy, plain.iterations, plain.kernel_ms)

    def device_row_blocks(self, ck):
        return iter([(self.rows, 0, ck)])


class CheckOnCpu:
    """Stands in for `verify.DeviceCheck`: the first differing vertex per row of the device blocks."""

    def __init__(self, solver, expected, sample):
        self.solver, self.expected = solver, expected

    def first_differences(self, sources):
        found = np.full(len(sources), -1)
        for rows, first, count in self.solver.device_row_blocks(len(sources)):
            for k in range(first, first + count):
                differ = np.flatnonzero(rows[k - first] != self.expected[sources[k]])
                found[k] = differ[0] if len(differ) else -1
        return found


def timer_on_device(monkeypatch, solver):
    from autotune.gpu import timer

    monkeypatch.setattr(timer, "DEVICE_CHECK_BYTES", 0)  # every batch is checked "on the GPU"
    monkeypatch.setattr(timer, "DeviceCheck", CheckOnCpu)
    expected = {s: np.zeros(N, dtype=np.int32) for s in SAMPLE}
    protocol = Protocol(sample=len(SAMPLE), min_repetitions=2, max_repetitions=2, noise=0.01)
    return CudaEventTimer(solver, SAMPLE, protocol, expected=expected)


def test_a_batch_checked_on_the_gpu_copies_no_distances_to_the_host(monkeypatch):
    solver = RowsOnDevice([1.0])
    assert timer_on_device(monkeypatch, solver).measure(CONFIG).status is Status.OK
    assert solver.solves == 4 and solver.copies == 0  # warm-up, two repetitions, the profiled batch


def test_a_difference_found_on_the_gpu_is_named_as_the_cpu_check_names_it(monkeypatch):
    solver = RowsOnDevice([1.0], wrong_instance=2)
    measured = timer_on_device(monkeypatch, solver).measure(CONFIG)
    assert measured.status is Status.WRONG
    assert measured.reason == "source 2: 1 distances differ from the CPU reference (vertex 3: GPU 7, CPU 0)"
    assert solver.copies == 1  # the wrong instance's batch, once


def test_a_small_batch_is_checked_on_the_cpu():
    solver = RowsOnDevice([1.0], wrong_instance=1)
    protocol = Protocol(sample=len(SAMPLE), min_repetitions=2, max_repetitions=2, noise=0.01)
    timer = CudaEventTimer(solver, SAMPLE, protocol, expected={s: np.zeros(N, dtype=np.int32) for s in SAMPLE})
    measured = timer.measure(CONFIG)
    assert measured.status is Status.WRONG and measured.reason.startswith("source 1: 1 distances differ")
    assert solver.copies == 1


def test_distances_read_after_the_next_solve_are_refused():
    from autotune.gpu.engine import Solver

    solver = SimpleNamespace(_solves=0, _closed=False)
    first = SolveResult(1.0, 1.0, 0.0, Solver.copier(solver, lambda: np.zeros((1, N), np.int32)), np.ones(1))
    second = SolveResult(1.0, 1.0, 0.0, Solver.copier(solver, lambda: np.ones((1, N), np.int32)), np.ones(1))
    assert second.distances[0, 0] == 1
    with pytest.raises(RuntimeError, match="after the solver's next solve"):
        first.distances


def test_distances_read_after_the_solver_closed_are_refused():
    from autotune.gpu.engine import Solver

    solver = SimpleNamespace(_solves=0, _closed=False, _workspace=None, device_graph=SimpleNamespace(free=lambda: None),
                             _release_handles=lambda: None)
    result = SolveResult(1.0, 1.0, 0.0, Solver.copier(solver, lambda: np.zeros((1, N), np.int32)), np.ones(1))
    Solver.close(solver)
    with pytest.raises(RuntimeError, match="after its solver closed"):
        result.distances


class BudgetAsk:
    """A `stop` that always goes on, with the time left to a budget (`measure.time_left_ms`): `left`
    ms at each ask, the last one repeated."""

    def __init__(self, *left):
        self.left = list(left)

    def __call__(self, times, warm_up):
        return Ask.GO_ON

    def left_ms(self):
        return self.left.pop(0) if len(self.left) > 1 else self.left[0]


def test_the_budget_stops_a_batch_the_warm_up_included():
    """grid24 at d3bc23d: a trial begun with 51 s of its budget left had not ended 157 s later."""
    warm = timer_of([5.0]).measure(CONFIG, BudgetAsk(4.0))
    assert warm.status is Status.PRUNED and warm.reason == "the sweep's budget ended it in its warm-up"
    first = timer_of([5.0]).measure(PARTIAL, BudgetAsk(100.0, 4.0))  # the warm-up fits, a batch does not
    assert first.status is Status.PRUNED and first.reason == "the sweep's budget ended it in its first repetition"
    kept = timer_of([1.0, 1.0, 1.0, 5.0], minimum=3).measure(PARTIAL, BudgetAsk(100.0, 100.0, 100.0, 4.0))
    assert kept.status is Status.OK and kept.times_ms == (0.5,) and kept.kernel_ms == {}  # its whole repetition


def test_without_a_budget_no_batch_has_a_deadline():
    assert timer_of([50.0]).measure(CONFIG, lambda times, warm_up: Ask.GO_ON).status is Status.OK


def test_a_long_row_is_compared_in_chunks_and_every_difference_found():
    """`differing` splits a row past two chunks over threads: the differences at the chunks' edges
    and the row's ends are all found, in order, and an equal row has none."""
    from autotune.gpu.timer import COMPARE_CHUNK, differing, distance_error

    expected = np.arange(2 * COMPARE_CHUNK + 7, dtype=np.int32)
    got = expected.copy()
    assert differing(got, expected).size == 0 and distance_error(3, got, expected) is None
    where = [0, COMPARE_CHUNK - 1, COMPARE_CHUNK, 2 * COMPARE_CHUNK, len(got) - 1]
    got[where] += 1
    assert differing(got, expected).tolist() == where
    assert distance_error(3, got, expected).startswith("source 3: 5 distances differ from the CPU reference (vertex 0:")
