"""Everything that touches CUDA. PyCUDA is imported only when these are used.

* `device`: the driver, `gpu_session`, `device_handle`, `device_description`.
* `compile`: an algorithm's kernels, compiled per build.
* `engine`: what engines share (`Solver`, `open_solver`); `thesis_engine` (Crauser, Martín) and
  `delta_engine` (Delta-stepping) are the registered algorithms' engines.
* `timer`: `CudaEventTimer`, the `Timer` that measures on the GPU and verifies every solve.
"""
from __future__ import annotations

__all__ = ["gpu_session", "device_handle", "device_description", "device_count", "live_device", "open_solver",
           "CudaEventTimer"]


def __getattr__(name: str):
    if name in ("gpu_session", "device_handle", "device_description", "device_count", "live_device"):
        from autotune.gpu import device

        return getattr(device, name)
    if name == "open_solver":
        from autotune.gpu.engine import open_solver

        return open_solver
    if name == "CudaEventTimer":
        from autotune.gpu.timer import CudaEventTimer

        return CudaEventTimer
    raise AttributeError(name)
