"""Search strategies. A strategy chooses the sampler and the space the sampler sees; the objective
(`runner.Runner.objective`) is the same for all of them.

- `Exhaustive`: the thesis's exhaustive search made affordable (4.6). A grid sampler runs every
  uniform configuration (one block size and cache for all kernels) for every CK and L; each run
  also times each kernel. Then, for each (CK, L), each kernel's best (block size, cache) is picked
  from its own times, the composed configurations are ranked by their estimated time, and the
  best `compose_top` are measured and verified as wholes.
- `Bayes`: an Optuna sampler (TPE by default; GP, CMA-ES, random) over the joint space: each
  kernel its own block size and cache, plus CK and L. The model's prediction, the default and
  the baseline candidates are enqueued as its first trials.
- `ModelOnly`: no search: only the prediction, the default and the baseline are measured.
"""
from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.samplers import BaseSampler
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.measure import Measurement
from autotune.search.runner import CATCH, Runner
from autotune.search.space import GRID_PARAMS, SearchSpace
from autotune.space import TUNED_KERNELS, CacheState, KernelLaunch, LaunchConfig

SAMPLERS = ("tpe", "gp", "cmaes", "random")
STRATEGIES = ("exhaustive", "bayes", "model")
DEFAULT_TRIALS = 100


def make_sampler(name: str, seed: int | None) -> BaseSampler:
    """The Optuna sampler called `name` (tpe, gp, cmaes, random), seeded.

    Raises:
        InputError: an unknown name, or a sampler whose optional dependency is missing.
    """
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "gp":
        try:
            import torch  # noqa: F401
        except ImportError:
            raise InputError("--sampler gp: Optuna's GPSampler needs PyTorch. "
                             "Install it with: pip install torch") from None
        return optuna.samplers.GPSampler(seed=seed)
    if name == "cmaes":
        try:
            import cmaes  # noqa: F401
        except ImportError:
            raise InputError("--sampler cmaes: Optuna's CmaEsSampler needs cmaes. "
                             "Install it with: pip install cmaes") from None
        # CMA-ES handles the ordered parameters; the cache states (categorical) fall back to TPE.
        return optuna.samplers.CmaEsSampler(seed=seed, independent_sampler=optuna.samplers.TPESampler(seed=seed),
                                            warn_independent_sampling=False)
    raise InputError(f"--sampler: unknown sampler {name!r}; choose from {', '.join(SAMPLERS)}")


