"""Occupancy calculator: resident blocks per SM, as limited by threads, blocks, registers and
shared memory, for every block size.

It follows the CUDA occupancy calculator (`cuda_occupancy.h` of CUDA 13.0): registers are given to
warps in units of `register_allocation_unit` and split over the register file's sub-partitions; a
block's shared memory (plus the driver's reserved bytes per block from 8.0 on) is rounded up to
`shared_memory_allocation_unit`; and the shared memory an SM offers depends on the L1 state: a
`prefer_l1` kernel gets its preferred configuration if one block fits there, otherwise the
largest (before Volta) or the smallest that fits a block (Volta on). Fermi's exceptions (register
sub-partitions, units of 128 registers at some counts) come from the CUDA 7.0 header, the last to
cover compute capability 2.x.

Example::

    >>> from autotune.model.device import load_device
    >>> fermi = load_device("fermi-gf100")
    >>> max_occupancy_block_sizes(fermi, KernelResources(registers_per_thread=16))
    (192, 256, 384, 512, 768)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from autotune.model.characterization import KernelResources
from autotune.model.device import DeviceProfile
from autotune.launch import CacheState

# Names of the limits, in the order tables show them.
LIMIT_WARPS = "threads"
LIMIT_BLOCKS = "blocks"
LIMIT_REGISTERS = "registers"
LIMIT_SHARED_MEMORY = "shared_memory"
LIMIT_NAMES = (LIMIT_WARPS, LIMIT_BLOCKS, LIMIT_REGISTERS, LIMIT_SHARED_MEMORY)
UNLIMITED = 1 << 30


@dataclass(frozen=True)
class Occupancy:
    """How many blocks of one size an SM holds at once.

    Args:
        block_size: threads per block.
        blocks_per_sm: resident blocks per SM (0: the block cannot launch).
        warps_per_block: warps of one block.
        max_warps_per_sm: the SM's resident-warp limit.
        limits: blocks per SM that each resource allows (`UNLIMITED` where it sets none).
        shared_memory_per_sm: the shared-memory configuration the SM runs with (bytes).
        reason: why the block cannot launch, when it cannot.
    """

    block_size: int
    blocks_per_sm: int
    warps_per_block: int
    max_warps_per_sm: int
    limits: Mapping[str, int] = field(default_factory=dict)
    shared_memory_per_sm: int = 0
    reason: str = ""

    @property
    def active_warps(self) -> int:
        return self.blocks_per_sm * self.warps_per_block

    @property
    def occupancy(self) -> float:
        """Active warps / the SM's warp limit, from 0 to 1."""
        return self.active_warps / self.max_warps_per_sm

    @property
    def limited_by(self) -> tuple[str, ...]:
        """The resources whose limit is the number of resident blocks."""
        if not self.blocks_per_sm:
            return ()
        return tuple(name for name in LIMIT_NAMES if self.limits.get(name) == self.blocks_per_sm)

    def to_json(self) -> dict[str, object]:
        return {
            "block_size": self.block_size,
            "blocks_per_sm": self.blocks_per_sm,
            "active_warps": self.active_warps,
            "occupancy": round(self.occupancy, 4),
            "limited_by": list(self.limited_by),
        }


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit if unit > 0 else value


