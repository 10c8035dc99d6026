"""The model against a live GPU (run with `pytest -m gpu`): `--device auto`, the shipped profile of
the same GPU, and the occupancy calculator against the driver's own
(cuOccupancyMaxActiveBlocksPerMultiprocessor) for the compiled SSSP kernels, for every candidate
block size and every shared-memory carveout the engine sets."""
from __future__ import annotations

import ctypes
import subprocess

import pytest

from autotune.model import candidate_block_sizes, load_characterization, load_device, occupancy
from autotune.model.characterization import KernelResources
from autotune.gpu.device import device_from_gpu
from autotune.resources import kernels_dir
from autotune.launch import CacheState

pytestmark = pytest.mark.gpu

# The engine's carveouts (autotune/gpu/kernels.py CARVEOUT_PERCENT); no_l1 is a compile option.
CARVEOUTS = {CacheState.DEFAULT: -1, CacheState.PREFER_L1: 0, CacheState.PREFER_SHARED: 100}
FUNC_ATTRIBUTE_NUM_REGS = 4
FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9
SHIPPED_BY_NAME = {"H100 80GB HBM3": "hopper-h100", "H100 SXM": "hopper-h100", "H200": "hopper-h200"}


@pytest.fixture(scope="module")
def context():
    import pycuda.driver as driver

    driver.init()
    ctx = driver.Device(0).retain_primary_context()
    ctx.push()
    try:
        yield driver
    finally:
        ctx.pop()


@pytest.fixture(scope="module")
def live(context):
    return device_from_gpu()


def test_auto_profile_is_complete_and_plausible(live):
    assert live.origin == "auto"
    assert live.sm_count > 0 and live.warp_size == 32
    assert live.max_resident_threads == live.sm_count * live.max_threads_per_sm
    print("live profile:", live.to_json())


def test_shipped_profile_matches_the_live_gpu(live):
    shipped = next((name for key, name in SHIPPED_BY_NAME.items() if key in live.name), None)
    if shipped is None:
        pytest.skip(f"no shipped profile for {live.name}")
    profile = load_device(shipped)
    for key in (
        "compute_capability", "sm_count", "warp_size", "max_threads_per_sm", "max_blocks_per_sm",
        "registers_per_sm", "shared_memory_per_sm", "max_threads_per_block", "max_registers_per_block",
        "max_shared_memory_per_block", "reserved_shared_memory_per_block",
    ):
        assert getattr(profile, key) == getattr(live, key), key


def _driver_functions(live, flags):
    """{kernel: CUfunction} of kernels/sssp.cu compiled for the live GPU with `flags`."""
    cubin = subprocess.run(
        ["nvcc", "-cubin", f"-arch={live.sm_arch}", *flags, "-o", "/dev/stdout", str(kernels_dir() / "sssp.cu")],
        capture_output=True, check=True,
    ).stdout
    cuda = ctypes.CDLL("libcuda.so.1")
    module = ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)) == 0
    functions = {}
    for name in ("relax", "minimum", "update"):
        function = ctypes.c_void_p()
        assert cuda.cuModuleGetFunction(ctypes.byref(function), module, name.encode()) == 0
        functions[name] = function
    return cuda, functions


@pytest.mark.parametrize("flags", [["-DCRAUSER=1"], ["-DCRAUSER=0", "-DNO_L1=1", "-Xptxas", "-dlcm=cg"]], ids=["crauser", "martin-no_l1"])
def test_occupancy_matches_the_driver(context, live, flags):
    cuda, functions = _driver_functions(live, flags)
    characterization = load_characterization()
    mismatches = []
    for name, function in functions.items():
        registers, shared = ctypes.c_int(), ctypes.c_int()
        cuda.cuFuncGetAttribute(ctypes.byref(registers), FUNC_ATTRIBUTE_NUM_REGS, function)
        cuda.cuFuncGetAttribute(ctypes.byref(shared), FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)
        if live.sm_arch == characterization.resources_arch:
            recorded = characterization.kernel(name).resources
            assert registers.value <= recorded.registers_per_thread, name
            assert shared.value <= recorded.static_shared_memory_bytes, name
        resources = KernelResources(registers.value, shared.value)
        for cache, carveout in CARVEOUTS.items():
            assert cuda.cuFuncSetAttribute(function, FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout) == 0
            for block_size in candidate_block_sizes(live):
                blocks = ctypes.c_int()
                assert cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    ctypes.byref(blocks), function, block_size, ctypes.c_size_t(0)
                ) == 0
                ours = occupancy(live, resources, block_size, cache).blocks_per_sm
                line = f"{name} regs={registers.value} smem={shared.value} {cache.value} {block_size}: driver {blocks.value} model {ours}"
                print(line)
                if blocks.value != ours:
                    mismatches.append(line)
    assert not mismatches, "\n".join(mismatches)
