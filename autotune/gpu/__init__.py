"""Everything that touches CUDA. PyCUDA is imported only when these are used."""
from __future__ import annotations

__all__ = ["gpu_session", "device_description", "Solver", "CudaEventTimer"]


def __getattr__(name: str):
    if name in ("gpu_session", "device_description", "Solver"):
        from autotune.gpu import launcher

        return getattr(launcher, name)
    if name == "CudaEventTimer":
        from autotune.gpu.timer import CudaEventTimer

        return CudaEventTimer
    raise AttributeError(name)
