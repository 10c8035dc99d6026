"""The model's rules for PHAST (`kernels/phast.cu`), aimed at one query: every tuned value from the
device profile, the characterization's [model] constants (`characterizations/phast.toml`, not
fitted: read off PHAST's one-query sweeps on an H100) and the graph's size, each with the rule
that chose it.

1. Distances: in the block's shared memory where the graph's n ints fit what one block may take
   (`max_shared_memory_per_block`, less the level starts' `Phast.staged_bytes`), else in global memory.
2. GPU-wide levels: off with shared distances, else `gpu_levels` (a level of more vertices, and
   every level below it, is swept by the whole GPU).
3. Block sizes: `block_size` for the sweep, `pull_block_size` for the GPU-wide levels. CK 1, L1
   default.

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467)
    >>> config = get("phast").predict(roads, load_device("hopper-h100")).config
    >>> config.param("distances"), config.param("gpu_levels"), config.kernel("sweep").block_size
    ('global', 1024, 1024)
"""
from __future__ import annotations

from typing import Any

from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.model.delta_rules import DeltaPrediction, constants_of
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.rules import Decision

DEFAULTS = {"block_size": 1024, "pull_block_size": 256, "gpu_levels": 1024}


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any) -> DeltaPrediction:
    """PHAST's configuration of one query (the module's rules)."""
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization, DEFAULTS)
    need, room = 4 * graph.n_vertices, device.max_shared_memory_per_block - algorithm.staged_bytes
    shared = need <= room
    distances = "shared" if shared else "global"
    decisions = [Decision("distances", distances, "phast 1", f"{graph.n_vertices} distances take {need} bytes; "
                          f"a block may have {room} beside its level starts")]
    gpu_levels: Any = "off" if shared else int(constants["gpu_levels"])
    decisions.append(Decision("gpu_levels", gpu_levels, "phast 2", "every level on the block (shared distances)"
                              if shared else f"gpu_levels {gpu_levels}"))
    sweep, pull = int(constants["block_size"]), int(constants["pull_block_size"])
    decisions.append(Decision("sweep.block_size", sweep, "phast 3", f"block_size {sweep}"))
    decisions.append(Decision("pull.block_size", pull, "phast 3", f"pull_block_size {pull}"))
    kernels = {"sweep": KernelLaunch(sweep, CacheState.DEFAULT), "pull": KernelLaunch(pull, CacheState.DEFAULT)}
    params = {"distances": distances, "gpu_levels": gpu_levels}
    config = algorithm.canonical(LaunchConfig(1, kernels, algorithm.name, params))
    return DeltaPrediction(config, classes, device, tuple(decisions), constants, model="phast-rules")