def occupancy(
    device: DeviceProfile,
    resources: KernelResources,
    block_size: int,
    cache: CacheState = CacheState.DEFAULT,
) -> Occupancy:
    """Resident blocks per SM of a kernel launched with `block_size` threads per block.

    Args:
        device: the GPU.
        resources: the kernel's registers and shared memory.
        block_size: threads per block.
        cache: the L1 state, which sets the SM's shared-memory configuration.

    Returns:
        The occupancy, with the limit of each resource.

    Example::

        >>> from autotune.model.device import load_device
        >>> kepler = load_device("kepler-gk104")
        >>> occupancy(kepler, KernelResources(32), 96).occupancy
        0.75
    """
    warp = device.warp_size
    warps_per_block = -(-block_size // warp)
    base = dict(block_size=block_size, warps_per_block=warps_per_block, max_warps_per_sm=device.max_warps_per_sm)
    if block_size < 1 or block_size > device.max_threads_per_block:
        return Occupancy(blocks_per_sm=0, reason=f"more than {device.max_threads_per_block} threads per block", **base)

    limits = {
        LIMIT_WARPS: device.max_warps_per_sm // warps_per_block,
        LIMIT_BLOCKS: device.max_blocks_per_sm,
    }

    # Registers: per warp, rounded up to the allocation unit, within each register-file partition.
    registers = resources.registers_per_thread
    if registers > device.max_registers_per_thread:
        return Occupancy(
            blocks_per_sm=0,
            reason=f"{registers} registers per thread, more than the {device.max_registers_per_thread} allowed",
            **base,
        )
    if registers > 0:
        per_warp = _round_up(registers * warp, _register_allocation_unit(device, registers))
        partitions = device.register_file_partitions
        per_block_assumed = per_warp * _round_up(warps_per_block, partitions)
        if max(per_block_assumed, per_warp * warps_per_block) > device.max_registers_per_block:
            return Occupancy(
                blocks_per_sm=0,
                reason=f"{per_block_assumed} registers per block, more than the {device.max_registers_per_block} allowed",
                **base,
            )
        warps_per_partition = (device.registers_per_sm // partitions) // per_warp
        limits[LIMIT_REGISTERS] = warps_per_partition * partitions // warps_per_block
    else:
        limits[LIMIT_REGISTERS] = UNLIMITED

    # Shared memory: the block's bytes plus the driver's reserve, rounded up to the allocation unit.
    used = resources.shared_memory_bytes(block_size)
    if used > device.max_shared_memory_per_block:
        return Occupancy(
            blocks_per_sm=0,
            reason=f"{used} bytes of shared memory per block, more than the {device.max_shared_memory_per_block} allowed",
            **base,
        )
    per_block = _round_up(used + device.reserved_shared_memory_per_block, device.shared_memory_allocation_unit)
    shared_per_sm = _shared_memory_per_sm(device, cache, per_block)
    limits[LIMIT_SHARED_MEMORY] = shared_per_sm // per_block if per_block else UNLIMITED

    return Occupancy(blocks_per_sm=min(limits.values()), limits=limits, shared_memory_per_sm=shared_per_sm, **base)


def blocks_with_extra_shared(device: DeviceProfile, registers_per_thread: int, shared_bytes: int, block_size: int,
                             cache: CacheState = CacheState.DEFAULT) -> Callable[[int], int]:
    """The resident blocks per SM of a kernel of `registers_per_thread` and `shared_bytes` per
    block, as a function of the extra shared bytes each block takes (what a buffer would cost,
    e.g. `algorithms.delta_shared.bitmap_words`' `resident`)."""
    def resident(extra: int) -> int:
        return occupancy(device, KernelResources(registers_per_thread, shared_bytes + extra), block_size,
                         cache).blocks_per_sm

    return resident


# Fermi (2.x) gives a warp its registers in units of 128 instead of 64 at these counts per thread
# (cudaOccRegAllocationGranularity of cuda_occupancy.h, CUDA 7.0, the last to cover 2.x).
_FERMI_128_REGISTER_COUNTS = frozenset((21, 22, 29, 30, 37, 38, 45, 46))


def _register_allocation_unit(device: DeviceProfile, registers: int) -> int:
    if device.compute_capability_tuple[0] == 2 and registers in _FERMI_128_REGISTER_COUNTS:
        return 128
    return device.register_allocation_unit


def _shared_memory_per_sm(device: DeviceProfile, cache: CacheState, per_block: int) -> int:
    """The configuration an SM runs with: the preferred one if a block fits in it; otherwise the
    driver reconfigures rather than refuse the launch: before Volta (7.0) to the largest shared
    memory, from Volta on to the smallest configuration that fits a block."""
    preferred = device.preferred_shared_memory_per_sm(cache)
    if preferred >= per_block:
        return preferred
    if device.compute_capability_tuple < (7, 0):
        return device.shared_memory_per_sm
    for size in device.shared_memory_configs:
        if size >= per_block:
            return size
    return device.shared_memory_per_sm


def all_block_sizes(device: DeviceProfile) -> tuple[int, ...]:
    """Every multiple of the warp size up to the largest block."""
    return tuple(range(device.warp_size, device.max_threads_per_block + 1, device.warp_size))


def candidate_block_sizes(device: DeviceProfile) -> tuple[int, ...]:
    """The block sizes the rules choose from: the warp size times a power of two or three times a
    power of two (32, 64, 96, 128, 192, 256, 384, 512, 768, 1024 for 32-thread warps, 1024 max).

    These are the sizes of the thesis's search (Table 4.3: 96/128/192/256/384/512/768/1024), which
    its minimum kernel's reduction supports (Alg. 9, lines 23-24), extended down to one warp.
    """
    sizes = set()
    power = 1
    while device.warp_size * power <= device.max_threads_per_block:
        sizes.add(device.warp_size * power)
        if device.warp_size * 3 * power <= device.max_threads_per_block:
            sizes.add(device.warp_size * 3 * power)
        power *= 2
    return tuple(sorted(sizes))


def occupancy_table(
    device: DeviceProfile,
    resources: KernelResources,
    block_sizes: Iterable[int] | None = None,
    cache: CacheState = CacheState.DEFAULT,
) -> tuple[Occupancy, ...]:
    """`occupancy` for each block size (default: every multiple of the warp size)."""
    sizes = all_block_sizes(device) if block_sizes is None else tuple(block_sizes)
    return tuple(occupancy(device, resources, size, cache) for size in sizes)


def maximizing(table: Iterable[Occupancy]) -> tuple[int, ...]:
    """The block sizes of a table that reach its highest occupancy, ascending (empty if none can
    launch)."""
    rows = [row for row in table if row.blocks_per_sm > 0]
    if not rows:
        return ()
    best = max(row.active_warps for row in rows)
    return tuple(sorted(row.block_size for row in rows if row.active_warps == best))


def max_occupancy_block_sizes(
    device: DeviceProfile,
    resources: KernelResources,
    block_sizes: Iterable[int] | None = None,
    cache: CacheState = CacheState.DEFAULT,
) -> tuple[int, ...]:
    """The block sizes that maximize occupancy, ascending: CUDA's recommended sizes.

    The thesis's baseline configuration (4.6.1) measures these and keeps the slowest, with the
    default cache state and CK 1.

    Args:
        device: the GPU.
        resources: the kernel's registers and shared memory.
        block_sizes: the sizes to consider (default: every multiple of the warp size).
        cache: the L1 state (default: the driver's).

    Example::

        >>> from autotune.model.device import load_device
        >>> max_occupancy_block_sizes(load_device("kepler-gk104"), KernelResources(20))
        (128, 256, 512, 1024)
    """
    return maximizing(occupancy_table(device, resources, block_sizes, cache))
