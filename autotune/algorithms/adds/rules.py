"""The model's rules for asynchronous Delta-stepping (`kernels/adds.cu`), aimed at one query: every
tuned value from the device profile, the characterization's [model] constants
(`algorithms/adds/adds.toml`, not fitted: two read off run O's H100 measurements) and the graph's
features, each with the rule that chose it.

1. Delta: Delta-stepping's rule 1 (`delta_rules.delta_target`, with Delta-stepping's fitted
   constants) times `delta_factor`, the nearest power of two of the domain; INF without weights.
   It may adapt by `adapt` = 2 doublings or halvings on the device.
2. Blocks: `blocks` for the one instance (of 8, 32 and 64 blocks, 32 was fastest on all six graphs
   of run O; idle warps contending for the rings' heads are the likely reason, not yet measured).
3. Block size: `block_size`. 4. Entries a warp takes: `chunk`. 5. Rings: 8 (1 for INF).
6. Hub threshold: 1024 where the graph has such degrees, else off. CK 1, L1 default.

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467, lightest_weight=45.4)
    >>> config = get("adds").predict(roads, load_device("hopper-h100")).config
    >>> config.param("delta"), config.param("blocks"), config.param("hub_threshold")
    (512, 32, 'off')
"""
from __future__ import annotations

from typing import Any

from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.algorithms.delta.rules import DeltaPrediction, constants_of, graph_target, nearest_power
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.decision import Decision

DEFAULTS = {"delta_factor": 1.0, "blocks": 32, "block_size": 256, "chunk": 32}
HUB_THRESHOLD = 1024


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any, delta_characterization: Characterization) -> DeltaPrediction:
    """The asynchronous Delta-stepping configuration of one query (the module's rules);
    `delta_characterization` holds Delta-stepping's fitted rule 1 constants."""
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization, DEFAULTS)
    delta_constants = constants_of(delta_characterization)
    decisions: list[Decision] = []
    domain = algorithm.parameter("delta").domain(graph)
    single = graph_target(delta_constants, graph)
    if single is None:
        delta: Any = "inf"
        decisions.append(Decision("delta", delta, "adds 1", "no positive weight known: one bucket (INF)"))
    else:
        target = constants["delta_factor"] * single
        delta = nearest_power(target, domain)
        decisions.append(Decision("delta", delta, "adds 1", f"{constants['delta_factor']:g} x Delta-stepping's rule 1 "
                                  f"= {target:.0f}: nearest power of two {delta}"))
    wanted = int(constants["blocks"])
    blocks = max([b for b in algorithm.parameter("blocks").domain() if b <= wanted] or [1])
    decisions.append(Decision("blocks", blocks, "adds 2", f"blocks {wanted}: the largest value of the domain not above"))
    block_size = int(constants["block_size"])
    decisions.append(Decision("block_size", block_size, "adds 3", f"block_size {block_size}"))
    chunk = int(constants["chunk"])
    decisions.append(Decision("chunk", chunk, "adds 4", f"chunk {chunk}"))
    max_degree = graph.max_degree or 0
    hub: Any = HUB_THRESHOLD if max_degree >= HUB_THRESHOLD else "off"
    decisions.append(Decision("hub_threshold", hub, "adds 6", f"largest degree {max_degree}"))
    params = {"delta": delta, "adapt": 2, "buckets": 8, "blocks": blocks, "chunk": chunk, "hub_threshold": hub}
    launch = KernelLaunch(block_size, CacheState.DEFAULT)
    config = algorithm.canonical(LaunchConfig(1, {k: launch for k in algorithm.kernels}, algorithm.name, params))
    return DeltaPrediction(config, classes, device, tuple(decisions), constants, model="adds-rules")
