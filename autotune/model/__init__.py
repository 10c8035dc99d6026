"""The kernel-characterization model (thesis chapter 4): predicted launch configurations for any
GPU, without a GPU.

* `device`: `DeviceProfile`, loaded from `characterizations/devices/*.toml` or a user's TOML file
  (the live GPU's, `--device auto`, is `autotune.gpu.device.load_profile`'s).
* `characterization`: the kernels' classes (MAp, CLr, DSr) and compiled resources.
* `occupancy`: resident blocks per SM for every block size.
* `features`: st(G, GPU), d(G) and their classes.
* `decision`: `Decision`, one value a rule chose and why (every algorithm's rules use it; the
  rules themselves live with their algorithm, `autotune.algorithms.<name>.rules`).

Example::

    >>> from autotune.algorithms.thesis.rules import predict
    >>> from autotune.model import GraphFeatures, load_device
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
from autotune.model.decision import Decision

__all__ = [
    "AccessPattern",
    "ByDegree",
    "Characterization",
    "Decision",
    "DeviceProfile",
    "GraphClasses",
    "GraphFeatures",
    "KernelCharacterization",
    "KernelResources",
    "Level",
    "Occupancy",
    "all_block_sizes",
    "baseline_block_sizes",
    "candidate_block_sizes",
    "classify",
    "degree_class",
    "load_characterization",
    "load_device",
    "load_device_file",
    "max_occupancy_block_sizes",
    "occupancy",
    "occupancy_table",
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
