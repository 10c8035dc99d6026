"""The occupancy calculator against hand-worked cases, and its invariants.

Each hand-worked case states its arithmetic. Its agreement with the driver's own calculator
(cuOccupancyMaxActiveBlocksPerMultiprocessor) for the compiled kernels is checked on a GPU by
test_model_device_gpu.py.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune.model import (
    KernelResources,
    all_block_sizes,
    candidate_block_sizes,
    load_device,
    max_occupancy_block_sizes,
    occupancy,
    occupancy_table,
    shipped_devices,
)
from autotune.model.occupancy import UNLIMITED, maximizing
from autotune.launch import CacheState


def test_fermi_192_threads_20_registers(fermi):
    # threads: 1536 / 192 = 8 blocks; blocks: 8; registers: 20 x 32 = 640 per warp (a multiple of
    # 64), two sub-partitions of 16384: 25 warps each, 50 warps / 6 per block = 8 blocks. All give
    # 8: 48 warps, 100 %.
    row = occupancy(fermi, KernelResources(20), 192)
    assert row.blocks_per_sm == 8
    assert row.active_warps == 48
    assert row.occupancy == 1.0
    assert set(row.limited_by) == {"threads", "blocks", "registers"}


def test_fermi_21_registers_are_register_limited(fermi):
    # 21 x 32 = 672, rounded up to Fermi's 128 at 21 registers: 768 per warp; 16384 / 768 = 21 warps
    # per sub-partition, 42 warps; / 6 = 7 blocks of 192: 42 of 48 warps = 87.5 %.
    row = occupancy(fermi, KernelResources(21), 192)
    assert row.limits["registers"] == 7
    assert row.blocks_per_sm == 7
    assert row.occupancy == pytest.approx(0.875)
    assert row.limited_by == ("registers",)


def test_fermi_allocates_128_registers_at_a_time_at_22_registers(fermi):
    # 22 x 32 = 704 per warp, rounded up to 128: 768; 21 warps per sub-partition, 42 in all; blocks
    # of 160 threads (5 warps): 8 by registers (with units of 64 it would be 2 x 23 = 46 warps: 9).
    assert occupancy(fermi, KernelResources(22), 160).limits["registers"] == 8
    assert occupancy(fermi, KernelResources(24), 160).limits["registers"] == 8  # 768 per warp too
    assert occupancy(fermi, KernelResources(20), 160).limits["registers"] == 10  # 640: 2 x 25 warps


def test_fermi_128_threads_are_block_limited(fermi):
    # 8 blocks x 4 warps = 32 of 48 warps: 2/3.
    row = occupancy(fermi, KernelResources(16), 128)
    assert row.blocks_per_sm == 8 and row.limited_by == ("blocks",)
    assert row.occupancy == pytest.approx(2 / 3)


def test_kepler_96_threads(kepler):
    # 16 blocks x 3 warps = 48 of 64 warps: 75 % (the thesis's 96 for Kepler, 4.6.1).
    row = occupancy(kepler, KernelResources(32), 96)
    assert row.blocks_per_sm == 16
    assert row.occupancy == 0.75


def test_kepler_register_partitions(kepler):
    # 33 x 32 = 1056, rounded up to 256: 1280 per warp. Four partitions of 16384: 12 warps each,
    # 48 warps; blocks of 128 (4 warps): 12 blocks, 75 %.
    row = occupancy(kepler, KernelResources(33), 128)
    assert row.limits["registers"] == 12
    assert row.occupancy == 0.75


def test_kepler_prefer_l1_shrinks_shared_memory(kepler):
    # 6000 B static, rounded up to 256: 6144 B per block. prefer_l1: 16 KB -> 2 blocks;
    # default 48 KB -> 8 blocks.
    resources = KernelResources(16, static_shared_memory_bytes=6000)
    assert occupancy(kepler, resources, 128, CacheState.PREFER_L1).blocks_per_sm == 2
    assert occupancy(kepler, resources, 128, CacheState.PREFER_L1).shared_memory_per_sm == 16384
    assert occupancy(kepler, resources, 128, CacheState.DEFAULT).blocks_per_sm == 8


def test_kepler_prefer_l1_takes_the_largest_configuration_when_a_block_does_not_fit(kepler):
    # 20 000 B rounded up to 256: 20 224 B. 16 KB cannot hold one: before Volta the SM takes its
    # largest shared memory, 48 KB -> 2 blocks.
    resources = KernelResources(16, static_shared_memory_bytes=20000)
    row = occupancy(kepler, resources, 128, CacheState.PREFER_L1)
    assert row.shared_memory_per_sm == 49152
    assert row.blocks_per_sm == 2


def test_hopper_prefer_l1_reserve_limits_blocks(hopper):
    # 8.0+: 1 KB reserved per block. Carveout 0: the smallest configuration that fits a block is
    # 8 KB -> 8 blocks of 64 threads = 16 of 64 warps (the driver agrees on an H200).
    relax = KernelResources(19)
    row = occupancy(hopper, relax, 64, CacheState.PREFER_L1)
    assert row.shared_memory_per_sm == 8192
    assert row.blocks_per_sm == 8 and row.limited_by == ("shared_memory",)
    assert row.occupancy == 0.25
    # minimum: 128 B + 1 KB = 1152 B -> 7 blocks in 8 KB.
    assert occupancy(hopper, KernelResources(20, 128), 64, CacheState.PREFER_L1).blocks_per_sm == 7
    # With the default carveout (228 KB): 32 blocks of 64 threads, 100 %.
    assert occupancy(hopper, relax, 64, CacheState.DEFAULT).occupancy == 1.0


def test_dynamic_shared_memory_per_thread(kepler):
    # 8 B per thread x 256 = 2048 B per block; 48 KB / 2048 = 24 > 16 blocks: not the limit.
    resources = KernelResources(16, dynamic_shared_memory_bytes_per_thread=8)
    assert occupancy(kepler, resources, 256).limits["shared_memory"] == 24


def test_impossible_launches(fermi):
    too_many_registers = occupancy(fermi, KernelResources(64), 128)
    assert too_many_registers.blocks_per_sm == 0 and "64 registers" in too_many_registers.reason
    too_large = occupancy(fermi, KernelResources(16), 2048)
    assert too_large.blocks_per_sm == 0 and "threads per block" in too_large.reason
    too_much_shared = occupancy(fermi, KernelResources(16, static_shared_memory_bytes=60000), 128)
    assert too_much_shared.blocks_per_sm == 0 and "shared memory" in too_much_shared.reason
    # 63 registers x 1024 threads: 2016 per warp x 32 warps = 64 512 > 32 768 per block.
    assert occupancy(fermi, KernelResources(63), 1024).blocks_per_sm == 0
    assert too_large.limited_by == ()


def test_no_shared_memory_is_unlimited(fermi):
    assert occupancy(fermi, KernelResources(16), 256).limits["shared_memory"] == UNLIMITED


def test_occupancy_maximizing_sizes_of_the_thesis_gpus(fermi, kepler, sssp):
    # Thesis 4.6.1: "192, 256, 384, 512, and 768 for Fermi, and 128, 256, 512, and 1 024 for Kepler",
    # with the shipped kernels' registers (computed over every multiple of 32).
    for name in ("relax", "minimum", "update"):
        resources = sssp.kernel(name).resources
        assert max_occupancy_block_sizes(fermi, resources) == (192, 256, 384, 512, 768)
        assert max_occupancy_block_sizes(kepler, resources) == (128, 256, 512, 1024)


def test_block_size_grids(fermi):
    assert candidate_block_sizes(fermi) == (32, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
    assert all_block_sizes(fermi) == tuple(range(32, 1025, 32))
    small = replace(fermi, max_threads_per_block=512)
    assert candidate_block_sizes(small) == (32, 64, 96, 128, 192, 256, 384, 512)


def test_maximizing_of_an_impossible_table_is_empty(fermi):
    assert maximizing(occupancy_table(fermi, KernelResources(200), (128, 256))) == ()


def test_to_json(fermi):
    data = occupancy(fermi, KernelResources(21), 192).to_json()
    assert data == {"block_size": 192, "blocks_per_sm": 7, "active_warps": 42, "occupancy": 0.875, "limited_by": ["registers"]}


DEVICES = shipped_devices()


@settings(max_examples=300, deadline=None)
@given(
    device_index=st.integers(0, len(DEVICES) - 1),
    registers=st.integers(1, 255),
    shared=st.integers(0, 64 * 1024),
    block_size=st.integers(1, 32).map(lambda k: 32 * k),
    cache=st.sampled_from(list(CacheState)),
)
def test_occupancy_never_exceeds_a_resource(device_index, registers, shared, block_size, cache):
    device = DEVICES[device_index]
    resources = KernelResources(registers, shared)
    row = occupancy(device, resources, block_size, cache)
    assert 0 <= row.occupancy <= 1
    if row.blocks_per_sm == 0:
        assert row.reason
        return
    assert row.blocks_per_sm <= device.max_blocks_per_sm
    assert row.blocks_per_sm * block_size <= device.max_threads_per_sm
    assert row.blocks_per_sm * registers * block_size <= device.registers_per_sm
    assert row.blocks_per_sm * (shared + device.reserved_shared_memory_per_block) <= row.shared_memory_per_sm or shared == 0
    # One more register per thread never raises occupancy.
    if registers < device.max_registers_per_thread:
        assert occupancy(device, KernelResources(registers + 1, shared), block_size, cache).blocks_per_sm <= row.blocks_per_sm
    # prefer_l1 never gives more shared memory than the default.
    assert occupancy(device, resources, block_size, CacheState.PREFER_L1).blocks_per_sm <= occupancy(
        device, resources, block_size, CacheState.DEFAULT
    ).blocks_per_sm


def test_examples_in_docstrings_hold():
    assert max_occupancy_block_sizes(load_device("fermi-gf100"), KernelResources(16)) == (192, 256, 384, 512, 768)
