"""Compile an algorithm's kernel source with PyCUDA: one module per build (algorithm, L1 state,
source part, targeted or not), loaded once per process, with the options the algorithm gives
(`build_options`); the builds are kept on disk (`cubins`, `keep_builds_in`).

Only the modules of this package import PyCUDA, and only when called.
"""
from __future__ import annotations

import importlib
import os
from functools import cache
from pathlib import Path
from typing import Any, Callable, Sequence

from autotune.errors import LaunchRejected
from autotune.gpu import cubins
from autotune.gpu.device import driver
from autotune.launch import CacheState, KernelLaunch
from autotune.reference.distance_range import NARROW, WIDE

# Driver values of the shared-memory carveout attribute (CU_SHAREDMEM_CARVEOUT_*): the percentage of
# the unified L1/shared storage given to shared memory. -1 leaves the choice to the driver.
CARVEOUT_PERCENT = {
    CacheState.DEFAULT: -1,
    CacheState.PREFER_L1: 0,
    CacheState.PREFER_SHARED: 100,
    CacheState.NO_L1: -1,  # no_l1 is a compile option (-DNO_L1=1 -dlcm=cg), not a carveout
}


def width_options(wide: bool) -> list[str]:
    """nvcc's options for the distances' width: 64-bit builds where `wide` (`DistanceWidth.options`)."""
    return list((WIDE if wide else NARROW).options)


@cache
def compiled_module(algorithm: Any, no_l1: bool, targeted: bool = False, part: int = 0, wide: bool = False):
    """Compile (or read where builds are kept, `cubins`) one build of a registered algorithm (its
    `source_path`, see `build_options`), loaded once per process. Returns a pycuda.driver.Module.

    Requires a current CUDA context (`device.gpu_session`).
    """
    return _build(algorithm.source_path, build_options(algorithm, no_l1, targeted, part, wide))


def build_options(algorithm: Any, no_l1: bool, targeted: bool = False, part: int = 0, wide: bool = False
                  ) -> list[str]:
    """nvcc's options for one build: the algorithm's `compile_options`; `targeted`: the build of
    source-target queries (-DTARGETED=1; kernels/delta.cu); `part`: the group of its kernels that
    the build holds (`Algorithm.source_parts`; 0: all of them); `wide`: 64-bit distances
    (`distance_range.WIDE`).

    Example::

        >>> from autotune import algorithms
        >>> build_options(algorithms.get("delta"), True, part=2)
        ['-DNO_L1=1', '-Xptxas=-dlcm=cg', '-DSOURCE_PART=2']
    """
    return [*algorithm.compile_options(no_l1), *(["-DTARGETED=1"] if targeted else []),
            *([f"-DSOURCE_PART={part}"] if part else []), *width_options(wide)]


@cache
def compiled_source(filename: str, wide: bool = False):  # -> pycuda.driver.Module
    """Compile a shipped kernel file that belongs to no algorithm (`paths.cu`), once per process;
    `wide`: its build for 64-bit distances."""
    from autotune.resources import kernels_dir

    return _build(kernels_dir() / filename, width_options(wide))


def _include_dirs(source: Path) -> list[str]:
    """The shipped kernels' headers (`#include "frontier.cuh"`), also for a source outside kernels/."""
    from autotune.resources import kernels_dir

    return [str(source.parent), str(kernels_dir())]


_kept_builds: list[Path | None] = [None]  # where `cubins` keeps the builds; None: the user cache's


def keep_builds_in(directory: Path | None) -> None:
    """Keep the kernels' builds in `directory` (the command line: `$AUTOTUNE_CACHE_DIR/cubins`);
    None: in the user cache's."""
    _kept_builds[0] = directory


def kept_builds() -> Path:
    """Where the builds are kept: as `keep_builds_in` said, else `cubins` in the user cache."""
    from autotune.graphs.cache import kept_dir_from_env

    return _kept_builds[0] or kept_dir_from_env({}, "cubins")


