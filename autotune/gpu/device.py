"""The CUDA driver and the device: initialized here, once, and nowhere else.

PyCUDA is imported only when these are called, so that the rest of autotune runs without it.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from autotune.errors import GpuUnavailable


def driver():  # -> the pycuda.driver module, initialized
    """PyCUDA's driver module, initialized, with at least one device.

    Raises:
        GpuUnavailable: no PyCUDA, no driver, or no device.
    """
    try:
        import pycuda.driver as cuda
    except ImportError as error:
        raise GpuUnavailable(f"PyCUDA is not installed ({error}); install with: pip install -e \".[cuda]\"") from None
    try:
        cuda.init()
        if cuda.Device.count() == 0:
            raise GpuUnavailable("no CUDA device found")
    except cuda.Error as error:
        raise GpuUnavailable(f"no CUDA device responds: {error}") from None
    return cuda


def device_count() -> int:
    """CUDA devices of this machine.

    Raises:
        GpuUnavailable: no PyCUDA or no device.
    """
    return int(driver().Device.count())


@contextmanager
def gpu_session(device_index: int = 0) -> Iterator[object]:
    """Make the device's primary context current for the block; yields the PyCUDA Device.

    Raises:
        GpuUnavailable: no PyCUDA, no device, or no device with that index.
    """
    cuda = driver()
    device = device_handle(device_index)
    context = device.retain_primary_context()
    context.push()
    try:
        yield device
    finally:
        cuda.Context.synchronize()
        cuda.Context.pop()


def device_handle(device_index: int = 0):  # -> pycuda.driver.Device
    """The PyCUDA Device of that index, without a context (enough to read its attributes).

    Raises:
        GpuUnavailable: no PyCUDA, no device, or no device with that index.
    """
    cuda = driver()
    if not 0 <= device_index < cuda.Device.count():
        raise GpuUnavailable(f"no CUDA device {device_index} (this machine has {cuda.Device.count()})")
    return cuda.Device(device_index)


def device_description(device) -> dict[str, object]:
    """What a table records about the GPU it was measured on."""
    cuda = driver()
    attribute = cuda.device_attribute
    major, minor = device.compute_capability()
    version = cuda.get_driver_version()
    return {
        "name": device.name(),
        "compute_capability": f"{major}.{minor}",
        "sm_count": device.get_attribute(attribute.MULTIPROCESSOR_COUNT),
        "cuda_driver_version": f"{version // 1000}.{version % 1000 // 10}",
    }


def live_device(index: int = 0) -> dict[str, object]:
    """Name, compute capability and SM count of CUDA device `index`."""
    return device_description(driver().Device(index))


def device_from_gpu(ordinal: int = 0):  # -> autotune.model.device.DeviceProfile
    """The profile of a live GPU, from its driver attributes (PyCUDA, imported here only).

    Raises:
        GpuUnavailable: no PyCUDA, or no GPU responds.
    """
    try:
        import pycuda.driver as cuda
    except Exception as error:  # ImportError, or a CUDA install that fails to load
        raise GpuUnavailable(
            f"--device auto needs PyCUDA and an NVIDIA GPU ({type(error).__name__}: {error}); "
            "name a shipped profile instead (autotune devices)"
        ) from None
    try:
        cuda.init()
        from autotune.model.device import gpu_facts

        facts = gpu_facts(cuda.Device(ordinal))
    except Exception as error:
        raise GpuUnavailable(f"--device auto: no CUDA device responds ({error})") from None
    from autotune.model.device import profile_from_attributes

    return profile_from_attributes(*facts)


def load_profile(spec: str):  # -> autotune.model.device.DeviceProfile
    """A device profile: `auto` reads the live GPU's attributes (`device_from_gpu`), any other spec
    is a shipped profile or a TOML file (`autotune.model.load_device`).

    Raises:
        InputError: an unknown name, an unreadable or malformed file.
        GpuUnavailable: `auto` without PyCUDA or without a responding GPU.
    """
    from autotune.model.device import AUTO, load_device

    return device_from_gpu() if spec == AUTO else load_device(spec)
