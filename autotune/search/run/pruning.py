"""When a measurement stops early: the study's pruner (`RelativePruner`, an Optuna pruner) and the
sweep's budget (`BudgetStop`).

The timer reports the time per SSSP after its warm-up and after every batch (`trial.report`), and
the pruner stops the measurement once it is more than `factor` times the best time of the study so
far (twice that for a warm-up on part of the sample, which runs cold); the bound also stops a warm-up
batch on the host clock (`limit_ms`). A measurement that passes the pruner but is more than
`contender` times the best after its first whole repetition stops there (ENOUGH): more repetitions
of a configuration that cannot win change no conclusion.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Sequence

import optuna
from optuna.pruners import BasePruner
from optuna.trial import FrozenTrial

from autotune.measure import Ask, StopAsk

DEFAULT_PRUNE_FACTOR = 1.5
DEFAULT_CONTENDER_FACTOR = 1.1
# A special (default, baseline, prediction: measured for the record) or a baseline's probe whose warm-up passes
# this many times the study's best is pruned there: grid22's default Δ-stepping launch (one block) took 11.3 s a
# SSSP against the study's 29 ms and ran 170 s, until the sweep's budget ended it, so that PHAST's study had no
# turn (its latency sweep at 4968755; grid24's probe of it, 190 s at 4fd2e43).
HOPELESS_FACTOR = 10.0


class RelativePruner(BasePruner):
    """Prune a trial whose last reported time per SSSP is more than `factor` times the best so far
    (twice that at step 0, a warm-up on part of the sample): the study's, or `elsewhere()`'s (the
    same graph's other algorithms in an auto sweep) when that is lower. Never prunes before there
    is a best. `contender`: a time more than this times the best cannot win (`contends`)."""

    def __init__(self, factor: float = DEFAULT_PRUNE_FACTOR, elsewhere: Callable[[], float | None] | None = None,
                 contender: float = DEFAULT_CONTENDER_FACTOR) -> None:
        self.factor = factor
        self.elsewhere = elsewhere
        self.contender = contender

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        if not trial.intermediate_values:
            return False
        step = trial.last_step
        return self.far_behind(study, trial.intermediate_values[step], 2.0 if step == 0 else 1.0)

    def best(self, study: optuna.Study) -> float | None:
        """The best time so far (None while there is none)."""
        candidates = []
        with contextlib.suppress(ValueError):  # no completed trial yet
            candidates.append(study.best_value)
        other = self.elsewhere() if self.elsewhere is not None else None
        if other is not None:
            candidates.append(other)
        return min(candidates) if candidates else None

    def bound(self, study: optuna.Study) -> float | None:
        """The time per SSSP above which a whole repetition is pruned now (None: no best yet)."""
        best = self.best(study)
        return None if best is None else self.factor * best

    def hopeless(self, study: optuna.Study) -> float | None:
        """The time per SSSP above which even a special is pruned (None: no best yet)."""
        best = self.best(study)
        return None if best is None else HOPELESS_FACTOR * best

    def far_behind(self, study: optuna.Study, ms_per_sssp: float, slack: float = 1.0) -> bool:
        """Whether `ms_per_sssp` is more than `slack` x `factor` times the best so far (False
        while there is none)."""
        bound = self.bound(study)
        return bound is not None and ms_per_sssp > slack * bound

    def contends(self, study: optuna.Study, ms_per_sssp: float) -> bool:
        """Whether `ms_per_sssp` is within `contender` times the best so far (True while there is none)."""
        best = self.best(study)
        return best is None or ms_per_sssp <= self.contender * best


class BudgetStop:
    """`stop`, unless the sweep's budget has ended: then a measurement still in its warm-up is
    pruned, and one past it ends with its repetition in hand (the timer finishes a repetition it
    has begun; a measurement of one whole repetition is still a measurement); `ended` says whether
    it did. Without this, one special of a large batch took the budget 28 s past its end: the
    prediction's warm-up, three repetitions and a profiled batch of 1,024 rmat22 sources, 35.8 s
    begun 8 s before it. With `left_s`, a batch still running when the budget ends is stopped
    there too (`left_ms`; on grid24 a batch-end trial ran 105 s, stopped by it)."""

    def __init__(self, stop: StopAsk | None, run_over: Callable[[], bool],
                 left_s: Callable[[], float | None] | None = None) -> None:
        self.stop = stop
        self.run_over = run_over
        self.left_s = left_s
        self.ended = False

    def left_ms(self) -> float | None:
        """The time left to the sweep's budget (`measure.time_left_ms`: a timer stops a batch there)."""
        left = self.left_s() if self.left_s is not None else None
        return None if left is None else 1e3 * left

    def __call__(self, times_ms: Sequence[float], warm_up: bool) -> Ask:
        if self.run_over():
            self.ended = True
            return Ask.PRUNE if warm_up else Ask.ENOUGH
        return Ask.GO_ON if self.stop is None else self.stop(times_ms, warm_up)


__all__ = ["DEFAULT_CONTENDER_FACTOR", "DEFAULT_PRUNE_FACTOR", "BudgetStop", "RelativePruner"]
