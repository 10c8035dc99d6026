"""The GPU timer's protocol, on a CPU: `CudaEventTimer` drives any `Solver`, here one that answers
with made-up times and the expected distances, so the repetition loop and the stop callback's
answers (`measure.Ask`) can be checked without a GPU."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autotune.algorithms.thesis import CRAUSER
from autotune.gpu.engine import SolveResult
from autotune.gpu.timer import CudaEventTimer
from autotune.measure import Ask, Protocol, Status

N = 5
SAMPLE = (0, 1, 2, 3)


class TimedSolver:
    """Solves in `ms_per_solve` (cycling through the list) with the expected distances."""

    def __init__(self, ms_per_solve):
        self.graph = SimpleNamespace(n_vertices=N, n_edges=2 * N)
        self.ms = list(ms_per_solve)
        self.solves = 0

    def solve(self, config, sources, profile=False):
        ms = self.ms[self.solves % len(self.ms)]
        self.solves += 1
        ck = len(sources)
        return SolveResult(ms, ms, 0.0, np.zeros((ck, N), dtype=np.int32), np.ones(ck),
                           {"relax": ms} if profile else {})


def timer_of(ms_per_solve, minimum=2, maximum=6):
    expected = {s: np.zeros(N, dtype=np.int32) for s in SAMPLE}
    protocol = Protocol(sample=len(SAMPLE), min_repetitions=minimum, max_repetitions=maximum, noise=0.01)
    return CudaEventTimer(TimedSolver(ms_per_solve), SAMPLE, protocol, expected=expected)


CONFIG = CRAUSER.uniform(256, "default", 4)  # CK 4: one batch per repetition


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

    measurement = timer_of([1.0, 2.0]).measure(CONFIG, stop)
    assert measurement.status is status and len(measurement.times_ms) == repetitions
    assert asked[0] is True  # the warm-up is asked first, and never gets ENOUGH's meaning


def test_enough_at_the_warm_up_neither_prunes_nor_cuts_the_repetitions():
    measurement = timer_of([1.0, 2.0], minimum=3).measure(
        CONFIG, lambda times, warm_up: Ask.ENOUGH if warm_up else Ask.GO_ON)
    assert measurement.status is Status.OK and len(measurement.times_ms) == 6  # noisy: the cap


def test_enough_after_a_repetition_ends_below_the_minimum():
    measurement = timer_of([1.0, 2.0], minimum=3).measure(CONFIG, lambda times, warm_up: Ask.ENOUGH)
    assert measurement.status is Status.OK and len(measurement.times_ms) == 1 and measurement.kernel_ms
