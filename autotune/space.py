"""Launch configurations: the values the tuner searches over, and how they read and write as JSON.

A `LaunchConfig` is hashable, comparable and printable, so one object serves as a dict key, a cache
key and a log line. Its JSON form is exactly what tables store::

    {"concurrent_kernels": 8,
     "kernels": {"relax": {"block_size": 256, "cache": "prefer_l1", "lanes": 8},
                 "minimum": {"block_size": 128, "cache": "default"},
                 "update": {"block_size": 128, "cache": "no_l1"}}}
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Mapping

from autotune.errors import InputError

WARP_SIZE = 32
MAX_BLOCK_SIZE = 1024
TUNED_KERNELS = ("relax", "minimum", "update")
LANE_CHOICES = (1, 2, 4, 8, 16, 32)
CONCURRENT_KERNEL_CHOICES = (1, 2, 4, 8, 16, 32, 64)
MAX_CONCURRENT_KERNELS = 1024


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
        lanes: threads that share one vertex's edge list (relax only; 1 = thread per vertex).
    """

    block_size: int
    cache: CacheState = CacheState.DEFAULT
    lanes: int = 1

    def __post_init__(self) -> None:
        _check_block_size(self.block_size, "kernel launch")
        object.__setattr__(self, "cache", _check_cache(self.cache, "kernel launch"))
        if self.lanes not in LANE_CHOICES:
            raise InputError(f"lanes must be one of {LANE_CHOICES}, found {self.lanes!r}")

    def to_json(self, with_lanes: bool) -> dict[str, Any]:
        data: dict[str, Any] = {"block_size": self.block_size, "cache": self.cache.value}
        if with_lanes:
            data["lanes"] = self.lanes
        return data

    def __str__(self) -> str:
        lanes = f"/L{self.lanes}" if self.lanes != 1 else ""
        return f"{self.block_size}:{self.cache.value}{lanes}"


@dataclass(frozen=True, order=True)
class LaunchConfig:
    """A whole solve's launch configuration: one `KernelLaunch` per tuned kernel, plus CK.

    Args:
        concurrent_kernels: CK, the number of SSSP instances in flight at once (thesis 4.6.1).
        relax, minimum, update: the launches of the three tuned kernels.
    """

    concurrent_kernels: int
    relax: KernelLaunch
    minimum: KernelLaunch
    update: KernelLaunch

    def __post_init__(self) -> None:
        ck = self.concurrent_kernels
        if isinstance(ck, bool) or not isinstance(ck, int) or not 1 <= ck <= MAX_CONCURRENT_KERNELS:
            raise InputError(
                f"concurrent_kernels must be an integer from 1 to {MAX_CONCURRENT_KERNELS}, found {ck!r}"
            )
        for name in ("minimum", "update"):
            if getattr(self, name).lanes != 1:
                raise InputError(f"lanes applies to relax only; {name} has lanes {getattr(self, name).lanes}")

    @property
    def kernels(self) -> Mapping[str, KernelLaunch]:
        return {name: getattr(self, name) for name in TUNED_KERNELS}

    @property
    def lanes(self) -> int:
        return self.relax.lanes

    @classmethod
    def uniform(
        cls,
        block_size: int,
        cache: CacheState | str = CacheState.DEFAULT,
        concurrent_kernels: int = 1,
        lanes: int = 1,
    ) -> LaunchConfig:
        """One block size and cache state for every kernel (the thesis's way to search)."""
        cache = CacheState(cache)
        return cls(
            concurrent_kernels=concurrent_kernels,
            relax=KernelLaunch(block_size, cache, lanes),
            minimum=KernelLaunch(block_size, cache),
            update=KernelLaunch(block_size, cache),
        )

    @classmethod
    def default(cls) -> LaunchConfig:
        """The thesis's default: 256 threads and the default cache for every kernel, CK 1, L 1."""
        return cls.uniform(256)

    def replace(self, **changes: Any) -> LaunchConfig:
        """Return a copy with some fields changed: `concurrent_kernels` or whole kernels."""
        values = {"concurrent_kernels": self.concurrent_kernels, **self.kernels, **changes}
        return LaunchConfig(**values)

    def to_json(self) -> dict[str, Any]:
        return {
            "concurrent_kernels": self.concurrent_kernels,
            "kernels": {
                name: launch.to_json(with_lanes=name == "relax") for name, launch in self.kernels.items()
            },
        }

    def key(self) -> str:
        """A canonical one-line JSON text, stable across runs (for records and caches)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any, where: str = "config") -> LaunchConfig:
        """Read the JSON form; every error names `where` and what was wrong.

        Raises:
            InputError: a missing or unknown key, or a value out of range.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected a JSON object, found {type(data).__name__}")
        unknown = set(data) - {"concurrent_kernels", "kernels"}
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if "concurrent_kernels" not in data or "kernels" not in data:
            raise InputError(f"{where}: needs the keys 'concurrent_kernels' and 'kernels'")
        kernels = data["kernels"]
        if not isinstance(kernels, Mapping):
            raise InputError(f"{where}: 'kernels' must be an object")
        missing = [name for name in TUNED_KERNELS if name not in kernels]
        extra = sorted(set(kernels) - set(TUNED_KERNELS))
        if missing or extra:
            raise InputError(
                f"{where}: 'kernels' must hold exactly {', '.join(TUNED_KERNELS)}"
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown {', '.join(extra)}" if extra else "")
            )
        launches = {}
        for name in TUNED_KERNELS:
            launches[name] = _launch_from_json(kernels[name], f"{where}: kernels.{name}", name == "relax")
        try:
            return cls(concurrent_kernels=data["concurrent_kernels"], **launches)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None

    def __str__(self) -> str:
        return (
            f"CK{self.concurrent_kernels} relax={self.relax} minimum={self.minimum} update={self.update}"
        )


