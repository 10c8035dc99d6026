"""Kernel characterizations: the code-dependent classes of thesis 4.3 and the compiled resources.

A characterization file (`algorithms/thesis/sssp.toml`; a user may write one for their own kernels)
holds, per kernel: the memory access pattern (MAp), the computational load ratio (CLr), the data
sharing across blocks ratio (DSr, by degree class as in thesis Table 4.1), how many threads a
launch starts per vertex, how many global memory accesses a thread makes (by degree class, for the
concurrent-kernel guideline of thesis 4.6.4), and the registers and shared memory of the compiled
kernel (written by `scripts/refresh_characterization.py`).

Example::

    >>> sssp = load_characterization()
    >>> sssp.kernel("minimum").memory_access_pattern
    <AccessPattern.COALESCED: 'coalesced'>
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from autotune.errors import InputError
from autotune.files import read_toml
from autotune.resources import algorithm_file

DEFAULT_FILE = "sssp.toml"
LANES = "lanes"  # threads_per_vertex of a kernel that launches L threads per vertex


class Level(str, Enum):
    """A three-step class: low, medium, high (CLr, DSr, st, d(G), memory accesses)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return ("low", "medium", "high").index(self.value)

    def __str__(self) -> str:
        return self.value


class AccessPattern(str, Enum):
    """Memory access pattern, MAp (thesis 4.3): transaction segments a warp requests at once."""

    COALESCED = "coalesced"  # one segment per warp (the thesis's "full-coalesced")
    MEDIUM_COALESCED = "medium_coalesced"  # two to four segments
    SCATTER = "scatter"  # more than four

    @property
    def rank(self) -> int:
        return ("coalesced", "medium_coalesced", "scatter").index(self.value)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ByDegree:
    """A class that may depend on the graph's degree class d(G) (thesis Table 4.1)."""

    low: Level
    medium: Level
    high: Level

    def at(self, degree_class: Level) -> Level:
        return getattr(self, degree_class.value)

    @classmethod
    def constant(cls, level: Level) -> ByDegree:
        return cls(level, level, level)

    def to_json(self) -> str | dict[str, str]:
        if self.low == self.medium == self.high:
            return self.low.value
        return {"low": self.low.value, "medium": self.medium.value, "high": self.high.value}


@dataclass(frozen=True)
class KernelResources:
    """What one block of a compiled kernel takes from an SM.

    Args:
        registers_per_thread: registers per thread (nvcc --resource-usage).
        static_shared_memory_bytes: `__shared__` bytes per block.
        dynamic_shared_memory_bytes_per_thread: extern shared bytes the launch gives per thread.
    """

    registers_per_thread: int
    static_shared_memory_bytes: int = 0
    dynamic_shared_memory_bytes_per_thread: int = 0

    def shared_memory_bytes(self, block_size: int) -> int:
        return self.static_shared_memory_bytes + self.dynamic_shared_memory_bytes_per_thread * block_size


