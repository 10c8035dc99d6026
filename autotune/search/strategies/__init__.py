"""Search strategies: one base class and a name registry. A strategy says which trials a sweep
enqueues first, how many more its sampler proposes, and what it does once they are measured; the
objective (`trials.Trials.objective`) and the sweep's procedure (`sweep`) are the same for all.

- `Exhaustive`: the thesis's exhaustive search made affordable (4.6): every uniform configuration
  (one block size and cache for all kernels) for every CK, L and parameter value is enqueued; each
  run also times each kernel. Then, for every group of runs that differ only in their kernels'
  launches, each kernel's best (block size, cache) is picked from its own times, the composed
  configurations are ranked by their estimated time, and the best `compose_top` are measured.
- `Bayes`: an Optuna sampler (TPE by default; GP, CMA-ES, random) over the joint space: each
  kernel its own block size and cache, plus CK, L and the parameters. The specials inside the
  space and the initial design are enqueued as its first trials.
- `ModelOnly`: no search: only the prediction, the default and the baseline are measured.

A new strategy is one subclass with `@register`.
"""
from __future__ import annotations

import statistics
from typing import Any, ClassVar, Mapping, Sequence

import optuna
from optuna.samplers import BaseSampler

from autotune.errors import InputError
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.measure import Measurement
from autotune.search.space.neighbours import neighbourhood
from autotune.search.space import MAX_GRID_POINTS, SearchSpace

