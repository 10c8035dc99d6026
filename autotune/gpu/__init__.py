"""The CUDA seam: the only package that imports PyCUDA, and only when these are used. It knows no
algorithm by name: an algorithm's engine (`autotune.algorithms.<name>.engine`) builds on it, and
`autotune.algorithms.open_solver` opens the engine the registry names.

* `device`: the driver, `gpu_session`, `device_handle`, `device_description`, and the live GPU's
  profile (`device_from_gpu`, `load_profile`: `--device auto`).
* `compile`: a registered algorithm's kernels, compiled per build.
* `engine`: what engines share (`Solver`, `Launcher`, `PackedLaunch`, the host loop).
* `memory`: device arrays, the graph on the GPU, the free-memory check.
* `timer`: `CudaEventTimer`, the `Timer` that measures on the GPU and verifies every solve.
* `verify`, `paths`, `queries`: the distances checked on the GPU, shortest-path trees, source-target stops.
"""
from __future__ import annotations

__all__ = ["gpu_session", "device_handle", "device_description", "device_count", "live_device",
           "CudaEventTimer"]


def __getattr__(name: str):
    if name in ("gpu_session", "device_handle", "device_description", "device_count", "live_device"):
        from autotune.gpu import device

        return getattr(device, name)
    if name == "CudaEventTimer":
        from autotune.gpu.timer import CudaEventTimer

        return CudaEventTimer
    raise AttributeError(name)
