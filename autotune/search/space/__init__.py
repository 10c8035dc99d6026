"""The search space of a sweep: for one algorithm, each kernel's block sizes and cache states, CK,
lanes (for the kernels that take them) and the algorithm's own parameters.

Two views of one space:

- the *uniform grid* of the thesis's exhaustive search: one (block size, cache) for every kernel,
  crossed with every CK, L and parameter value (`uniform_grid()`, the exhaustive search's points);
- the *joint space* of the Bayesian search: each kernel its own block size and cache, plus CK, L
  and the parameters (`distributions()` are the Optuna distributions, `to_params()` and
  `from_params()` translate).

A parameter's domain is the algorithm's (`autotune.algorithms.Parameter.domain`), derived from the
graph where it depends on it (Delta from the weights), unless the command line narrows it.

Example:
    >>> space = SearchSpace.from_options("crauser", block_sizes="64,128", caches="default", ck="1,2", lanes="1")
    >>> space.uniform_size
    4
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from optuna.distributions import BaseDistribution

from autotune import algorithms
from autotune.errors import InputError
from autotune.launch import (
    DEFAULT_ALGORITHM,
    MAX_BLOCK_SIZE,
    MAX_CONCURRENT_KERNELS,
    WARP_SIZE,
    CacheState,
    KernelLaunch,
    LaunchConfig,
)
from autotune.search.space.encoding import Choice, Ordinal, dimension
from autotune.search.space.options import join, parse_block_sizes, parse_caches, parse_ints

ALL_CACHES = tuple(CacheState)
DEFAULT_BLOCK_SIZES = tuple(range(WARP_SIZE, MAX_BLOCK_SIZE + 1, WARP_SIZE))
MAX_GRID_POINTS = 20_000  # an exhaustive grid larger than this is refused: narrow the space
FEW_QUERIES = 16  # the most SSSPs at once of the queries curve's middle (a study of CK 2 to 16)

# Parameter names of the uniform grid besides the algorithm's own; none is a name of the joint
# space, so a study may hold both kinds of trials (Optuna keeps one distribution per name).
GRID_BASE = ("block_size", "cache", "ck", "lanes")


@dataclass(frozen=True)
class SearchSpace:
    """Which values a sweep may try.

    Args:
        algorithm: the registered algorithm the space's configurations launch.
        block_sizes: the block sizes tried, ascending multiples of 32.
        caches: the cache states tried.
        concurrent_kernels: the CK values tried.
        lanes: the lanes-per-vertex values tried (kernels that take lanes).
        params: per algorithm parameter, its values (ordered as the parameter orders them).
        kernel_limits: per kernel, the largest block size it can be launched with (its
            compiled limit; 1024 where unknown). Block sizes above a kernel's limit are not
            tried for that kernel, nor in a uniform run.
    """

    algorithm: str = DEFAULT_ALGORITHM
    block_sizes: tuple[int, ...] = DEFAULT_BLOCK_SIZES
    caches: tuple[CacheState, ...] = ALL_CACHES
    concurrent_kernels: tuple[int, ...] = ()
    lanes: tuple[int, ...] = ()
    params: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    kernel_limits: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        entry = algorithms.get(self.algorithm)
        object.__setattr__(self, "block_sizes", tuple(sorted(set(self.block_sizes))))
        object.__setattr__(self, "caches", tuple(dict.fromkeys(CacheState(c) for c in self.caches)))
        object.__setattr__(self, "concurrent_kernels",
                           tuple(sorted(set(self.concurrent_kernels or entry.concurrent_kernels))))
        object.__setattr__(self, "lanes", tuple(sorted(set(self.lanes or entry.lanes_choices()))))
        given = dict(self.params.items() if isinstance(self.params, Mapping) else self.params)
        object.__setattr__(self, "params", tuple((p.name, tuple(given.get(p.name, p.domain()))) for p in entry.parameters))
        object.__setattr__(self, "kernel_limits", dict(self.kernel_limits))
        for b in self.block_sizes:
            if b % WARP_SIZE or not WARP_SIZE <= b <= MAX_BLOCK_SIZE:
                raise InputError(
                    f"--block-sizes: {b} is not a multiple of the warp size ({WARP_SIZE}) from "
                    f"{WARP_SIZE} to {MAX_BLOCK_SIZE}. Try 32,64,...,1024."
                )
        for ck in self.concurrent_kernels:
            if not 1 <= ck <= MAX_CONCURRENT_KERNELS:
                raise InputError(f"--ck: {ck} is outside 1..{MAX_CONCURRENT_KERNELS}. Try 1,2,4,...,64.")
        for lanes in self.lanes:
            if lanes not in entry.lanes_choices():
                raise InputError(f"--lanes: {lanes} is not one of {join(entry.lanes_choices())} for {self.algorithm}.")
        for name, what in (("--block-sizes", self.block_sizes), ("--caches", self.caches),
                           ("--ck", self.concurrent_kernels), ("--lanes", self.lanes)):
            if not what:
                raise InputError(f"{name}: give at least one value")
        for name, values in self.params:
            if not values:
                raise InputError(f"--param {name}: give at least one value")
            for value in values:
                entry.parameter(name).check(value, f"--param {name}")
        for kernel in entry.kernels:
            if not self.kernel_block_sizes(kernel):
                raise InputError(
                    f"--block-sizes: none of {join(self.block_sizes)} fits {kernel}, whose limit is "
                    f"{self.kernel_limits.get(kernel)} threads per block"
                )

    @classmethod
    def from_options(
        cls,
        algorithm: str = DEFAULT_ALGORITHM,
        block_sizes: str | None = None,
        caches: str | None = None,
        ck: str | None = None,
        lanes: str | None = None,
        params: Iterable[str] = (),
        graph: Any = None,
        kernel_limits: Mapping[str, int] | None = None,
    ) -> SearchSpace:
        """Build a space from command-line texts (`None` keeps the full range).

        Block sizes accept ranges: `64-512` is every multiple of 32 from 64 to 512. `params` are
        `--param NAME=V1,V2` texts; a parameter not given takes its domain on `graph` (the
        graph's features; without one, the parameter's fixed domain).

        Raises:
            InputError: naming the option and the bad item.
        """
        entry = algorithms.get(algorithm)
        values: dict[str, Any] = {"algorithm": algorithm, "kernel_limits": kernel_limits or {}}
        if block_sizes is not None:
            values["block_sizes"] = parse_block_sizes(block_sizes)
        if caches is not None:
            values["caches"] = parse_caches(caches)
        if ck is not None:
            values["concurrent_kernels"] = parse_ints(ck, "--ck")
        if lanes is not None:
            values["lanes"] = parse_ints(lanes, "--lanes")
        given = algorithms.parse_params(entry, params)
        values["params"] = tuple((p.name, given.get(p.name, p.domain(graph))) for p in entry.parameters)
        return cls(**values)

    @property
    def entry(self) -> algorithms.Algorithm:
        return algorithms.get(self.algorithm)

    @property
    def kernels(self) -> tuple[str, ...]:
        return self.entry.kernels

    @property
    def one_query(self) -> bool:
        """Whether the space runs one SSSP at a time (CK 1 alone: a search of one query's latency)."""
        return max(self.concurrent_kernels) == 1

    @property
    def few_queries(self) -> bool:
        """Whether the space is one query's (CK 1 alone) or a few queries' (CK 2 to `FEW_QUERIES`
        alone: the queries curve's middle, or a sweep for K of them): searched from the algorithm's
        own shapes for them (`Algorithm.latency_design`) before the batch-minded specials."""
        low, high = min(self.concurrent_kernels), max(self.concurrent_kernels)
        return high == 1 or (low >= 2 and high <= FEW_QUERIES)

    def param_values(self, name: str) -> tuple[Any, ...]:
        return dict(self.params)[name]

    # --- the uniform grid (exhaustive) -------------------------------------------------------

    def kernel_block_sizes(self, kernel: str) -> tuple[int, ...]:
        limit = self.kernel_limits.get(kernel, MAX_BLOCK_SIZE)
        return tuple(b for b in self.block_sizes if b <= limit)

    @property
    def uniform_block_sizes(self) -> tuple[int, ...]:
        """Block sizes every kernel can use (those of a uniform run)."""
        return tuple(b for b in self.block_sizes if all(b in self.kernel_block_sizes(k) for k in self.kernels))

    @property
    def grid_names(self) -> tuple[str, ...]:
        return GRID_BASE + tuple(name for name, _ in self.params)

    def uniform_grid(self) -> dict[str, list[Any]]:
        """The grid of uniform runs, by parameter: one (block size, cache) for all kernels, every
        CK, L and parameter value."""
        grid: dict[str, list[Any]] = {
            "block_size": list(self.uniform_block_sizes),
            "cache": [c.value for c in self.caches],
            "ck": list(self.concurrent_kernels),
            "lanes": list(self.lanes),
        }
        grid.update({name: list(values) for name, values in self.params})
        return grid

    def grid_points(self) -> list[dict[str, Any]]:
        """Every point of the uniform grid as trial parameters, in a fixed order."""
        grid = self.uniform_grid()
        names = self.grid_names
        return [dict(zip(names, point)) for point in itertools.product(*(grid[name] for name in names))]

    def uniform_configs(self) -> list[LaunchConfig]:
        """Every point of the uniform grid, as configurations."""
        return [self.from_grid_params(point) for point in self.grid_points()]

    @property
    def uniform_size(self) -> int:
        size = len(self.uniform_block_sizes) * len(self.caches) * len(self.concurrent_kernels) * len(self.lanes)
        for _, values in self.params:
            size *= len(values)
        return size

    def from_grid_params(self, params: Mapping[str, Any]) -> LaunchConfig:
        own = {name: params[name] for name, _ in self.params}
        return self.entry.uniform(int(params["block_size"]), params["cache"], int(params["ck"]),
                                  int(params["lanes"]), own)

    def is_grid_point(self, config: LaunchConfig) -> bool:
        """A uniform configuration (one block size and cache for all kernels) of the grid."""
        launches = {(k.block_size, k.cache) for k in config.kernels.values()}
        if len(launches) != 1 or not self.contains(config):
            return False
        block_size, _ = launches.pop()
        return block_size in self.uniform_block_sizes

    # --- the joint space (Bayesian) -----------------------------------------------------------

    def _dimensions(self) -> dict[str, Ordinal | Choice]:
        dims: dict[str, Ordinal | Choice] = {}
        for kernel in self.kernels:
            dims[f"{kernel}_block_size"] = Ordinal(f"{kernel}_block_size", self.kernel_block_sizes(kernel))
            dims[f"{kernel}_cache"] = Choice(f"{kernel}_cache", tuple(c.value for c in self.caches))
        for kernel in sorted(self.entry.lanes_kernels):
            dims[f"{kernel}_lanes"] = Ordinal(f"{kernel}_lanes", self.lanes)
        dims["concurrent_kernels"] = Ordinal("concurrent_kernels", self.concurrent_kernels)
        for name, values in self.params:
            parameter = self.entry.parameter(name)
            dims[name] = dimension(name, values, ordered=parameter.integers)
        return dims

    def distributions(self) -> dict[str, BaseDistribution]:
        """Optuna distributions of the joint space, by parameter name."""
        return {dim.param: dim.distribution() for dim in self._dimensions().values()}

    def to_params(self, config: LaunchConfig) -> dict[str, Any]:
        """The joint-space parameters of `config` (for `enqueue_trial`)."""
        dims = self._dimensions()
        values: dict[str, Any] = {}
        for kernel, launch in config.kernels.items():
            values[f"{kernel}_block_size"] = launch.block_size
            values[f"{kernel}_cache"] = launch.cache.value
            if kernel in self.entry.lanes_kernels:
                values[f"{kernel}_lanes"] = launch.lanes
        values["concurrent_kernels"] = config.concurrent_kernels
        values.update(config.params)
        return {dims[name].param: dims[name].encode(value) for name, value in values.items()}

    def from_params(self, params: Mapping[str, Any]) -> LaunchConfig:
        """The configuration of joint-space parameters (inverse of `to_params`, canonical)."""
        dims = self._dimensions()

        def value(name: str) -> Any:
            return dims[name].decode(params[dims[name].param])

        launches = {}
        for kernel in self.kernels:
            lanes = value(f"{kernel}_lanes") if kernel in self.entry.lanes_kernels else 1
            launches[kernel] = KernelLaunch(value(f"{kernel}_block_size"), CacheState(value(f"{kernel}_cache")), lanes)
        own = {name: value(name) for name, _ in self.params}
        return self.entry.canonical(LaunchConfig(value("concurrent_kernels"), launches, self.algorithm, own))

    # --- membership and identity --------------------------------------------------------------

    def why_not(self, config: LaunchConfig) -> str | None:
        """Why a configuration is outside the space (None when it is inside)."""
        if config.algorithm != self.algorithm:
            return f"a configuration of {config.algorithm}, not {self.algorithm}"
        if config.concurrent_kernels not in self.concurrent_kernels:
            return f"CK {config.concurrent_kernels} is not among {join(self.concurrent_kernels)}"
        for kernel, launch in config.kernels.items():
            if kernel in self.entry.lanes_kernels and launch.lanes not in self.lanes:
                return f"{kernel}: lanes {launch.lanes} is not among {join(self.lanes)}"
            if launch.block_size not in self.kernel_block_sizes(kernel):
                return f"{kernel}: block size {launch.block_size} is not among {join(self.kernel_block_sizes(kernel))}"
            if launch.cache not in self.caches:
                return f"{kernel}: cache {launch.cache.value} is not among {join(c.value for c in self.caches)}"
        for name, values in self.params:
            if config.param(name) not in values:
                return f"{name} {config.param(name)} is not among {join(values)}"
        return None

    def contains(self, config: LaunchConfig) -> bool:
        return self.why_not(config) is None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "algorithm": self.algorithm,
            "block_sizes": list(self.block_sizes),
            "caches": [c.value for c in self.caches],
            "concurrent_kernels": list(self.concurrent_kernels),
            "lanes": list(self.lanes),
            "kernel_limits": {k: self.kernel_limits[k] for k in sorted(self.kernel_limits)},
        }
        if self.params:
            data["params"] = {name: list(values) for name, values in self.params}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SearchSpace:
        return cls(algorithm=data.get("algorithm", DEFAULT_ALGORITHM), block_sizes=tuple(data["block_sizes"]),
                   caches=tuple(data["caches"]), concurrent_kernels=tuple(data["concurrent_kernels"]),
                   lanes=tuple(data["lanes"]), params=tuple((k, tuple(v)) for k, v in data.get("params", {}).items()),
                   kernel_limits=dict(data.get("kernel_limits", {})))

    def digest(self) -> str:
        """A short stable digest of the space (part of a study's name)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:10]