class PointSampler(BaseSampler):
    """Gives trials the given points in order, one per trial: the uniform grid of `Exhaustive`.

    Optuna's `GridSampler` does the same, but scans every trial of the study twice per trial and
    compares the whole grid each time (quadratic in the trials: hours of host time for the
    5,376-point full grid); this sampler costs nothing per trial. Points already measured are
    left out by the caller, so a resumed sweep runs only the rest.
    """

    def __init__(self, points: Sequence[Mapping[str, Any]] = ()) -> None:
        self.points = list(points)
        self._next = 0
        self._assigned: dict[int, Mapping[str, Any]] = {}

    @property
    def remaining(self) -> int:
        return len(self.points) - self._next

    def infer_relative_search_space(self, study: optuna.Study, trial: Any) -> dict[str, BaseDistribution]:
        return {}

    def sample_relative(self, study: optuna.Study, trial: Any, search_space: Any) -> dict[str, Any]:
        return {}

    def before_trial(self, study: optuna.Study, trial: Any) -> None:
        if "fixed_params" not in trial.system_attrs:
            self._assigned[trial.number] = self.points[self._next]
            self._next += 1

    def sample_independent(self, study: optuna.Study, trial: Any, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._assigned[trial.number][param_name]


@dataclass(frozen=True)
class Exhaustive:
    """Every uniform configuration, then per-kernel composition (thesis 4.6).

    Args:
        compose_top: how many composed configurations (best estimates first) to measure.
    """

    compose_top: int = 3
    name: str = "exhaustive"

    @property
    def label(self) -> str:
        return self.name

    def sampler(self, space: SearchSpace) -> BaseSampler:
        return PointSampler()

    def parameters(self) -> dict[str, Any]:
        return {"compose_top": self.compose_top}

    def planned_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> int:
        outside = sum(1 for config in specials if not _is_grid_point(space, config))
        return outside + space.uniform_size + self.compose_top

    def enqueue(self, study: optuna.Study, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        return list(specials)  # measured as fixed trials first; the grid re-uses those it holds

    def search(self, runner: Runner, space: SearchSpace) -> None:
        study = runner.study
        sampler = study.sampler
        if not isinstance(sampler, PointSampler):
            raise TypeError("the exhaustive strategy's study needs its PointSampler")
        grid = space.uniform_grid()
        points = (dict(zip(GRID_PARAMS, point)) for point in itertools.product(*(grid[name] for name in GRID_PARAMS)))
        sampler.points = [point for point in points if not runner.measured(space.from_grid_params(point))]
        if sampler.points:
            study.optimize(runner.objective(_suggest_uniform(space)), n_trials=len(sampler.points), catch=CATCH)
        for config in composed_candidates(runner.measurements(), space)[: self.compose_top]:
            runner.measure_fixed(config, "compose")


@dataclass(frozen=True)
class Bayes:
    """An Optuna sampler over the joint space.

    Args:
        trials: trials of the search (the enqueued prediction, default and baseline included).
        sampler_name: tpe, gp, cmaes or random.
        seed: the sampler's seed.
    """

    trials: int = DEFAULT_TRIALS
    sampler_name: str = "tpe"
    seed: int | None = 0
    name: str = "bayes"

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise InputError(f"--trials: expected a positive number of trials, found {self.trials}")
        if self.sampler_name not in SAMPLERS:
            raise InputError(f"--sampler: unknown sampler {self.sampler_name!r}; choose from {', '.join(SAMPLERS)}")

    @property
    def label(self) -> str:
        return f"{self.name}-{self.sampler_name}"

    def sampler(self, space: SearchSpace) -> BaseSampler:
        return make_sampler(self.sampler_name, self.seed)

    def parameters(self) -> dict[str, Any]:
        return {"trials": self.trials, "sampler": self.sampler_name, "seed": self.seed}

    def planned_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> int:
        outside = sum(1 for config in specials if not space.contains(config))
        return outside + max(self.trials, len(specials) - outside)

    def enqueue(self, study: optuna.Study, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        """Enqueue the specials inside the space, then `initial_design(space)`, as the first trials;
        return the specials outside the space."""
        outside = []
        for config in specials:
            if space.contains(config):
                study.enqueue_trial(space.to_params(config), skip_if_exists=True)
            else:
                outside.append(config)
        for config in initial_design(space):
            study.enqueue_trial(space.to_params(config), skip_if_exists=True)
        return outside

    def search(self, runner: Runner, space: SearchSpace) -> None:
        study = runner.study
        waiting = len(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))
        remaining = max(self.trials - runner.search_trials, waiting)
        if remaining > 0:
            study.optimize(runner.objective(_suggest_joint(space)), n_trials=remaining, catch=CATCH)


@dataclass(frozen=True)
class ModelOnly:
    """No search: the prediction, the default and the baseline only (the cheapest useful run)."""

    name: str = "model"

    @property
    def label(self) -> str:
        return self.name

    def sampler(self, space: SearchSpace) -> BaseSampler:
        return optuna.samplers.RandomSampler(seed=0)  # never asked

    def parameters(self) -> dict[str, Any]:
        return {}

    def planned_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> int:
        return len(specials)

    def enqueue(self, study: optuna.Study, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        return list(specials)

    def search(self, runner: Runner, space: SearchSpace) -> None:
        return None


Strategy = Exhaustive | Bayes | ModelOnly


def initial_design(space: SearchSpace) -> list[LaunchConfig]:
    """The trials the Bayesian search starts from, after the specials: one factor at a time along
    the two solve-wide knobs, from the default projected into the space (256 threads or the
    nearest block size, default cache or the first cache state, lanes 1 or the fewest): the default
    at every CK, then, at the largest CK, every lanes value.

    CK and lanes interact with every kernel and dominate the solve time, and TPE samples each
    parameter on its own, so without these points it often never pairs a large CK with few lanes
    (the H100 bayes sweeps of commit 1f70f72, made without them and with CK and lanes as
    categoricals, ended 25-94% slower than the exhaustive optimum). With them, 25 trials came
    within 3% of it on all 13 H100 graphs
    (reports/h100/sweeps/targets.txt; replayed over sampler seeds: replay-seeds.txt).
    """
    block = min(space.block_sizes, key=lambda b: (abs(b - 256), b))
    cache = CacheState.DEFAULT if CacheState.DEFAULT in space.caches else space.caches[0]
    lanes = min(space.lanes)
    base = LaunchConfig.uniform(block, cache, concurrent_kernels=min(space.concurrent_kernels), lanes=lanes)
    largest = max(space.concurrent_kernels)
    design = [base.replace(concurrent_kernels=ck) for ck in space.concurrent_kernels]
    design += [base.replace(concurrent_kernels=largest, relax=KernelLaunch(block, cache, lanes_value))
               for lanes_value in space.lanes]
    return [config for config in dict.fromkeys(design) if space.contains(config)]


def make_strategy(name: str, trials: int | None = None, sampler: str = "tpe", seed: int | None = 0) -> Strategy:
    """The strategy of the `--strategy` option.

    Raises:
        InputError: an unknown strategy or sampler, or a bad number of trials.
    """
    if name == "exhaustive":
        return Exhaustive()
    if name == "bayes":
        return Bayes(trials=DEFAULT_TRIALS if trials is None else trials, sampler_name=sampler, seed=seed)
    if name == "model":
        return ModelOnly()
    raise InputError(f"--strategy: unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")


def _suggest_uniform(space: SearchSpace):
    grid = space.uniform_grid()

    def suggest(trial: optuna.Trial) -> LaunchConfig:
        params = {name: trial.suggest_categorical(name, grid[name]) for name in GRID_PARAMS}
        return space.from_grid_params(params)

    return suggest


def _suggest_joint(space: SearchSpace):
    distributions = space.distributions()

    def suggest(trial: optuna.Trial) -> LaunchConfig:
        params = {name: _suggest(trial, name, distribution) for name, distribution in distributions.items()}
        return space.from_params(params)

    return suggest


def _suggest(trial: optuna.Trial, name: str, distribution: BaseDistribution) -> Any:
    if isinstance(distribution, IntDistribution):
        return trial.suggest_int(name, distribution.low, distribution.high, step=distribution.step)
    if isinstance(distribution, CategoricalDistribution):
        return trial.suggest_categorical(name, distribution.choices)
    raise TypeError(f"unexpected distribution {distribution!r} for {name}")


def _is_grid_point(space: SearchSpace, config: LaunchConfig) -> bool:
    launches = set((k.block_size, k.cache) for k in config.kernels.values())
    if len(launches) != 1:
        return False
    block_size, cache = launches.pop()
    return (block_size in space.uniform_block_sizes and cache in space.caches
            and config.concurrent_kernels in space.concurrent_kernels and config.lanes in space.lanes)


def composed_candidates(measurements: Mapping[str, Sequence[Measurement]], space: SearchSpace) -> list[LaunchConfig]:
    """Per (CK, L), each kernel's best (block size, cache) from its own times in the uniform runs.

    The composed configurations come back ranked by their estimated ms per SSSP: the sum of the
    chosen kernels' times plus the median, over that (CK, L)'s ok uniform runs, of the time
    outside the three kernels. Only uniform runs whose every measurement is ok count.
    """
    by_ck_lanes: dict[tuple[int, int], list[Measurement]] = {}
    for runs in measurements.values():
        config = runs[0].config
        if not _is_grid_point(space, config) or not all(m.ok for m in runs):
            continue
        usable = [m for m in runs if all(k in m.kernel_ms for k in TUNED_KERNELS)]
        if usable:
            by_ck_lanes.setdefault((config.concurrent_kernels, config.lanes), []).append(usable[0])
    ranked = []
    for (ck, lanes), runs in by_ck_lanes.items():
        launches, estimate = {}, 0.0
        for kernel in TUNED_KERNELS:
            best = min(runs, key=lambda m: (m.kernel_ms[kernel], m.config.key()))
            launches[kernel] = KernelLaunch(best.config.relax.block_size, best.config.relax.cache,
                                            lanes if kernel == "relax" else 1)
            estimate += best.kernel_ms[kernel]
        estimate += statistics.median(m.ms_per_sssp - sum(m.kernel_ms[k] for k in TUNED_KERNELS) for m in runs)
        config = LaunchConfig(concurrent_kernels=ck, **launches)
        ranked.append((estimate, config.key(), config))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [config for _estimate, _key, config in ranked]
