"""One graph's sweep: the special configurations, the strategy's search, the finalists, the result.

Order of work (`sweep_graph`):

1. The special configurations: the model's prediction, the default (256 threads, default cache,
   CK 1, L 1) and the baseline candidates (thesis 4.6.1: each block size that maximizes occupancy,
   default cache, CK 1, L 1; the baseline is the slowest of them). The Bayesian strategy enqueues
   them as its first trials; the others measure them as trials of their own.
2. The strategy's search (`strategies`).
3. The finalists: the `finalists` best configurations by median are measured again, in `rounds`
   interleaved rounds (A B C A B C ...), so that noise does not pick the winner; the winner is
   the finalist with the lowest median over all its measurements. A configuration that is ever
   invalid or wrong is never a winner.

Ctrl-C or SIGTERM stops the sweep at once: what was measured is kept in the study, and the result
comes back with `partial=True` and the best measured so far.
"""
from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import optuna

from autotune.measure import Measurement, Timer
from autotune.search.results import ConfigResult, GraphInfo, GraphResult
from autotune.search.runner import Runner
from autotune.search.space import SearchSpace
from autotune.search.strategies import Strategy
from autotune.search.study import StudyHandle
from autotune.space import LaunchConfig

ATTR_ELAPSED = "elapsed_s"
ATTR_FINALISTS = "finalists"


@dataclass(frozen=True)
class Specials:
    """The configurations every strategy measures.

    Args:
        default: the default configuration.
        baseline_candidates: uniform, default cache, CK 1, L 1, for each block size that
            maximizes occupancy.
        prediction: the model's predicted configuration (None without a model).
        prediction_details: the model's account of it (`Prediction.to_json()`: config, rules,
            classes), for the table's `predicted`.
    """

    default: LaunchConfig = LaunchConfig.default()
    baseline_candidates: tuple[LaunchConfig, ...] = ()
    prediction: LaunchConfig | None = None
    prediction_details: Mapping[str, Any] | None = None

    def ordered(self) -> list[LaunchConfig]:
        """Prediction, default, baseline candidates; each configuration once."""
        configs = ([self.prediction] if self.prediction else []) + [self.default, *self.baseline_candidates]
        return list({c.key(): c for c in configs}.values())

    def roles(self) -> dict[str, tuple[str, ...]]:
        roles: dict[str, list[str]] = {}
        if self.prediction is not None:
            roles.setdefault(self.prediction.key(), []).append("prediction")
        roles.setdefault(self.default.key(), []).append("default")
        for config in self.baseline_candidates:
            roles.setdefault(config.key(), []).append("baseline_candidate")
        return {key: tuple(dict.fromkeys(names)) for key, names in roles.items()}


@dataclass(frozen=True)
class SweepSettings:
    """How the winner is chosen.

    Args:
        finalists: how many of the best configurations are measured again.
        rounds: interleaved rounds of re-measurement.
    """

    finalists: int = 3
    rounds: int = 3


class SweepProgress:
    """What a sweep tells a progress display; this base class shows nothing."""

    def start(self, graph: str, total: int, done: int) -> None: ...

    def advance(self, done: int, best_ms: float | None) -> None: ...

    def grow(self, total: int) -> None: ...

    def finish(self, partial: bool) -> None: ...


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt for the block (main thread only), so both stop cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Optuna logs every failed trial as a warning; a sweep reports them itself."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(verbosity)


def pooled(runner: Runner) -> dict[str, ConfigResult]:
    """Every measured configuration, its measurements pooled."""
    return {key: ConfigResult.pool(ms) for key, ms in runner.measurements().items()}


def _ranked(results: Mapping[str, ConfigResult]) -> list[ConfigResult]:
    ok = [r for r in results.values() if r.ok]
    return sorted(ok, key=lambda r: (r.ms_per_sssp, r.config.key()))


def remeasure_finalists(runner: Runner, settings: SweepSettings) -> list[LaunchConfig]:
    """Measure the best configurations again, interleaved; returns the finalists.

    The finalists are chosen once and kept in the study, so a resumed sweep finishes the same
    rounds instead of choosing again.
    """
    study = runner.study
    saved = study.user_attrs.get(ATTR_FINALISTS)
    if saved is None:
        finalists = [r.config for r in _ranked(pooled(runner))[: settings.finalists]]
        study.set_user_attr(ATTR_FINALISTS, [c.to_json() for c in finalists])
    else:
        finalists = [LaunchConfig.from_json(data, "study finalists") for data in saved]
    for round_ in range(settings.rounds):
        for config in finalists:
            if not runner.remeasured(round_, config):
                runner.measure_fixed(config, "remeasure", fresh=True, round_=round_)
    return finalists