@dataclass(frozen=True)
class KernelCharacterization:
    """One kernel, classified by thesis 4.3-4.5.

    Args:
        name: the kernel's name in the .cu file.
        memory_access_pattern: MAp.
        computational_load: CLr, logic/arithmetic instructions per memory access (low < 10 <
            medium < 100 < high).
        data_sharing: DSr by degree class (thesis Table 4.1).
        data_sharing_grows_with_stress: the DSr also grows with n (thesis 4.5 on relax: "will
            increase as d(G) and n increase"); the rules then read it from st(G, GPU) as well.
        memory_accesses: global memory accesses per thread, by degree class (thesis 4.6.4).
        threads_per_vertex: threads a launch starts per vertex (0.5 for a kernel whose thread
            reads two vertices); ignored when `uses_lanes`.
        uses_lanes: the kernel starts L threads per vertex (relax).
        resources: registers and shared memory of the compiled kernel (the most over the compiled
            functions that launch as it).
        notes: why these classes (free text, shown by --explain).
        registers_by_function: where several compiled functions launch as the kernel, each one's
            registers per thread (`resources_of`).
        shared_by_function: the same functions' own static shared memory, bytes per block.
    """

    name: str
    memory_access_pattern: AccessPattern
    computational_load: Level
    data_sharing: ByDegree
    resources: KernelResources
    data_sharing_grows_with_stress: bool = False
    memory_accesses: ByDegree = ByDegree.constant(Level.LOW)
    threads_per_vertex: float = 1.0
    uses_lanes: bool = False
    notes: str = ""
    registers_by_function: tuple[tuple[str, int], ...] = ()
    shared_by_function: tuple[tuple[str, int], ...] = ()

    def threads_launched_per_vertex(self, lanes: int = 1) -> float:
        return float(lanes) if self.uses_lanes else self.threads_per_vertex

    def resources_of(self, function: str) -> KernelResources:
        """The resources of one compiled function that launches as the kernel: its own registers
        and static shared memory where the characterization lists them, else the kernel's."""
        registers = dict(self.registers_by_function).get(function, self.resources.registers_per_thread)
        shared = dict(self.shared_by_function).get(function, self.resources.static_shared_memory_bytes)
        return replace(self.resources, registers_per_thread=registers, static_shared_memory_bytes=shared)


@dataclass(frozen=True)
class Characterization:
    """The characterizations of one kernel source file.

    Args:
        kernels: by kernel name.
        source: the kernel file the characterization describes (e.g. "kernels/sssp.cu").
        resources_arch: the architecture the resources were compiled for (e.g. "sm_90").
        resources_command: the command that produced them.
        path: the TOML file it came from.
        model: the [model] table: named constants of the algorithm's model rules.
    """

    kernels: Mapping[str, KernelCharacterization]
    source: str = ""
    resources_arch: str = ""
    resources_command: str = ""
    path: Path | None = None
    model: Mapping[str, float] = field(default_factory=dict)

    def kernel(self, name: str) -> KernelCharacterization:
        """The characterization of `name`.

        Raises:
            InputError: the file does not characterize it.
        """
        try:
            return self.kernels[name]
        except KeyError:
            where = self.path or "characterization"
            raise InputError(
                f"{where}: no [kernels.{name}] table; it characterizes {', '.join(self.kernels) or 'no kernel'}"
            ) from None


def default_characterization_path() -> Path:
    return algorithm_file("thesis", DEFAULT_FILE)


def load_characterization(path: str | Path | None = None) -> Characterization:
    """Read a characterization file (default: the shipped `autotune/algorithms/thesis/sssp.toml`).

    Raises:
        InputError: unreadable file, invalid TOML, or a missing/unknown key or class, naming the
            file, the kernel and the key.
    """
    path = Path(path) if path is not None else default_characterization_path()
    return characterization_from_mapping(read_toml(path, "characterization"), path)


def characterization_from_mapping(data: Mapping[str, Any], path: Path | str) -> Characterization:
    where = str(path)
    kernels_data = data.get("kernels")
    if not isinstance(kernels_data, Mapping) or not kernels_data:
        raise InputError(f"{where}: expected [kernels.<name>] tables, one per kernel")
    kernels = {
        name: _kernel_from_mapping(name, table, f"{where}: [kernels.{name}]")
        for name, table in kernels_data.items()
    }
    compiled = data.get("compiled", {})
    if not isinstance(compiled, Mapping):
        raise InputError(f"{where}: [compiled] must be a table")
    model = data.get("model", {})
    if not isinstance(model, Mapping) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in model.values()):
        raise InputError(f"{where}: [model] must be a table of numbers")
    return Characterization(
        kernels=kernels,
        source=str(data.get("source", "")),
        resources_arch=str(compiled.get("arch", "")),
        resources_command=str(compiled.get("command", "")),
        path=Path(path),
        model={str(k): float(v) for k, v in model.items()},
    )


_KERNEL_KEYS = {
    "memory_access_pattern",
    "computational_load",
    "data_sharing",
    "data_sharing_grows_with_stress",
    "memory_accesses",
    "threads_per_vertex",
    "registers_per_thread",
    "static_shared_memory_bytes",
    "dynamic_shared_memory_bytes_per_thread",
    "notes",
    "registers_by_function",
    "static_shared_by_function",
}
_REQUIRED_KERNEL_KEYS = ("memory_access_pattern", "computational_load", "data_sharing", "registers_per_thread")