def _launch_from_json(data: Any, where: str, allow_lanes: bool) -> KernelLaunch:
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected an object")
    allowed = {"block_size", "cache"} | ({"lanes"} if allow_lanes else set())
    unknown = set(data) - allowed
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if "block_size" not in data:
        raise InputError(f"{where}: needs 'block_size'")
    block_size = _check_block_size(data["block_size"], where)
    cache = _check_cache(data.get("cache", "default"), where)
    lanes = data.get("lanes", 1)
    if lanes not in LANE_CHOICES or isinstance(lanes, bool):
        raise InputError(f"{where}: lanes must be one of {', '.join(map(str, LANE_CHOICES))}, found {lanes!r}")
    return KernelLaunch(block_size, cache, lanes)


def load_config(text_or_path: str) -> LaunchConfig:
    """Read a configuration given on the command line: a JSON text or the path of a JSON file.

    Raises:
        InputError: unreadable file, invalid JSON (with line), or an invalid configuration.
    """
    stripped = text_or_path.lstrip()
    if stripped.startswith("{"):
        where, text = "--config", text_or_path
    else:
        path = Path(text_or_path)
        where = str(path)
        try:
            text = path.read_text()
        except OSError as error:
            raise InputError(f"{path}: cannot read the configuration: {error.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}:{error.lineno}: invalid JSON: {error.msg}") from None
    return LaunchConfig.from_json(data, where)


def block_sizes(limit: int = MAX_BLOCK_SIZE) -> tuple[int, ...]:
    """Every block size the space holds: multiples of the warp size up to `limit`."""
    return tuple(range(WARP_SIZE, min(limit, MAX_BLOCK_SIZE) + 1, WARP_SIZE))


def parse_int_list(text: str, option: str, allowed: Iterable[int] | None = None) -> tuple[int, ...]:
    """Parse '32,64,128' from an option; InputError naming the option on a bad item."""
    values = []
    allowed_set = set(allowed) if allowed is not None else None
    for item in text.split(","):
        item = item.strip()
        try:
            value = int(item)
        except ValueError:
            raise InputError(f"{option}: {item!r} is not an integer") from None
        if allowed_set is not None and value not in allowed_set:
            raise InputError(f"{option}: {value} is not allowed; choose from {sorted(allowed_set)}")
        values.append(value)
    if not values:
        raise InputError(f"{option}: give at least one value")
    return tuple(dict.fromkeys(values))
