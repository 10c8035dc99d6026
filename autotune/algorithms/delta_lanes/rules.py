"""The model's rules for lane-interleaved Delta-stepping (`kernels/lanes.cu`): every tuned value
from the device profile, the kernels' characterization (`algorithms/delta_lanes/lanes.toml`, its
[model] constants) and the graph's features, each with the rule that chose it.

1. Delta: a group's 32 instances share one threshold, so an iteration waits for the slowest
   lane's bucket; on a graph of skewed degrees (cv(G) at least `inf_skew`: hubs put most vertices
   a few hops from any source) INF (relaxed settlement: fewest iterations), otherwise
   `delta_factor` x the Delta of Delta-stepping's rule 1 (`autotune.algorithms.delta.rules`, with the
   constants of `algorithms/delta/delta.toml`), rounded to the nearest power of two of the
   domain. A graph without weights (all 0) gets INF.
2. Concurrent instances: the largest of the algorithm's CK values (1024 at most) whose
   workspaces fit in the device's memory: more groups, more lines in flight.
3. Block size: `block_size` for both kernels (`skew_block_size` on a graph of skewed degrees, as
   rule 1 tells them), among the sizes an SM can hold (the largest such otherwise).
4. Blocks per SM: `blocks_per_sm` (`skew_blocks_per_sm` on a skewed graph), launched even where
   fewer fit on an SM at once (the blocks take tiles of their group's queue from a counter, no barrier
   waits on them; more blocks per group share out a group's queue: 8 a SM of 1,024 threads, one
   resident, ran 1.3x faster than 1 on the skewed graphs of `benchmarks/data/h200/lanes-grid-d0d9efe`).
   The skewed graphs' pair is fitted (`autotune.algorithms.delta_lanes.fit`, on
   `scripts/probe_delta_grid.py --lanes` rows); the others' are not.
5. L1 state: default (a vertex's line of distances is read again for each of its edges).

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467, degree_cv=0.3, lightest_weight=45.4)
    >>> config = get("delta_lanes").predict(roads, load_device("hopper-h100")).config
    >>> config.param("delta"), config.param("blocks_per_sm"), config.concurrent_kernels
    (4096, 2, 1024)
    >>> social = GraphFeatures("social", 159316, 1_000_000, max_degree=5000, mean_weight=50.0,
    ...                        min_positive_weight=1, max_weight=100, degree_cv=12.7)
    >>> config = get("delta_lanes").predict(social, load_device("hopper-h100")).config
    >>> config.param("delta"), config.param("blocks_per_sm"), config.kernels["advance"].block_size
    ('inf', 8, 1024)
"""
from __future__ import annotations

from typing import Any

from autotune.errors import InputError
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.algorithms.delta.rules import DeltaPrediction, constants_of, graph_target, nearest_power
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.memory import memory_bound
from autotune.model.occupancy import candidate_block_sizes, occupancy
from autotune.model.decision import Decision

DEFAULTS = {"inf_skew": 1.0, "delta_factor": 8.0, "block_size": 512, "blocks_per_sm": 2,
            "skew_block_size": 512, "skew_blocks_per_sm": 2}


def wanted_launch(constants: dict[str, float], skewed: bool) -> tuple[int, int]:
    """The (block size, blocks per SM) rules 3 and 4 ask for: the skewed graphs' pair or the others'."""
    prefix = "skew_" if skewed else ""
    return int(constants[f"{prefix}block_size"]), int(constants[f"{prefix}blocks_per_sm"])


def launch_of(device: DeviceProfile, characterization: Characterization, constants: dict[str, float],
              skewed: bool = False) -> tuple[int, int, int] | None:
    """Rules 3 and 4 (of the graph only whether its degrees are `skewed`): (block size, blocks per SM,
    the blocks of that size an SM holds at once), or None where no block of the advance kernel launches
    on `device`."""
    advance = characterization.kernel("advance").resources
    sizes = [b for b in candidate_block_sizes(device) if b % 32 == 0 and occupancy(device, advance, b).blocks_per_sm > 0]
    if not sizes:
        return None
    wanted, per_sm = wanted_launch(constants, skewed)
    block_size = wanted if wanted in sizes else max(sizes)
    fit = occupancy(device, advance, block_size).blocks_per_sm
    return block_size, per_sm, fit


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any, delta_characterization: Characterization) -> DeltaPrediction:
    """The lane-interleaved configuration for a graph on a GPU (the module's rules 1-5).

    Args:
        features: the graph's features (weights and degrees where known).
        device: the GPU's profile.
        characterization: `algorithms/delta_lanes/lanes.toml` (resources and [model] constants).
        algorithm: the registered algorithm (its kernels and parameter domains).
        delta_characterization: Delta-stepping's (`algorithms/delta/delta.toml`): rule 1 builds on
            its Delta, from its [model] constants.
    """
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization, DEFAULTS)
    decisions: list[Decision] = []
    skew = graph.degree_cv or 0.0
    skewed = skew >= constants["inf_skew"]
    single = graph_target(constants_of(delta_characterization), graph)
    if single is None:
        delta: Any = "inf"
        why = "no positive weight known: relaxed settlement (INF)"
    elif skewed:
        delta = "inf"
        why = f"degree skew cv(G) {skew:.2f} >= {constants['inf_skew']:g}: relaxed settlement (INF)"
    else:
        target = constants["delta_factor"] * single
        delta = nearest_power(target, algorithm.parameter("delta").domain(graph))
        why = (f"cv(G) {skew:.2f} < {constants['inf_skew']:g}: {constants['delta_factor']:g} x Delta-stepping's "
               f"rule 1 ({single:.0f}) = {target:.0f}: nearest power of two {delta}")
    decisions.append(Decision("delta", delta, "lanes 1", why))

    largest = max(c for c in algorithm.concurrent_kernels if c <= 1024)
    ck, bound = memory_bound(algorithm, largest, algorithm.concurrent_kernels, graph.n_vertices, graph.n_edges, device)
    decisions.append(Decision("concurrent_kernels", ck, "lanes 2", f"the largest CK, {largest}" +
                              (f"; {bound}" if bound else "")))

    launched = launch_of(device, characterization, constants, skewed)
    if launched is None:
        raise InputError(f"{algorithm.name} cannot run on {device.name}: no block of its advance kernel launches there")
    block_size, per_sm, fit = launched
    wanted, _ = wanted_launch(constants, skewed)
    prefix = "skew_" if skewed else ""
    decisions.append(Decision("block_size", block_size, "lanes 3", f"{prefix}block_size {wanted}" if block_size == wanted
                              else f"{prefix}block_size {wanted} does not launch on {device.name}: the largest that does"))
    decisions.append(Decision("blocks_per_sm", per_sm, "lanes 4", f"{prefix}blocks_per_sm {per_sm}"
                              + ("" if per_sm <= fit else f" ({fit} at once on an SM: the others wait for a slot)")))
    decisions.append(Decision("cache", CacheState.DEFAULT, "lanes 5", "a vertex's line is read again per edge"))

    launch = KernelLaunch(block_size, CacheState.DEFAULT)
    config = LaunchConfig(ck, {k: launch for k in algorithm.kernels}, algorithm.name,
                          {"delta": delta, "blocks_per_sm": per_sm})
    return DeltaPrediction(config, classes, device, tuple(decisions), constants, model="lanes-rules")
