"""The model's rules for the Delta-stepping kernels (`kernels/delta.cu`): every tuned value from
the device profile, the kernels' characterization (`characterizations/delta.toml`, its [model]
constants) and the graph's features, each with the rule that chose it.

1. Delta: Meyer and Sanders show Delta = Theta(1 / d) keeps the work linear for random weights in
   [0, 1]; scaled to the graph's weights, Delta = `delta_scale` x mean weight / d(G), rounded to
   the nearest power of two of the algorithm's domain. A graph without weights (all 0) gets INF.
2. Blocks per instance: a high-diameter, low-degree graph (d(G) at most `road_degree`) has small
   frontiers, which one block expands with a __syncthreads per phase (the cheapest barrier): 1.
   Otherwise the instance spreads over the SMs: SMs / CK blocks (at least 1).
3. Loop mode: persistent (the host launches once); it needs every block resident, which
   blocks x CK <= SMs keeps (`autotune.gpu.delta_engine` checks it against the occupancy).
4. Concurrent instances: enough to fill the GPU once: with one block per instance, the resident
   blocks of the advance kernel (occupancy at its block size), no more than fit in the device's
   memory (`autotune.model.memory`); otherwise 1 (the instance already spans the GPU).
5. Block size: the largest size that keeps the occupancy of the 1-block solve (its phases are
   latency-bound, so more threads per block hide more), `grid_block_size` otherwise.
6. Bin thresholds: a warp for degrees of at least a warp (when the graph has them), whole blocks
   for degrees of at least `block_threshold` (when it has them); otherwise off.
7. L1 state: default (the kernels' queues bypass L1 by their own loads).

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467)
    >>> config = get("delta").predict(roads, load_device("hopper-h100")).config
    >>> config.param("delta"), config.param("blocks")
    (2048, 1)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from autotune.errors import InputError
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.memory import memory_bound
from autotune.model.occupancy import candidate_block_sizes, occupancy
from autotune.model.rules import Decision

DEFAULTS = {"delta_scale": 64.0, "road_degree": 4.0, "grid_block_size": 512, "block_threshold": 1024}


@dataclass(frozen=True)
class DeltaPrediction:
    """A predicted Delta-stepping configuration and the rule behind every value."""

    config: LaunchConfig
    graph: GraphClasses
    device: DeviceProfile
    decisions: tuple[Decision, ...] = field(default=())
    constants: Mapping[str, float] = field(default_factory=dict)
    kernels: Mapping[str, Any] = field(default_factory=dict)  # no per-kernel rules: every value is solve-wide

    def rules(self) -> dict[str, str]:
        return {d.parameter: d.rule for d in self.decisions}

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.to_json(), "rules": self.rules(),
                "constants": dict(self.constants), "model": "delta-rules"}


def constants_of(characterization: Characterization) -> dict[str, float]:
    """The [model] constants of the characterization, defaults where it has none."""
    return {**DEFAULTS, **dict(getattr(characterization, "model", {}) or {})}


def _nearest_power(value: float, domain: tuple[Any, ...]) -> Any:
    finite = [v for v in domain if isinstance(v, int)]
    if not finite:
        return domain[-1]
    return min(finite, key=lambda v: (abs(math.log2(v) - math.log2(max(value, 1e-9))), v))


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any) -> DeltaPrediction:
    """The Delta-stepping configuration for a graph on a GPU (the module's rules 1-7).

    Args:
        features: the graph's features (weights and degrees where known).
        device: the GPU's profile.
        characterization: `characterizations/delta.toml` (resources and [model] constants).
        algorithm: the registered Delta-stepping algorithm (its kernels and parameter domains).
    """
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization)
    decisions: list[Decision] = []
    d = max(graph.mean_degree, 1e-9)

    domain = algorithm.parameter("delta").domain(graph)
    if not graph.mean_weight:
        delta: Any = "inf"
        decisions.append(Decision("delta", delta, "delta 1", "no positive weight known: relaxed settlement (INF)"))
    else:
        target = constants["delta_scale"] * graph.mean_weight / d
        delta = _nearest_power(target, domain)
        decisions.append(Decision("delta", delta, "delta 1 (Meyer-Sanders)",
                                  f"{constants['delta_scale']:g} x mean weight {graph.mean_weight:.1f} / d(G) "
                                  f"{d:.2f} = {target:.0f}: nearest power of two {delta}"))

    road = graph.mean_degree <= constants["road_degree"]
    advance = characterization.kernel("advance").resources
    if road:
        sizes = [b for b in candidate_block_sizes(device) if occupancy(device, advance, b).blocks_per_sm > 0]
        if not sizes:
            why = occupancy(device, advance, min(candidate_block_sizes(device))).reason
            raise InputError(f"{algorithm.name} cannot run on {device.name}: no block of its advance kernel launches "
                             f"there ({why or 'no SM holds one'})")
        block_size = max(sizes)
        per_sm = occupancy(device, advance, block_size).blocks_per_sm
        fill = 1 << int(math.log2(max(1, min(1024, per_sm * device.sm_count))))
        ck, bound = memory_bound(algorithm, fill, algorithm.concurrent_kernels, graph.n_vertices, graph.n_edges, device)
        blocks = 1
        decisions.append(Decision("blocks", 1, "delta 2", f"d(G) {graph.mean_degree:.2f} <= "
                                  f"{constants['road_degree']:g}: small frontiers, one block per instance"))
        decisions.append(Decision("block_size", block_size, "delta 5",
                                  f"the largest size one SM holds ({per_sm} block(s) per SM)"))
        decisions.append(Decision("concurrent_kernels", ck, "delta 4",
                                  f"{per_sm} x {device.sm_count} SMs resident blocks: CK {fill} fills the GPU once"
                                  + (f"; {bound}" if bound else "")))
    else:
        block_size = int(constants["grid_block_size"])
        ck = 1
        blocks = max(1, device.sm_count // ck)
        blocks = 1 << int(math.log2(blocks))
        decisions.append(Decision("blocks", blocks, "delta 2", f"d(G) {graph.mean_degree:.2f}: the instance spreads "
                                  f"over the SMs ({device.sm_count}), a power of two: {blocks}"))
        decisions.append(Decision("block_size", block_size, "delta 5", f"grid_block_size {block_size}"))
        decisions.append(Decision("concurrent_kernels", ck, "delta 4", "one instance already spans the GPU"))
    decisions.append(Decision("loop", "persistent", "delta 3", f"{blocks} x CK {ck} blocks, all resident"))

    max_degree = graph.max_degree if graph.max_degree is not None else int(math.ceil(d))
    warp: Any = 32 if max_degree >= 32 else "off"
    hub = int(constants["block_threshold"])
    block: Any = hub if max_degree >= hub else "off"
    decisions.append(Decision("warp_threshold", warp, "delta 6", f"largest degree {max_degree}"))
    decisions.append(Decision("block_threshold", block, "delta 6", f"largest degree {max_degree}"))
    decisions.append(Decision("cache", CacheState.DEFAULT, "delta 7", "the queues' loads bypass L1 themselves"))

    launch = KernelLaunch(block_size, CacheState.DEFAULT)
    params = {"delta": delta, "loop": "persistent", "blocks": blocks, "warp_threshold": warp, "block_threshold": block}
    config = algorithm.canonical(LaunchConfig(ck, {k: launch for k in algorithm.kernels}, algorithm.name, params))
    return DeltaPrediction(config, classes, device, tuple(decisions), constants)