def _kernel_from_mapping(name: str, table: Any, where: str) -> KernelCharacterization:
    if not isinstance(table, Mapping):
        raise InputError(f"{where}: expected a table")
    unknown = sorted(set(table) - _KERNEL_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KERNEL_KEYS))}")
    missing = [key for key in _REQUIRED_KERNEL_KEYS if key not in table]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    pattern = _enum(AccessPattern, table["memory_access_pattern"], f"{where} memory_access_pattern")
    load = _enum(Level, table["computational_load"], f"{where} computational_load")
    sharing = _by_degree(table["data_sharing"], f"{where} data_sharing")
    accesses = _by_degree(table.get("memory_accesses", "low"), f"{where} memory_accesses")
    grows = table.get("data_sharing_grows_with_stress", False)
    if not isinstance(grows, bool):
        raise InputError(f"{where}: data_sharing_grows_with_stress must be true or false")
    per_vertex = table.get("threads_per_vertex", 1)
    uses_lanes = per_vertex == LANES
    if not uses_lanes and (isinstance(per_vertex, bool) or not isinstance(per_vertex, (int, float)) or per_vertex <= 0):
        raise InputError(f"{where}: threads_per_vertex must be a positive number or \"lanes\", found {per_vertex!r}")
    resources = KernelResources(
        registers_per_thread=_count(table["registers_per_thread"], f"{where} registers_per_thread", minimum=1),
        static_shared_memory_bytes=_count(table.get("static_shared_memory_bytes", 0), f"{where} static_shared_memory_bytes"),
        dynamic_shared_memory_bytes_per_thread=_count(
            table.get("dynamic_shared_memory_bytes_per_thread", 0), f"{where} dynamic_shared_memory_bytes_per_thread"
        ),
    )
    notes = table.get("notes", "")
    if not isinstance(notes, str):
        raise InputError(f"{where}: notes must be a string")
    by_function = _per_function(table, "registers_by_function", "registers", where, minimum=1)
    shared_by_function = _per_function(table, "static_shared_by_function", "bytes", where, minimum=0)
    return KernelCharacterization(
        name=name,
        memory_access_pattern=pattern,
        computational_load=load,
        data_sharing=sharing,
        resources=resources,
        data_sharing_grows_with_stress=grows,
        memory_accesses=accesses,
        threads_per_vertex=1.0 if uses_lanes else float(per_vertex),
        uses_lanes=uses_lanes,
        notes=" ".join(notes.split()),
        registers_by_function=by_function,
        shared_by_function=shared_by_function,
    )


def _per_function(table: Mapping[str, Any], key: str, unit: str, where: str, minimum: int) -> tuple[tuple[str, int], ...]:
    """A kernel's table of its compiled functions' own numbers (`key`: function = count)."""
    found = table.get(key, {})
    if not isinstance(found, Mapping):
        raise InputError(f"{where}: {key} must be a table of function = {unit}")
    return tuple((str(f), _count(v, f"{where} {key}.{f}", minimum=minimum)) for f, v in found.items())


def _enum(kind: type[Enum], value: Any, where: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(item.value for item in kind)
        raise InputError(f"{where}: {value!r} is not one of {names}") from None


def _by_degree(value: Any, where: str) -> ByDegree:
    if isinstance(value, str):
        return ByDegree.constant(_enum(Level, value, where))
    if isinstance(value, Mapping):
        keys = {"low", "medium", "high"}
        if set(value) != keys:
            raise InputError(f"{where}: a per-degree table needs exactly the keys low, medium, high")
        return ByDegree(*(_enum(Level, value[key], f"{where}.{key}") for key in ("low", "medium", "high")))
    raise InputError(f"{where}: expected a class (low/medium/high) or a table {{low=, medium=, high=}}")


def _count(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{where}: expected an integer >= {minimum}, found {value!r}")
    return value
