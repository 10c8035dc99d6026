"""The search space of a sweep: block sizes, cache states, lanes (relax) and CK.

Two views of one space:

- the *uniform grid* of the thesis's exhaustive search: one (block size, cache) for every kernel,
  crossed with every CK and L (`uniform_grid()`, the points of the exhaustive search's trials);
- the *joint space* of the Bayesian search: each kernel its own block size and cache, plus CK and
  L (`distributions()` are the Optuna distributions, `to_params()`/`from_params()` translate).

Example:
    >>> space = SearchSpace.from_options(block_sizes="64,128", caches="default", ck="1,2", lanes="1")
    >>> space.uniform_size
    4
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution

from autotune.errors import InputError
from autotune.space import (
    CONCURRENT_KERNEL_CHOICES,
    LANE_CHOICES,
    MAX_BLOCK_SIZE,
    MAX_CONCURRENT_KERNELS,
    TUNED_KERNELS,
    WARP_SIZE,
    CacheState,
    KernelLaunch,
    LaunchConfig,
)

ALL_CACHES = tuple(CacheState)
DEFAULT_BLOCK_SIZES = tuple(range(WARP_SIZE, MAX_BLOCK_SIZE + 1, WARP_SIZE))

# Parameter names of the uniform grid (exhaustive search); none is a name of the joint space, so
# a study may hold both kinds of trials (Optuna keeps one distribution per parameter name).
GRID_PARAMS = ("block_size", "cache", "ck", "lanes")


def _is_arithmetic(values: tuple[int, ...]) -> bool:
    if len(values) < 2:
        return False
    step = values[1] - values[0]
    return step > 0 and all(b - a == step for a, b in zip(values, values[1:]))


def _is_power_of_two_run(values: tuple[int, ...]) -> bool:
    """1,2,4,8 or 4,8,16: consecutive powers of two."""
    if len(values) < 2 or any(v <= 0 or v & (v - 1) for v in values):
        return False
    return all(b == 2 * a for a, b in zip(values, values[1:]))


@dataclass(frozen=True)
class _Ordinal:
    """How one ordered integer dimension appears to Optuna.

    Arithmetic runs are an `IntDistribution` with a step, runs of powers of two an
    `IntDistribution` over the exponent (parameter name `<name>_log2`), and any other ascending
    set an `IntDistribution` over its positions (`<name>_index`; CK 1, 4, 16, 64 is 0..3); so
    ordered samplers (TPE, GP, CMA-ES) always see the order, which a categorical would hide.
    """

    name: str
    values: tuple[int, ...]

    @property
    def _kind(self) -> str:
        if _is_power_of_two_run(self.values):
            return "log2"
        return "step" if _is_arithmetic(self.values) else "index"

    @property
    def param(self) -> str:
        return {"log2": f"{self.name}_log2", "step": self.name, "index": f"{self.name}_index"}[self._kind]

    def distribution(self) -> BaseDistribution:
        v = self.values
        if self._kind == "log2":
            return IntDistribution(v[0].bit_length() - 1, v[-1].bit_length() - 1)
        if self._kind == "step":
            return IntDistribution(v[0], v[-1], step=v[1] - v[0])
        return IntDistribution(0, len(v) - 1)

    def encode(self, value: int) -> int:
        kind = self._kind
        if kind == "log2":
            return value.bit_length() - 1
        return value if kind == "step" else self.values.index(value)

    def decode(self, param: Any) -> int:
        kind = self._kind
        if kind == "log2":
            return 1 << int(param)
        return int(param) if kind == "step" else self.values[int(param)]


@dataclass(frozen=True)
class SearchSpace:
    """Which values a sweep may try.

    Args:
        block_sizes: the block sizes tried, ascending multiples of 32.
        caches: the cache states tried.
        concurrent_kernels: the CK values tried.
        lanes: the lanes-per-vertex values tried for relax.
        kernel_limits: per kernel, the largest block size it can be launched with (its
            compiled limit; 1024 where unknown). Block sizes above a kernel's limit are not
            tried for that kernel, nor in a uniform run.
    """

    block_sizes: tuple[int, ...] = DEFAULT_BLOCK_SIZES
    caches: tuple[CacheState, ...] = ALL_CACHES
    concurrent_kernels: tuple[int, ...] = CONCURRENT_KERNEL_CHOICES
    lanes: tuple[int, ...] = LANE_CHOICES
    kernel_limits: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "block_sizes", tuple(sorted(set(self.block_sizes))))
        object.__setattr__(self, "caches", tuple(dict.fromkeys(CacheState(c) for c in self.caches)))
        object.__setattr__(self, "concurrent_kernels", tuple(sorted(set(self.concurrent_kernels))))
        object.__setattr__(self, "lanes", tuple(sorted(set(self.lanes))))
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
            if lanes not in LANE_CHOICES:
                raise InputError(f"--lanes: {lanes} is not one of {','.join(map(str, LANE_CHOICES))}.")
        for name, what in (("--block-sizes", self.block_sizes), ("--caches", self.caches),
                           ("--ck", self.concurrent_kernels), ("--lanes", self.lanes)):
            if not what:
                raise InputError(f"{name}: give at least one value")
        for kernel in TUNED_KERNELS:
            if not self.kernel_block_sizes(kernel):
                raise InputError(
                    f"--block-sizes: none of {_join(self.block_sizes)} fits {kernel}, whose limit is "
                    f"{self.kernel_limits.get(kernel)} threads per block"
                )

    @classmethod
    def from_options(
        cls,
        block_sizes: str | None = None,
        caches: str | None = None,
        ck: str | None = None,
        lanes: str | None = None,
        kernel_limits: Mapping[str, int] | None = None,
    ) -> SearchSpace:
        """Build a space from command-line texts (`None` keeps the full range).

        Block sizes accept ranges: `64-512` is every multiple of 32 from 64 to 512.

        Raises:
            InputError: naming the option and the bad item.
        """
        values: dict[str, Any] = {"kernel_limits": kernel_limits or {}}
        if block_sizes is not None:
            values["block_sizes"] = _parse_block_sizes(block_sizes)
        if caches is not None:
            values["caches"] = _parse_caches(caches)
        if ck is not None:
            values["concurrent_kernels"] = _parse_ints(ck, "--ck")
        if lanes is not None:
            values["lanes"] = _parse_ints(lanes, "--lanes")
        return cls(**values)

    # --- the uniform grid (exhaustive) -------------------------------------------------------

    def kernel_block_sizes(self, kernel: str) -> tuple[int, ...]:
        limit = self.kernel_limits.get(kernel, MAX_BLOCK_SIZE)
        return tuple(b for b in self.block_sizes if b <= limit)

    @property
    def uniform_block_sizes(self) -> tuple[int, ...]:
        """Block sizes every kernel can use (those of a uniform run)."""
        return tuple(b for b in self.block_sizes
                     if all(b in self.kernel_block_sizes(k) for k in TUNED_KERNELS))

    def uniform_grid(self) -> dict[str, list[Any]]:
        """The grid of uniform runs, by parameter: one (block size, cache) for all kernels, every CK and L."""
        return {
            "block_size": list(self.uniform_block_sizes),
            "cache": [c.value for c in self.caches],
            "ck": list(self.concurrent_kernels),
            "lanes": list(self.lanes),
        }

    def uniform_configs(self) -> list[LaunchConfig]:
        """Every point of the uniform grid, as configurations."""
        grid = self.uniform_grid()
        return [self.from_grid_params(dict(zip(GRID_PARAMS, point)))
                for point in itertools.product(*(grid[name] for name in GRID_PARAMS))]

    @property
    def uniform_size(self) -> int:
        return len(self.uniform_block_sizes) * len(self.caches) * len(self.concurrent_kernels) * len(self.lanes)

    @staticmethod
    def from_grid_params(params: Mapping[str, Any]) -> LaunchConfig:
        return LaunchConfig.uniform(int(params["block_size"]), params["cache"], int(params["ck"]), int(params["lanes"]))

    def grid_distributions(self) -> dict[str, BaseDistribution]:
        return {name: CategoricalDistribution(values) for name, values in self.uniform_grid().items()}

    # --- the joint space (Bayesian) -----------------------------------------------------------

    def _ordinals(self) -> dict[str, _Ordinal]:
        dims = {f"{k}_block_size": _Ordinal(f"{k}_block_size", self.kernel_block_sizes(k)) for k in TUNED_KERNELS}
        dims["concurrent_kernels"] = _Ordinal("concurrent_kernels", self.concurrent_kernels)
        dims["relax_lanes"] = _Ordinal("relax_lanes", self.lanes)
        return dims

    def distributions(self) -> dict[str, BaseDistribution]:
        """Optuna distributions of the joint space, by parameter name."""
        out: dict[str, BaseDistribution] = {}
        for kernel in TUNED_KERNELS:
            ordinal = self._ordinals()[f"{kernel}_block_size"]
            out[ordinal.param] = ordinal.distribution()
            out[f"{kernel}_cache"] = CategoricalDistribution([c.value for c in self.caches])
        for name in ("relax_lanes", "concurrent_kernels"):
            ordinal = self._ordinals()[name]
            out[ordinal.param] = ordinal.distribution()
        return out

    def to_params(self, config: LaunchConfig) -> dict[str, Any]:
        """The joint-space parameters of `config` (for `enqueue_trial`)."""
        ordinals = self._ordinals()
        params: dict[str, Any] = {}
        for kernel, launch in config.kernels.items():
            ordinal = ordinals[f"{kernel}_block_size"]
            params[ordinal.param] = ordinal.encode(launch.block_size)
            params[f"{kernel}_cache"] = launch.cache.value
        for name, value in (("relax_lanes", config.lanes), ("concurrent_kernels", config.concurrent_kernels)):
            params[ordinals[name].param] = ordinals[name].encode(value)
        return params

    def from_params(self, params: Mapping[str, Any]) -> LaunchConfig:
        """The configuration of joint-space parameters (inverse of `to_params`)."""
        ordinals = self._ordinals()

        def value(name: str) -> int:
            return ordinals[name].decode(params[ordinals[name].param])

        lanes = value("relax_lanes")
        launches = {
            k: KernelLaunch(value(f"{k}_block_size"), CacheState(params[f"{k}_cache"]), lanes if k == "relax" else 1)
            for k in TUNED_KERNELS
        }
        return LaunchConfig(concurrent_kernels=value("concurrent_kernels"), **launches)

    @property
    def joint_size(self) -> int:
        size = len(self.concurrent_kernels) * len(self.lanes)
        for kernel in TUNED_KERNELS:
            size *= len(self.kernel_block_sizes(kernel)) * len(self.caches)
        return size

    # --- validity and identity ----------------------------------------------------------------

    def why_not(self, config: LaunchConfig) -> str | None:
        """Why `config` is outside the space, or None when it is inside."""
        if config.concurrent_kernels not in self.concurrent_kernels:
            return f"CK {config.concurrent_kernels} is not among {_join(self.concurrent_kernels)}"
        if config.lanes not in self.lanes:
            return f"lanes {config.lanes} is not among {_join(self.lanes)}"
        for kernel, launch in config.kernels.items():
            if launch.block_size not in self.kernel_block_sizes(kernel):
                return f"{kernel}: block size {launch.block_size} is not among {_join(self.kernel_block_sizes(kernel))}"
            if launch.cache not in self.caches:
                return f"{kernel}: cache {launch.cache.value} is not among {_join(c.value for c in self.caches)}"
        return None

    def contains(self, config: LaunchConfig) -> bool:
        return self.why_not(config) is None

    def to_json(self) -> dict[str, Any]:
        return {
            "block_sizes": list(self.block_sizes),
            "caches": [c.value for c in self.caches],
            "concurrent_kernels": list(self.concurrent_kernels),
            "lanes": list(self.lanes),
            "kernel_limits": {k: self.kernel_limits[k] for k in sorted(self.kernel_limits)},
        }

    def digest(self) -> str:
        """A short stable digest of the space (part of a study's name)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:10]


def _join(values: Iterable[object]) -> str:
    return ",".join(str(v) for v in values)


def _parse_ints(text: str, option: str) -> tuple[int, ...]:
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            values.append(int(item))
        except ValueError:
            raise InputError(f"{option}: {item!r} is not an integer") from None
    if not values:
        raise InputError(f"{option}: give at least one value")
    return tuple(values)


def _parse_block_sizes(text: str) -> tuple[int, ...]:
    values: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if "-" in item:
            low_text, _, high_text = item.partition("-")
            low, high = _parse_ints(low_text, "--block-sizes")[0], _parse_ints(high_text, "--block-sizes")[0]
            if low > high:
                raise InputError(f"--block-sizes: range {item} runs backwards. Try 64-512.")
            first = -(-low // WARP_SIZE) * WARP_SIZE
            values.extend(range(first, high + 1, WARP_SIZE))
        elif item:
            values.extend(_parse_ints(item, "--block-sizes"))
    if not values:
        raise InputError("--block-sizes: give at least one block size, e.g. 64,128,256 or 64-512")
    return tuple(values)


def _parse_caches(text: str) -> tuple[CacheState, ...]:
    states = []
    for item in text.split(","):
        item = item.strip().lower().replace("-", "_")
        if not item:
            continue
        try:
            states.append(CacheState(item))
        except ValueError:
            names = ",".join(c.value for c in CacheState)
            raise InputError(f"--caches: unknown cache state {item!r}. Choose from {names}.") from None
    if not states:
        raise InputError("--caches: give at least one cache state")
    return tuple(states)
