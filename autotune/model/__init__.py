"""The kernel-characterization model (thesis chapter 4): predicted launch configurations for any
GPU, without a GPU.

* `device`: `DeviceProfile`, loaded from `characterizations/devices/*.toml`, a user's TOML file,
  or the live GPU (`auto`, through PyCUDA).
* `characterization`: the kernels' classes (MAp, CLr, DSr) and compiled resources.
* `occupancy`: resident blocks per SM for every block size.
* `features`: st(G, GPU), d(G) and their classes.
* `rules`: the thesis's rules and guidelines, with the trace of which one chose each value.

Example::

    >>> from autotune.model import GraphFeatures, load_device, predict
    >>> features = GraphFeatures.from_mean_degree("random49k-d200", 49152, 200)
    >>> str(predict(features, load_device("fermi-gf100")).config.relax)
    '256:prefer_l1/L32'
"""
from __future__ import annotations

from autotune.model.characterization import (
    AccessPattern,
    ByDegree,
    Characterization,
    KernelCharacterization,
    KernelResources,
    Level,
    load_characterization,
)
from autotune.model.device import (
    DeviceProfile,
    device_from_gpu,
    load_device,
    load_device_file,
    shipped_device_names,
    shipped_devices,
)
from autotune.model.features import (
    GraphClasses,
    GraphFeatures,
    classify,
    degree_class,
    stress_class,
    stress_ratio,
)
from autotune.model.occupancy import (
    Occupancy,
    all_block_sizes,
    candidate_block_sizes,
    max_occupancy_block_sizes,
    occupancy,
    occupancy_table,
)
from autotune.model.rules import Decision, KernelClasses, KernelPrediction, Prediction, predict

__all__ = [
    "AccessPattern",
    "ByDegree",
    "Characterization",
    "Decision",
    "DeviceProfile",
    "GraphClasses",
    "GraphFeatures",
    "KernelCharacterization",
    "KernelClasses",
    "KernelPrediction",
    "KernelResources",
    "Level",
    "Occupancy",
    "Prediction",
    "all_block_sizes",
    "baseline_block_sizes",
    "candidate_block_sizes",
    "classify",
    "degree_class",
    "device_from_gpu",
    "load_characterization",
    "load_device",
    "load_device_file",
    "max_occupancy_block_sizes",
    "occupancy",
    "occupancy_table",
    "predict",
    "shipped_device_names",
    "shipped_devices",
    "stress_class",
    "stress_ratio",
]


def baseline_block_sizes(
    device: DeviceProfile, characterization: Characterization | None = None
) -> dict[str, tuple[int, ...]]:
    """Per tuned kernel, the block sizes that maximize occupancy with the default cache state:
    the candidates of the thesis's baseline configuration (4.6.1: "of the block sizes that
    maximize occupancy, the slowest; default cache; CK 1"). The sweep measures them and keeps the
    slowest.

    Example::

        >>> baseline_block_sizes(load_device("fermi-gf100"))["update"]
        (192, 256, 384, 512, 768)
    """
    characterization = characterization or load_characterization()
    return {
        name: max_occupancy_block_sizes(device, kernel.resources)
        for name, kernel in characterization.kernels.items()
    }