def _build(source: Path, options: list[str]):  # -> pycuda.driver.Module
    """The build loaded; a kept one that the driver refuses (a damaged file) is built again, with a note."""
    from pycuda.driver import Context, Error, module_from_buffer

    from autotune.files import note

    arch = "sm_%d%d" % Context.get_device().compute_capability()
    directory = kept_builds()
    try:
        return module_from_buffer(cubins.cubin(source, options, arch, _include_dirs(source), directory))
    except Error as refused:
        note(f"a kept build of {source.name} in {directory} did not load ({refused}); building it again")
        return module_from_buffer(cubins.cubin(source, options, arch, _include_dirs(source), directory, fresh=True))


def precompile(algorithms: Sequence[Any], arch: str, sources: Sequence[str] = (), workers: int | None = None,
               wide: bool = False) -> Callable[[], None]:
    """Start building every build (both L1 states, each part of a source in parts) of `algorithms`
    and the shipped `sources` of no algorithm (`compiled_source`: the timer's `verify.cu`) for
    `arch` (`sm_90`) where builds are kept, one nvcc a core, and return what waits for them:
    a cold start compiles the sweep's kernels side by side (about 17 s one after the other on a
    2-core VM) while the references are computed, instead of one by one at each first trial; the
    longest build bounds the wait (Δ-stepping's, 8-10.3 s whole on the H200 host, hence its parts).
    A build kept from an earlier start costs no nvcc (`cubins`). Call the returned function before
    any kernel is loaded, so that no build is compiled twice. A build that fails here fails again,
    with its message, where it is loaded. `wide`: the builds for 64-bit distances instead."""
    from concurrent.futures import ThreadPoolExecutor

    from autotune.resources import kernels_dir

    try:  # imported here, not by the threads: a process forked while they run finds no import lock held
        importlib.import_module("pycuda.compiler")
    except ImportError:  # no PyCUDA (a GPU stand-in): the kernels are built where they load, or not at all
        return lambda: None
    directory = kept_builds()

    def build(source: Path, options: list[str]) -> None:
        cubins.cubin(source, options, arch, _include_dirs(source), directory)

    builds = [(a.source_path, build_options(a, no_l1, part=part, wide=wide))
              for a in algorithms for part in a.builds() for no_l1 in (False, True)]
    builds += [(kernels_dir() / source, width_options(wide)) for source in sources]
    pool = ThreadPoolExecutor(max_workers=workers or max(1, min(len(builds), os.cpu_count() or 1)))
    futures = [pool.submit(build, source, options) for source, options in builds]

    def wait() -> None:
        for future in futures:
            try:
                future.result()
            except Exception:  # noqa: BLE001 - reported where the build is loaded
                pass
        pool.shutdown()

    return wait


def kernel_function(algorithm: Any, function: str, cache_state: CacheState = CacheState.DEFAULT,
                    targeted: bool = False, wide: bool = False):
    """The compiled `function` of the build that `cache_state`, `algorithm`, `targeted` and `wide`
    (64-bit distances) select."""
    return compiled_module(algorithm, cache_state is CacheState.NO_L1, targeted,
                           algorithm.source_part(function), wide).get_function(function)


def launchable(algorithm: Any, function: str, launch: KernelLaunch, kernel: str | None = None,
               targeted: bool = False, wide: bool = False):
    """The compiled function for a kernel launch, its cache preference applied.

    Raises:
        LaunchRejected: the block is larger than the compiled function allows.
    """
    cuda = driver()
    compiled = kernel_function(algorithm, function, launch.cache, targeted, wide)
    limit = compiled.get_attribute(cuda.function_attribute.MAX_THREADS_PER_BLOCK)
    if launch.block_size > limit:
        raise LaunchRejected(
            None, f"{kernel or function}: block size {launch.block_size} exceeds what the compiled kernel allows ({limit})"
        )
    compiled.set_attribute(cuda.function_attribute.PREFERRED_SHARED_MEMORY_CARVEOUT, CARVEOUT_PERCENT[launch.cache])
    return compiled
