"""Device profiles: the per-SM limits of a GPU that the occupancy calculation needs.

A profile is a TOML file (`characterizations/devices/<name>.toml`, or any file a user writes) with
the keys of `REQUIRED_KEYS`, plus optional keys that refine the calculation (`OPTIONAL_KEYS`,
defaults below). `load_device("auto")` reads the live GPU's attributes through PyCUDA instead,
imported only then, so everything else works on a machine without CUDA.

Example::

    >>> device = load_device("fermi-gf100")
    >>> device.sm_count * device.max_threads_per_sm   # the thesis's 23 040 threads (4.6.1)
    23040
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from autotune.errors import GpuUnavailable, InputError
from autotune.files import read_toml
from autotune.resources import characterizations_dir
from autotune.launch import CacheState

REQUIRED_KEYS = (
    "name",
    "compute_capability",
    "sm_count",
    "warp_size",
    "max_threads_per_sm",
    "max_blocks_per_sm",
    "registers_per_sm",
    "register_allocation_unit",
    "max_registers_per_thread",
    "shared_memory_per_sm",
    "max_threads_per_block",
)
OPTIONAL_KEYS = (
    "description",
    "max_registers_per_block",
    "max_shared_memory_per_block",
    "shared_memory_allocation_unit",
    "shared_memory_configs",
    "reserved_shared_memory_per_block",
    "register_file_partitions",
    "max_concurrent_kernels",
    "global_memory_bytes",
)
AUTO = "auto"


@dataclass(frozen=True)
class DeviceProfile:
    """What the model knows about one GPU.

    Args:
        name: the profile's name (`hopper-h100`), or the GPU's name for `auto`.
        compute_capability: "major.minor", e.g. "9.0".
        sm_count: streaming multiprocessors.
        warp_size: threads per warp.
        max_threads_per_sm: resident threads per SM.
        max_blocks_per_sm: resident blocks per SM.
        registers_per_sm: 32-bit registers of one SM's register file.
        register_allocation_unit: registers are given to a warp in multiples of this.
        max_registers_per_thread: a kernel using more cannot launch.
        shared_memory_per_sm: the most shared memory an SM can give its blocks (bytes).
        max_threads_per_block: the largest block.
        description: the product, for people.
        max_registers_per_block: defaults to `registers_per_sm`.
        max_shared_memory_per_block: the most one block may use (bytes), opt-in included.
        shared_memory_allocation_unit: a block's shared memory is rounded up to this (bytes).
        shared_memory_configs: the shared-memory sizes an SM can be configured to (bytes,
            ascending): the L1/shared split. `prefer_l1` takes the smallest that fits a block.
        reserved_shared_memory_per_block: shared memory the driver keeps per block (1 KB on 8.0+).
        register_file_partitions: sub-partitions of the register file (2 on Fermi, 4 from Kepler
            on, 2 on GP100).
        max_concurrent_kernels: kernels the GPU runs at once (None: unknown).
        global_memory_bytes: the GPU's memory (None: unknown), which bounds the concurrent
            instances a model predicts (`Algorithm.instances_that_fit`). Not part of `to_json`:
            tables and records keep the profile they always had.
        origin: where the profile came from: "shipped", a file path, or "auto".
    """

    name: str
    compute_capability: str
    sm_count: int
    warp_size: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    register_allocation_unit: int
    max_registers_per_thread: int
    shared_memory_per_sm: int
    max_threads_per_block: int
    description: str = ""
    max_registers_per_block: int = 0
    max_shared_memory_per_block: int = 0
    shared_memory_allocation_unit: int = 256
    shared_memory_configs: tuple[int, ...] = ()
    reserved_shared_memory_per_block: int = 0
    register_file_partitions: int = 1
    max_concurrent_kernels: int | None = None
    global_memory_bytes: int | None = field(default=None, compare=False)
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.max_registers_per_block:
            object.__setattr__(self, "max_registers_per_block", self.registers_per_sm)
        if not self.max_shared_memory_per_block:
            object.__setattr__(self, "max_shared_memory_per_block", min(self.shared_memory_per_sm, 49152))
        configs = tuple(sorted(set(self.shared_memory_configs) | {self.shared_memory_per_sm}))
        object.__setattr__(self, "shared_memory_configs", configs)

    @property
    def compute_capability_tuple(self) -> tuple[int, int]:
        major, _, minor = self.compute_capability.partition(".")
        return int(major), int(minor or 0)

    @property
    def sm_arch(self) -> str:
        """The nvcc architecture name, e.g. "sm_90"."""
        major, minor = self.compute_capability_tuple
        return f"sm_{major}{minor}"

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @property
    def max_resident_threads(self) -> int:
        """SMs x max threads per SM: the denominator of the stressing ratio st(G, GPU)."""
        return self.sm_count * self.max_threads_per_sm

    def preferred_shared_memory_per_sm(self, cache: CacheState) -> int:
        """The shared memory per SM that a cache state asks for (before fitting a block).

        `prefer_l1` asks for the smallest configuration (the thesis's "increased" L1: 16 KB of
        shared memory on Fermi and Kepler, a carveout of 0 from Volta on); every other state
        leaves the most shared memory (`no_l1` is a compile option, not a carveout).
        """
        if cache is CacheState.PREFER_L1:
            return self.shared_memory_configs[0]
        return self.shared_memory_per_sm

    def to_json(self) -> dict[str, Any]:
        """The profile as a JSON object (every field but `origin` and `global_memory_bytes`)."""
        data: dict[str, Any] = {}
        for item in fields(self):
            if item.name in ("origin", "global_memory_bytes"):
                continue
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        return data


def devices_dir() -> Path:
    """The directory of the shipped device profiles."""
    return characterizations_dir() / "devices"


def shipped_device_names() -> tuple[str, ...]:
    """Names of the shipped profiles, sorted."""
    return tuple(sorted(path.stem for path in devices_dir().glob("*.toml")))


def shipped_devices() -> tuple[DeviceProfile, ...]:
    """Every shipped profile, sorted by name."""
    return tuple(load_device_file(devices_dir() / f"{name}.toml", origin="shipped") for name in shipped_device_names())


def load_device(spec: str) -> DeviceProfile:
    """Load a device profile: a shipped name or a TOML file (`auto`, the live GPU, is
    `autotune.gpu.device.load_profile`'s: this package never touches CUDA).

    Args:
        spec: `hopper-h100` or `./my-gpu.toml`.

    Returns:
        The profile.

    Raises:
        InputError: an unknown name, an unreadable or malformed file.
        GpuUnavailable: `auto` without PyCUDA or without a responding GPU.

    Example::

        >>> load_device("kepler-gk104").max_resident_threads
        16384
    """
    if spec == AUTO:
        raise GpuUnavailable("--device auto: the live GPU's profile is read by autotune.gpu.device.load_profile, "
                             "not here; name a shipped profile (autotune devices) or a TOML file")
    path = Path(spec)
    if spec.endswith(".toml") or path.parent != Path(".") or path.is_file():
        return load_device_file(path)
    candidate = devices_dir() / f"{spec}.toml"
    if not candidate.is_file():
        names = ", ".join(shipped_device_names())
        raise InputError(
            f"--device: no device profile named {spec!r}. Shipped: {names}; or give a TOML file, or 'auto'."
        )
    return load_device_file(candidate, origin="shipped")


def load_device_file(path: str | Path, origin: str | None = None) -> DeviceProfile:
    """Read one device profile from a TOML file.

    Raises:
        InputError: naming the file and the key that is missing or wrong.
    """
    path = Path(path)
    return profile_from_mapping(read_toml(path, "device profile"), str(path), origin=origin or str(path))


def profile_from_mapping(data: Mapping[str, Any], where: str, origin: str = "") -> DeviceProfile:
    """Build a profile from parsed TOML (or any mapping); every error names `where` and the key."""
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise InputError(
            f"{where}: device profile lacks {', '.join(missing)}; a profile needs {', '.join(REQUIRED_KEYS)}"
        )
    unknown = sorted(set(data) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise InputError(
            f"{where}: unknown device profile key(s) {', '.join(unknown)}; "
            f"optional keys are {', '.join(OPTIONAL_KEYS)}"
        )
    values: dict[str, Any] = {"origin": origin}
    for key in ("name", "compute_capability", "description"):
        if key in data:
            if not isinstance(data[key], str) or (key != "description" and not data[key]):
                raise InputError(f"{where}: {key} must be a non-empty string, found {data[key]!r}")
            values[key] = data[key]
    major, dot, minor = values["compute_capability"].partition(".")
    if not (major.isascii() and major.isdigit() and dot and minor.isascii() and minor.isdigit()):
        raise InputError(
            f"{where}: compute_capability must read 'major.minor' (e.g. \"9.0\"), "
            f"found {values['compute_capability']!r}"
        )
    for key in REQUIRED_KEYS[2:] + OPTIONAL_KEYS[1:]:
        if key not in data or key in ("shared_memory_configs", "max_concurrent_kernels", "global_memory_bytes"):
            continue
        values[key] = _positive_int(data[key], key, where, allow_zero=key == "reserved_shared_memory_per_block")
    for key in ("max_concurrent_kernels", "global_memory_bytes"):
        if key in data:
            values[key] = _positive_int(data[key], key, where)
    if "shared_memory_configs" in data:
        configs = data["shared_memory_configs"]
        if not isinstance(configs, list) or not configs:
            raise InputError(f"{where}: shared_memory_configs must be a non-empty list of byte counts")
        values["shared_memory_configs"] = tuple(
            _positive_int(item, "shared_memory_configs", where, allow_zero=True) for item in configs
        )
        if max(values["shared_memory_configs"]) > values["shared_memory_per_sm"]:
            raise InputError(f"{where}: shared_memory_configs exceed shared_memory_per_sm")
    if values["max_threads_per_sm"] % values["warp_size"] or values["max_threads_per_block"] % values["warp_size"]:
        raise InputError(f"{where}: max_threads_per_sm and max_threads_per_block must be multiples of warp_size")
    return DeviceProfile(**values)


def _positive_int(value: Any, key: str, where: str, allow_zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        kind = "a non-negative" if allow_zero else "a positive"
        raise InputError(f"{where}: {key} must be {kind} integer, found {value!r}")
    return value


# Facts of an architecture that the driver does not report as attributes (CUDA occupancy
# calculator, cuda_occupancy.h of CUDA 13.0, and the CUDA C++ Programming Guide's table of
# technical specifications per compute capability).
_VOLTA_CONFIGS_KB = (0, 8, 16, 32, 64, 96)
_A100_CONFIGS_KB = (0, 8, 16, 32, 64, 100, 132, 164)
_AMPERE_CONFIGS_KB = (0, 8, 16, 32, 64, 100)
_HOPPER_CONFIGS_KB = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


def architecture_facts(major: int, minor: int) -> dict[str, Any]:
    """The optional profile keys the driver does not report, for a compute capability."""
    facts: dict[str, Any] = {
        "register_allocation_unit": 64 if major < 3 else 256,
        "max_registers_per_thread": 63 if (major, minor) < (3, 5) else 255,
        "shared_memory_allocation_unit": 128 if major == 2 or major >= 8 else 256,
        "register_file_partitions": {1: 1, 2: 2}.get(major, 2 if (major, minor) == (6, 0) else 4),
    }
    configs_kb: tuple[int, ...] = ()
    if major in (2, 3):
        configs_kb = (16, 32, 48) if major == 3 else (16, 48)
    elif (major, minor) == (7, 0) or (major, minor) == (7, 2):
        configs_kb = _VOLTA_CONFIGS_KB
    elif (major, minor) == (7, 5):
        configs_kb = (32, 64)
    elif (major, minor) in ((8, 0), (8, 7)):
        configs_kb = _A100_CONFIGS_KB
    elif major == 8:
        configs_kb = _AMPERE_CONFIGS_KB
    elif major >= 9:
        configs_kb = _HOPPER_CONFIGS_KB
    facts["shared_memory_configs"] = tuple(kb * 1024 for kb in configs_kb)
    if major < 3 or (major, minor) == (3, 0):
        facts["max_concurrent_kernels"] = 16
    elif major < 6 or (major, minor) in ((6, 1), (6, 2)):
        facts["max_concurrent_kernels"] = 32
    else:
        facts["max_concurrent_kernels"] = 128
    return facts


def gpu_facts(gpu: Any) -> tuple[str, int, int, dict[str, int], int]:
    """What `profile_from_attributes` takes, read from a PyCUDA `Device`: its name, compute
    capability, driver attributes (by name) and memory."""
    attributes = {str(key).rsplit(".", 1)[-1]: value for key, value in gpu.get_attributes().items()}
    major, minor = gpu.compute_capability()
    return gpu.name(), major, minor, attributes, gpu.total_memory()


def profile_from_attributes(name: str, major: int, minor: int, attributes: Mapping[str, int],
                            global_memory_bytes: int | None = None) -> DeviceProfile:
    """Build a profile from driver attribute names (PyCUDA's `device_attribute` names) and the
    GPU's memory (`Device.total_memory()`).

    Kept apart from `autotune.gpu.device.device_from_gpu` so that tests can feed recorded attributes.
    """

    def attribute(key: str, default: int | None = None) -> int:
        if key in attributes:
            return int(attributes[key])
        if default is None:
            raise GpuUnavailable(f"--device auto: the driver does not report {key}")
        return default

    facts = architecture_facts(major, minor)
    shared_per_sm = attribute("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR")
    configs = tuple(size for size in facts.pop("shared_memory_configs") if size <= shared_per_sm)
    max_blocks = attribute("MAX_BLOCKS_PER_MULTIPROCESSOR", 8 if major < 3 else (16 if major == 3 else 32))
    return DeviceProfile(
        name=name,
        description=f"{name} (live attributes)",
        compute_capability=f"{major}.{minor}",
        sm_count=attribute("MULTIPROCESSOR_COUNT"),
        warp_size=attribute("WARP_SIZE"),
        max_threads_per_sm=attribute("MAX_THREADS_PER_MULTIPROCESSOR"),
        max_blocks_per_sm=max_blocks,
        registers_per_sm=attribute("MAX_REGISTERS_PER_MULTIPROCESSOR"),
        shared_memory_per_sm=shared_per_sm,
        max_threads_per_block=attribute("MAX_THREADS_PER_BLOCK"),
        max_registers_per_block=attribute("MAX_REGISTERS_PER_BLOCK"),
        max_shared_memory_per_block=attribute(
            "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", attribute("MAX_SHARED_MEMORY_PER_BLOCK")
        ),
        reserved_shared_memory_per_block=attribute("RESERVED_SHARED_MEMORY_PER_BLOCK", 0),
        shared_memory_configs=configs,
        global_memory_bytes=global_memory_bytes,
        origin=AUTO,
        **facts,
    )