SAMPLERS = ("tpe", "gp", "cmaes", "random")
DEFAULT_TRIALS = 100
STRATEGIES: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator: make a strategy available by its `name` (`--strategy NAME`)."""
    STRATEGIES[cls.name] = cls
    return cls


def make_sampler(name: str, seed: int | None, workers: int = 1) -> BaseSampler:
    """The Optuna sampler called `name` (tpe, gp, cmaes, random), seeded. With several workers
    sampling one study at once, TPE lies about running trials (`constant_liar`) so that they do not
    propose the same configuration.

    Raises:
        InputError: an unknown name, or a sampler whose optional dependency is missing.
    """
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=workers > 1)
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


class Strategy:
    """What every strategy answers (defaults: measure the specials, nothing more)."""

    name: ClassVar[str] = ""

    @property
    def label(self) -> str:
        return self.name

    def parameters(self) -> dict[str, Any]:
        return {}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.parameters()}

    def sampler(self, space: SearchSpace, seed_offset: int = 0, workers: int = 1) -> BaseSampler:
        """The sampler of the study; only `Bayes` asks it for new points."""
        return optuna.samplers.RandomSampler(seed=0)

    @property
    def samples(self) -> bool:
        """Whether the sampler proposes points, and so learns from every trial's parameters
        (otherwise an enqueued trial keeps its configuration in its task alone: fewer storage writes)."""
        return False

    def first_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        """The search trials enqueued, in order, after the specials outside the space."""
        return [config for config in specials if space.contains(config)]

    def sampled_trials(self, space: SearchSpace, enqueued: int) -> int:
        """Search trials the sampler proposes after the enqueued ones."""
        return 0

    def neighbourhood(self, space: SearchSpace, prediction: LaunchConfig | None) -> list[LaunchConfig]:
        """What is measured right after the prediction: nothing here (every strategy but a sampling
        one measures its own list whole anyway)."""
        return []

    def compositions(self, measurements: Mapping[str, Sequence[Measurement]], space: SearchSpace) -> list[LaunchConfig]:
        """Configurations to measure once the search is done (exhaustive: the composed ones)."""
        return []

    def planned_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig],
                       neighbours: Sequence[LaunchConfig] = ()) -> int:
        first = list(dict.fromkeys([*self.first_trials(space, specials), *neighbours]))
        outside = sum(1 for c in specials if not space.contains(c))
        return outside + len(first) + self.sampled_trials(space, len(first)) + self.compose_count()

    def compose_count(self) -> int:
        return 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Strategy:
        return cls()


@register
class Exhaustive(Strategy):
    """Every uniform configuration, then per-kernel composition (thesis 4.6).

    Args:
        compose_top: how many composed configurations (best estimates first) to measure.
    """

    name = "exhaustive"

    def __init__(self, compose_top: int = 3) -> None:
        self.compose_top = compose_top

    def parameters(self) -> dict[str, Any]:
        return {"compose_top": self.compose_top}

    def first_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        if space.uniform_size > MAX_GRID_POINTS:
            raise InputError(f"--strategy exhaustive: the uniform grid of {space.algorithm} has {space.uniform_size:,} "
                             f"points (more than {MAX_GRID_POINTS:,}); narrow it with --block-sizes, --caches, --ck, "
                             "--lanes or --param NAME=VALUES, or use --strategy bayes")
        grid = space.uniform_configs()
        inside = [c for c in specials if space.contains(c) and not space.is_grid_point(c)]
        return list(dict.fromkeys(inside + grid))

    def compositions(self, measurements: Mapping[str, Sequence[Measurement]], space: SearchSpace) -> list[LaunchConfig]:
        return composed_candidates(measurements, space)[: self.compose_top]

    def compose_count(self) -> int:
        return self.compose_top

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Strategy:
        return cls(compose_top=int(data.get("compose_top", 3)))


@register
class Bayes(Strategy):
    """An Optuna sampler over the joint space.

    Args:
        trials: search trials (the enqueued prediction, default, baseline and design included).
        sampler_name: tpe, gp, cmaes or random.
        seed: the sampler's seed.
    """

    name = "bayes"

    def __init__(self, trials: int = DEFAULT_TRIALS, sampler_name: str = "tpe", seed: int | None = 0) -> None:
        if trials < 1:
            raise InputError(f"--trials: expected a positive number of trials, found {trials}")
        if sampler_name not in SAMPLERS:
            raise InputError(f"--sampler: unknown sampler {sampler_name!r}; choose from {', '.join(SAMPLERS)}")
        self.trials, self.sampler_name, self.seed = trials, sampler_name, seed

    @property
    def label(self) -> str:
        return f"{self.name}-{self.sampler_name}"

    def parameters(self) -> dict[str, Any]:
        return {"trials": self.trials, "sampler": self.sampler_name, "seed": self.seed}

    def sampler(self, space: SearchSpace, seed_offset: int = 0, workers: int = 1) -> BaseSampler:
        seed = None if self.seed is None else (self.seed + seed_offset) % 2**31
        return make_sampler(self.sampler_name, seed, workers)

    @property
    def samples(self) -> bool:
        return True

    def first_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        specials_inside, design = super().first_trials(space, specials), initial_design(space)
        if space.few_queries:  # its own shapes first, then the batch-minded specials
            design, specials_inside = specials_inside, design
        return list(dict.fromkeys(specials_inside + design))

    def sampled_trials(self, space: SearchSpace, enqueued: int) -> int:
        return max(0, self.trials - enqueued)

    def neighbourhood(self, space: SearchSpace, prediction: LaunchConfig | None) -> list[LaunchConfig]:
        """The prediction's neighbours, block sizes first (`search.neighbours.neighbourhood`):
        issue 28's seeded sweep searches them before the sampler proposes anything."""
        return [] if prediction is None else neighbourhood(prediction, space)

    def planned_trials(self, space: SearchSpace, specials: Sequence[LaunchConfig],
                       neighbours: Sequence[LaunchConfig] = ()) -> int:
        outside = sum(1 for c in specials if not space.contains(c))
        return outside + max(self.trials, len(dict.fromkeys([*self.first_trials(space, specials), *neighbours])))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Strategy:
        return cls(trials=int(data["trials"]), sampler_name=str(data.get("sampler", "tpe")), seed=data.get("seed"))


@register
class ModelOnly(Strategy):
    """No search: the prediction, the default and the baseline only (the cheapest useful run)."""

    name = "model"