def sweep_graph(
    timer: Timer,
    space: SearchSpace,
    strategy: Strategy,
    handle: StudyHandle,
    graph: GraphInfo,
    algorithm: str,
    device: Mapping[str, Any],
    specials: Specials,
    settings: SweepSettings = SweepSettings(),
    progress: SweepProgress | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GraphResult:
    """Tune one graph: specials, search, finalists; see the module docstring.

    Args:
        timer: measures configurations (`CudaEventTimer` on a GPU, `ReplayTimer` from records).
        space: the search space.
        strategy: exhaustive, bayes or model (`strategies.make_strategy`).
        handle: the study to keep the trials in (`study.open_study`); a resumed study's
            measurements are re-used, not measured again.
        graph, algorithm, device: what the result names.
        specials: prediction, default, baseline candidates.
        settings: finalists and rounds.
        progress: a progress display.
        clock: seconds (for tests).

    Returns:
        The result; `partial` when Ctrl-C or SIGTERM stopped it.

    Example:
        >>> result = sweep_graph(ReplayTimer(records), SearchSpace(), Bayes(trials=50), handle,
        ...                      graph, "crauser", device, specials)  # doctest: +SKIP
    """
    started = clock()
    progress = progress or SweepProgress()
    best_ms: list[float] = []

    def on_trial(measurement: Measurement, cached: bool) -> None:
        if measurement.ok and (not best_ms or measurement.ms_per_sssp < best_ms[0]):
            best_ms[:] = [measurement.ms_per_sssp]
        progress.advance(runner.trials, best_ms[0] if best_ms else None)

    runner = Runner(handle, space, timer, roles=specials.roles(), on_trial=on_trial, clock=clock)
    best_ms.extend(sorted(e.measurement.ms_per_sssp for e in runner.evaluations if e.measurement.ok)[:1])
    special_configs = specials.ordered()
    planned = strategy.planned_trials(space, special_configs) + settings.finalists * settings.rounds
    progress.start(graph.name, max(planned, runner.trials), runner.trials)
    if best_ms:
        progress.advance(runner.trials, best_ms[0])
    partial = False
    finalists: list[LaunchConfig] = []
    with quiet_optuna(), stop_on_sigterm():
        try:
            for config in strategy.enqueue(handle.study, space, special_configs):
                runner.measure_fixed(config, "fixed")
            strategy.search(runner, space)
            for config in special_configs:  # an enqueued one lost to an interruption
                runner.measure_fixed(config, "fixed")
            progress.grow(runner.trials + settings.finalists * settings.rounds)
            finalists = remeasure_finalists(runner, settings)
        except KeyboardInterrupt:
            partial = True
        finally:
            elapsed = float(handle.study.user_attrs.get(ATTR_ELAPSED, 0.0)) + clock() - started
            with contextlib.suppress(Exception):
                handle.study.set_user_attr(ATTR_ELAPSED, elapsed)
    progress.finish(partial)
    return _result(runner, strategy, space, graph, algorithm, device, specials, finalists, elapsed, partial, handle)


def study_result(runner: Runner, strategy: Strategy, space: SearchSpace, graph: GraphInfo, algorithm: str,
                 device: Mapping[str, Any], specials: Specials, elapsed: float, partial: bool,
                 handle: StudyHandle) -> GraphResult:
    """The result of the trials a study holds, as `sweep_graph` reports it; the finalists are the
    ones the study keeps. For a sweep that several workers measured (`search.coordinator`)."""
    saved = handle.study.user_attrs.get(ATTR_FINALISTS) or []
    finalists = [LaunchConfig.from_json(data, "study finalists") for data in saved]
    return _result(runner, strategy, space, graph, algorithm, device, specials, finalists, elapsed, partial, handle)


def _result(runner: Runner, strategy: Strategy, space: SearchSpace, graph: GraphInfo, algorithm: str,
            device: Mapping[str, Any], specials: Specials, finalists: Sequence[LaunchConfig], elapsed: float,
            partial: bool, handle: StudyHandle) -> GraphResult:
    results = pooled(runner)
    finalist_results = [results[c.key()] for c in finalists if c.key() in results]
    # The winner is the best finalist; without finalists (interrupted), or should every finalist
    # have failed a re-measurement, the best configuration whose every measurement was ok.
    pool = [r for r in finalist_results if r.ok] if not partial else []
    pool = pool or _ranked(results)
    best = min(pool, key=lambda r: (r.ms_per_sssp, r.config.key())) if pool else None
    candidates = tuple(results[c.key()] for c in specials.baseline_candidates if c.key() in results)
    ok_candidates = [c for c in candidates if c.ok]
    baseline = max(ok_candidates, key=lambda r: (r.ms_per_sssp, r.config.key())) if ok_candidates else None

    def get(config: LaunchConfig | None) -> ConfigResult | None:
        return None if config is None else results.get(config.key())

    replay_stats = getattr(runner.timer, "stats", None)
    return GraphResult(
        graph=graph,
        algorithm=algorithm,
        device=dict(device),
        strategy=strategy.label,
        strategy_parameters=strategy.parameters(),
        space=space.to_json(),
        best=best,
        predicted=get(specials.prediction),
        prediction=specials.prediction_details,
        default=get(specials.default),
        baseline=baseline,
        baseline_candidates=candidates,
        finalists=tuple(finalist_results),
        evaluations=len(runner.evaluations),
        trials=runner.trials,
        configurations=len(results),
        failed=sum(1 for r in results.values() if not r.ok),
        tuning_seconds=elapsed,
        measure_seconds=runner.measure_seconds,
        partial=partial,
        study={"storage": handle.storage_url, "name": handle.name, "resumed": handle.resumed},
        replay=replay_stats.to_json() if hasattr(replay_stats, "to_json") else None,
        log=tuple(runner.evaluations),
    )
