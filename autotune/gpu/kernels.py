"""Compile kernels/sssp.cu with PyCUDA: one module per (algorithm, L1 state) variant, once per process.

Only this module and `launcher.py` import PyCUDA, and only when called.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from autotune.resources import kernels_dir
from autotune.space import CacheState

SOURCE_FILE = "sssp.cu"
ALGORITHMS = ("crauser", "martin")
KERNEL_NAMES = ("init", "out_weight", "relax", "minimum", "update")

# Driver values of the shared-memory carveout attribute (CU_SHAREDMEM_CARVEOUT_*): the percentage of
# the unified L1/shared storage given to shared memory. -1 leaves the choice to the driver.
CARVEOUT_PERCENT = {
    CacheState.DEFAULT: -1,
    CacheState.PREFER_L1: 0,
    CacheState.PREFER_SHARED: 100,
    CacheState.NO_L1: -1,  # no_l1 is a compile option (-DNO_L1=1 -dlcm=cg), not a carveout
}


@dataclass(frozen=True)
class Variant:
    """One compilation of the source: the algorithm and whether global loads bypass L1."""

    algorithm: str
    no_l1: bool

    def nvcc_options(self) -> list[str]:
        options = [f"-DCRAUSER={int(self.algorithm == 'crauser')}"]
        if self.no_l1:  # plain loads only (no read-only path), and those past L1: see RESTRICT in sssp.cu
            options += ["-DNO_L1=1", "-Xptxas=-dlcm=cg"]
        return options


def variant_for(algorithm: str, cache_state: CacheState) -> Variant:
    return Variant(algorithm, cache_state is CacheState.NO_L1)


def kernel_source() -> str:
    return (kernels_dir() / SOURCE_FILE).read_text()


@cache
def compiled_module(variant: Variant):  # -> pycuda.compiler.SourceModule
    """Compile (or fetch from PyCUDA's disk cache) one variant; cached for the process.

    Requires a current CUDA context (the primary context of `gpu.launcher.GpuSession`).
    """
    from pycuda.compiler import SourceModule

    return SourceModule(kernel_source(), options=variant.nvcc_options(), no_extern_c=True)


def kernel_function(algorithm: str, kernel: str, cache_state: CacheState = CacheState.DEFAULT):
    """The compiled `kernel` of the variant that `cache_state` and `algorithm` select."""
    return compiled_module(variant_for(algorithm, cache_state)).get_function(kernel)
