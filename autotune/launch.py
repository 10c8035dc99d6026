"""Launch configurations: the values the tuner searches over, and how they read and write as JSON.

A `LaunchConfig` is hashable, comparable and printable, so one object serves as a dict key, a cache
key and a log line. It names its algorithm, holds one `KernelLaunch` per tuned kernel of that
algorithm (in the algorithm's order), the number of concurrent SSSP instances (CK) and the
algorithm's own parameters. Its JSON form is exactly what tables and records store::

    {"algorithm": "crauser", "concurrent_kernels": 8,
     "kernels": {"relax": {"block_size": 256, "cache": "prefer_l1", "lanes": 8},
                 "minimum": {"block_size": 128, "cache": "default"},
                 "update": {"block_size": 128, "cache": "no_l1"}}}

    {"algorithm": "delta", "concurrent_kernels": 64,
     "kernels": {"advance": {"block_size": 512, "cache": "default"},
                 "split": {"block_size": 512, "cache": "default"}},
     "params": {"delta": 32, "loop": "persistent", "blocks": 2, "warp_threshold": 32,
                "block_threshold": 1024}}

This module knows the shape only; which kernels and parameters an algorithm has, and their
domains, are the algorithm's (`autotune.algorithms`), which checks a configuration against them.
Written before the algorithm field existed, a configuration reads as the algorithm its table or
record names (`default_algorithm`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping

from autotune.errors import InputError

WARP_SIZE = 32
MAX_BLOCK_SIZE = 1024
LANE_CHOICES = (1, 2, 4, 8, 16, 32)
CONCURRENT_KERNEL_CHOICES = (1, 2, 4, 8, 16, 32, 64)
MAX_CONCURRENT_KERNELS = 1024
ParamValue = int | str


class CacheState(str, Enum):
    """L1 cache state of a kernel (thesis 4.5 names in comments)."""

    DEFAULT = "default"  # the driver's choice
    PREFER_L1 = "prefer_l1"  # shared-memory carveout 0: the thesis's "increased" L1
    PREFER_SHARED = "prefer_shared"  # carveout 100: the thesis's "normal" L1
    NO_L1 = "no_l1"  # global loads bypass L1 (-DNO_L1=1 -Xptxas -dlcm=cg): the thesis's "deactivated" L1

    def __str__(self) -> str:
        return self.value


def _check_block_size(block_size: object, where: str) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, int):
        raise InputError(f"{where}: block_size must be an integer, found {block_size!r}")
    if block_size < WARP_SIZE or block_size > MAX_BLOCK_SIZE or block_size % WARP_SIZE:
        raise InputError(
            f"{where}: block_size {block_size} is not a multiple of the warp size ({WARP_SIZE}) "
            f"between {WARP_SIZE} and {MAX_BLOCK_SIZE}. Try 32,64,...,1024."
        )
    return block_size


def _check_cache(cache: object, where: str) -> CacheState:
    try:
        return CacheState(cache)
    except ValueError:
        names = ", ".join(state.value for state in CacheState)
        raise InputError(f"{where}: unknown cache state {cache!r}; expected one of {names}") from None


@dataclass(frozen=True, order=True)
class KernelLaunch:
    """How one kernel is launched.

    Args:
        block_size: threads per block, a multiple of 32 up to 1024.
        cache: the L1 cache state.
        lanes: threads that share one vertex's edge list (1 = thread per vertex); only a kernel
            that its algorithm lets take lanes may have more than 1.
    """

    block_size: int
    cache: CacheState = CacheState.DEFAULT
    lanes: int = 1

    def __post_init__(self) -> None:
        _check_block_size(self.block_size, "kernel launch")
        object.__setattr__(self, "cache", _check_cache(self.cache, "kernel launch"))
        if isinstance(self.lanes, bool) or self.lanes not in LANE_CHOICES:
            raise InputError(f"lanes must be one of {LANE_CHOICES}, found {self.lanes!r}")

    def to_json(self, with_lanes: bool) -> dict[str, Any]:
        data: dict[str, Any] = {"block_size": self.block_size, "cache": self.cache.value}
        if with_lanes:
            data["lanes"] = self.lanes
        return data

    @classmethod
    def from_json(cls, data: Any, where: str) -> KernelLaunch:
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected an object")
        unknown = set(data) - {"block_size", "cache", "lanes"}
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if "block_size" not in data:
            raise InputError(f"{where}: needs 'block_size'")
        block_size = _check_block_size(data["block_size"], where)
        cache = _check_cache(data.get("cache", "default"), where)
        lanes = data.get("lanes", 1)
        if isinstance(lanes, bool) or lanes not in LANE_CHOICES:
            raise InputError(f"{where}: lanes must be one of {', '.join(map(str, LANE_CHOICES))}, found {lanes!r}")
        return cls(block_size, cache, lanes)

    def __str__(self) -> str:
        lanes = f"/L{self.lanes}" if self.lanes != 1 else ""
        return f"{self.block_size}:{self.cache.value}{lanes}"


def _param_sort_key(item: tuple[str, ParamValue]) -> tuple[str, str]:
    return item[0], str(item[1])


# The algorithm a configuration, a table or a command means when it names none: GPU Crauser, the
# thesis's algorithm (tables and records of schema 1 predate the others). Its one place.
DEFAULT_ALGORITHM = "crauser"


@dataclass(frozen=True)
class LaunchConfig:
    """A whole solve's launch configuration.

    Args:
        concurrent_kernels: CK, the number of SSSP instances in flight at once (thesis 4.6.1).
        kernels: (kernel name, `KernelLaunch`) pairs, in the algorithm's kernel order (a mapping
            is accepted and kept in its order).
        algorithm: the registered algorithm the configuration launches (`autotune.algorithms`).
        params: the algorithm's own parameters (a mapping is accepted; kept sorted by name).

    Kernel launches read as attributes too: `config.relax` is `config.kernel("relax")`.
    """

    concurrent_kernels: int
    kernels_: tuple[tuple[str, KernelLaunch], ...]
    algorithm: str = DEFAULT_ALGORITHM
    params_: tuple[tuple[str, ParamValue], ...] = ()

    def __init__(self, concurrent_kernels: int, kernels: Mapping[str, KernelLaunch] | Iterable[tuple[str, KernelLaunch]],
                 algorithm: str = DEFAULT_ALGORITHM, params: Mapping[str, ParamValue] | Iterable[tuple[str, ParamValue]] = ()) -> None:
        pairs = tuple(kernels.items()) if isinstance(kernels, Mapping) else tuple(kernels)
        param_pairs = tuple(params.items()) if isinstance(params, Mapping) else tuple(params)
        object.__setattr__(self, "concurrent_kernels", concurrent_kernels)
        object.__setattr__(self, "kernels_", pairs)
        object.__setattr__(self, "algorithm", algorithm)
        object.__setattr__(self, "params_", tuple(sorted(param_pairs, key=_param_sort_key)))
        self._check()

    def _check(self) -> None:
        ck = self.concurrent_kernels
        if isinstance(ck, bool) or not isinstance(ck, int) or not 1 <= ck <= MAX_CONCURRENT_KERNELS:
            raise InputError(
                f"concurrent_kernels must be an integer from 1 to {MAX_CONCURRENT_KERNELS}, found {ck!r}"
            )
        if not self.kernels_:
            raise InputError("a launch configuration needs at least one kernel")
        for name, launch in self.kernels_:
            if not isinstance(launch, KernelLaunch):
                raise InputError(f"kernel {name}: expected a KernelLaunch, found {type(launch).__name__}")
        if len({name for name, _ in self.kernels_}) != len(self.kernels_):
            raise InputError("a kernel is named twice")
        for name, value in self.params_:
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise InputError(f"parameter {name}: expected an integer or a name, found {value!r}")

    @classmethod
    def of(cls, concurrent_kernels: int, algorithm: str = DEFAULT_ALGORITHM,
           params: Mapping[str, ParamValue] | None = None, **kernels: KernelLaunch) -> LaunchConfig:
        """`LaunchConfig.of(8, relax=..., minimum=..., update=...)`: kernels as keywords."""
        return cls(concurrent_kernels, kernels, algorithm, params or {})

    # --- reading ---------------------------------------------------------------------------------

    @property
    def kernels(self) -> Mapping[str, KernelLaunch]:
        return dict(self.kernels_)

    @property
    def kernel_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.kernels_)

    def kernel(self, name: str) -> KernelLaunch:
        for kernel, launch in self.kernels_:
            if kernel == name:
                return launch
        raise KeyError(f"{self.algorithm} has no kernel {name!r}")

    def __getattr__(self, name: str) -> KernelLaunch:
        # only reached for names that are no field: kernel launches by name (config.relax)
        if name.startswith("_") or name in ("kernels_", "params_"):
            raise AttributeError(name)
        try:
            return self.kernel(name)
        except KeyError:
            raise AttributeError(f"LaunchConfig of {self.algorithm} has no attribute or kernel {name!r}") from None

    @property
    def params(self) -> Mapping[str, ParamValue]:
        return dict(self.params_)

    def param(self, name: str, default: ParamValue | None = None) -> ParamValue | None:
        return dict(self.params_).get(name, default)

    @property
    def lanes(self) -> int:
        """Lanes per vertex of the kernel that has them (1 when none does)."""
        return max(launch.lanes for _, launch in self.kernels_)

    def replace(self, **changes: Any) -> LaunchConfig:
        """A copy with some values changed: `concurrent_kernels`, `algorithm`, whole kernels by
        name, or parameters by name."""
        ck = changes.pop("concurrent_kernels", self.concurrent_kernels)
        algorithm = changes.pop("algorithm", self.algorithm)
        kernels = dict(self.kernels_)
        params = dict(self.params_)
        for name, value in changes.items():
            if name in kernels:
                kernels[name] = value
            elif isinstance(value, KernelLaunch):
                raise InputError(f"{algorithm} has no kernel {name!r}")
            else:
                params[name] = value
        return LaunchConfig(ck, kernels, algorithm, params)

    # --- JSON ------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "algorithm": self.algorithm,
            "concurrent_kernels": self.concurrent_kernels,
            "kernels": {name: launch.to_json(with_lanes=launch.lanes != 1) for name, launch in self.kernels_},
        }
        if self.params_:
            data["params"] = dict(self.params_)
        return data

    def key(self) -> str:
        """A canonical one-line JSON text, stable across runs (for records and caches)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any, where: str = "config", default_algorithm: str = DEFAULT_ALGORITHM) -> LaunchConfig:
        """Read the JSON form (its shape; `autotune.algorithms.config_from_json` also checks it
        against its algorithm). Every error names `where` and what was wrong.

        Raises:
            InputError: a missing or unknown key, or a value out of range.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected a JSON object, found {type(data).__name__}")
        unknown = set(data) - {"concurrent_kernels", "kernels", "algorithm", "params"}
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if "concurrent_kernels" not in data or "kernels" not in data:
            raise InputError(f"{where}: needs the keys 'concurrent_kernels' and 'kernels'")
        kernels = data["kernels"]
        if not isinstance(kernels, Mapping) or not kernels:
            raise InputError(f"{where}: 'kernels' must be a non-empty object")
        algorithm = data.get("algorithm", default_algorithm)
        if not isinstance(algorithm, str):
            raise InputError(f"{where}: 'algorithm' must be a name, found {algorithm!r}")
        params = data.get("params", {})
        if not isinstance(params, Mapping):
            raise InputError(f"{where}: 'params' must be an object")
        launches = {name: KernelLaunch.from_json(value, f"{where}: kernels.{name}") for name, value in kernels.items()}
        try:
            return cls(data["concurrent_kernels"], launches, algorithm, params)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None

    def sort_key(self) -> tuple[Any, ...]:
        """Configurations order by CK, then their kernels' launches in order (block size, cache,
        lanes), then algorithm and parameters."""
        return (self.concurrent_kernels, tuple(launch for _, launch in self.kernels_), self.algorithm,
                tuple((name, str(value)) for name, value in self.params_))

    def __lt__(self, other: LaunchConfig) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        kernels = " ".join(f"{name}={launch}" for name, launch in self.kernels_)
        params = "".join(f" {name}={value}" for name, value in self.params_)
        return f"{self.algorithm} CK{self.concurrent_kernels} {kernels}{params}"


def block_sizes(limit: int = MAX_BLOCK_SIZE) -> tuple[int, ...]:
    """Every block size the space holds: multiples of the warp size up to `limit`."""
    return tuple(range(WARP_SIZE, min(limit, MAX_BLOCK_SIZE) + 1, WARP_SIZE))