def make_strategy(name: str, trials: int | None = None, sampler: str = "tpe", seed: int | None = 0) -> Strategy:
    """The strategy of the `--strategy` option.

    Raises:
        InputError: an unknown strategy or sampler, a bad number of trials, or trials given to a
            strategy without a sampler.
    """
    if name not in STRATEGIES:
        raise InputError(f"--strategy: unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    if name == Bayes.name:
        return Bayes(trials=DEFAULT_TRIALS if trials is None else trials, sampler_name=sampler, seed=seed)
    if trials is not None:
        raise InputError(f"--trials applies to --strategy bayes, not {name}")
    return STRATEGIES[name]()


def strategy_from_json(data: Mapping[str, Any]) -> Strategy:
    """The strategy a run plan or a table records (`Strategy.to_json`)."""
    name = data.get("name")
    if name not in STRATEGIES:
        raise InputError(f"run plan: unknown strategy {name!r}")
    return STRATEGIES[name].from_json(data)


def initial_design(space: SearchSpace) -> list[LaunchConfig]:
    """The trials the Bayesian search starts from, after the specials: one factor at a time along
    the solve-wide knobs, from the default projected into the space (256 threads or the nearest
    block size, default cache or the first cache state, lanes 1 or the fewest, every parameter at
    its default or the first value of its domain): the default at every CK, then, at the largest
    CK, every lanes value.

    CK and lanes interact with every kernel and dominate the solve time, and TPE samples each
    parameter on its own, so without these points it often never pairs a large CK with few lanes
    (the H100 bayes sweeps of commit 1f70f72, made without them and with CK and lanes as
    categoricals, ended 25-94% slower than the exhaustive optimum). With them, 25 trials came
    within 3% of it on all 13 H100 graphs
    (the benchmark suite `tuner` replays them over sampler seeds: docs/benchmarks.md).
    """
    entry = space.entry
    block = min(space.block_sizes, key=lambda b: (abs(b - 256), b))
    cache = CacheState.DEFAULT if CacheState.DEFAULT in space.caches else space.caches[0]
    lanes = min(space.lanes)
    params = {}
    for name, values in space.params:
        default = entry.parameter(name).default
        params[name] = default if default in values else values[0]
    base = entry.uniform(block, cache, min(space.concurrent_kernels), lanes, params)
    largest = max(space.concurrent_kernels)
    design = [base.replace(concurrent_kernels=ck) for ck in space.concurrent_kernels]
    for lanes_value in space.lanes:
        changes = {k: KernelLaunch(block, cache, lanes_value) for k in entry.lanes_kernels}
        design.append(base.replace(concurrent_kernels=largest, **changes))
    design = [entry.canonical(c) for c in design]
    if space.few_queries:  # the algorithm's own shapes for one query or a few first
        design = [*entry.latency_design(space), *design]
    return [config for config in dict.fromkeys(design) if space.contains(config)]


def composition_group(config: LaunchConfig) -> str:
    """What runs that may be composed share: everything but the kernels' block sizes and caches."""
    lanes = {k: launch.lanes for k, launch in config.kernels.items()}
    return repr((config.algorithm, config.concurrent_kernels, sorted(lanes.items()), sorted(config.params.items(),
                                                                                               key=str)))


def composed_candidates(measurements: Mapping[str, Sequence[Measurement]], space: SearchSpace) -> list[LaunchConfig]:
    """Per group of uniform runs that differ only in their kernels' launches (same CK, lanes and
    parameters), each kernel's best (block size, cache) from its own times in those runs.

    The composed configurations come back ranked by their estimated ms per SSSP: the sum of the
    chosen kernels' times plus the median, over the group's ok uniform runs, of the time outside
    the kernels. Only uniform runs whose every measurement is ok and that timed every kernel count.
    """
    kernels = space.kernels
    groups: dict[str, list[Measurement]] = {}
    for runs in measurements.values():
        config = runs[0].config
        if not space.is_grid_point(config) or not all(m.ok for m in runs):
            continue
        usable = [m for m in runs if all(k in m.kernel_ms for k in kernels)]
        if usable:
            groups.setdefault(composition_group(config), []).append(usable[0])
    ranked = []
    for runs in groups.values():
        reference = runs[0].config
        launches, estimate = {}, 0.0
        for kernel in kernels:
            best = min(runs, key=lambda m: (m.kernel_ms[kernel], m.config.key()))
            chosen = best.config.kernel(kernel)
            launches[kernel] = KernelLaunch(chosen.block_size, chosen.cache, reference.kernel(kernel).lanes)
            estimate += best.kernel_ms[kernel]
        estimate += statistics.median(m.ms_per_sssp - sum(m.kernel_ms[k] for k in kernels) for m in runs)
        config = space.entry.canonical(LaunchConfig(reference.concurrent_kernels, launches, reference.algorithm,
                                                    reference.params))
        ranked.append((estimate, config.key(), config))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return list(dict.fromkeys(config for _estimate, _key, config in ranked))
