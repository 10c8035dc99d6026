"""The rules of thesis 4.5 and the guidelines (1)-(5) of 4.6.5 (block size and L1 state) and of
4.6.4 (concurrent kernels), as code that derives every value from the occupancy calculation and the
classes, and records which rule chose it.

Per kernel, in this order:

1. Classes. MAp and CLr come from the characterization; DSr from its per-degree table (thesis
   Table 4.1). For a kernel whose DSr grows with n as well (relax, thesis 4.5), st(G, GPU) overrides
   the table at the ends: the guidelines count every low-st relax scenario (24k) as low DSr
   ((1)ii) and every high-st one (98k) as high DSr ((4)); at medium st the table decides.
2. L1 state. (4) `prefer_l1` (the thesis's "increased") for non-high st or high DSr; (5) `no_l1`
   ("deactivated") for high st with non-high DSr. The increase rests on a premise (4.5.2: the
   kernels do not fill the shared memory, so a larger L1 costs nothing): if the smaller
   shared-memory configuration would lower the best occupancy, `prefer_shared` ("normal") is kept.
3. Occupancy table over the candidate block sizes under that L1 state, and its maximizing sizes.
4. Block size. (3) DSr medium/high: jump from the smallest maximizing size to the next one;
   (2) a kernel with more computation than its access pattern needs (CLr above MAp: the thesis's
   case is full-coalesced with medium CLr) at non-high st: the next candidate below the smallest
   maximizing size; (1) otherwise (and (1)iii for (2)'s kernels at high st): the smallest size that
   maximizes occupancy.
5. Concurrent kernels (4.6.4: fewer concurrent kernels for kernels with many memory accesses): the
   kernel's memory-accesses class gives 8 (low), 4 (medium) or 1 (high). The solve runs every
   kernel with one CK, so it takes the smallest, capped by the GPU's concurrent-kernel limit.

Lanes per vertex (relax) are not in the thesis: the largest power of two not above d(G), at most
a warp, so that the lanes of a vertex of mean degree get about one edge each.

Example::

    >>> from autotune.model import GraphFeatures, load_characterization, load_device
    >>> from autotune.algorithms.thesis.rules import predict
    >>> graph = GraphFeatures.from_mean_degree("random98k-d2", 98304, 2)
    >>> str(predict(graph, load_device("fermi-gf100"), load_characterization()).config.update)
    '192:no_l1'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from autotune.errors import InputError
from autotune.model.characterization import (
    AccessPattern,
    Characterization,
    KernelCharacterization,
    Level,
    load_characterization,
)
from autotune.model.decision import Decision
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify, stress_ratio
from autotune.model.occupancy import Occupancy, candidate_block_sizes, maximizing, occupancy_table
from autotune.launch import (
    CONCURRENT_KERNEL_CHOICES,
    LANE_CHOICES,
    CacheState,
    KernelLaunch,
    LaunchConfig,
)

# Thesis 4.6.4 / Table 4.4: the best CK was 8 for the update kernel (few memory accesses) in every
# scenario on both GPUs, and 1 for relax on d200 graphs ("better to leave a sequential-kernel
# execution"); kernels in between were best at 2-4.
CONCURRENT_KERNELS_BY_MEMORY_ACCESSES: Mapping[Level, int] = {Level.LOW: 8, Level.MEDIUM: 4, Level.HIGH: 1}

BLOCK_SIZE = "block_size"
CACHE = "cache"
LANES = "lanes"
CONCURRENT_KERNELS = "concurrent_kernels"


@dataclass(frozen=True)
class KernelClasses:
    """The classes a kernel has on one graph and GPU.

    Args:
        memory_access_pattern: MAp.
        computational_load: CLr.
        data_sharing_table: DSr of thesis Table 4.1 at the graph's degree class.
        data_sharing: the DSr the rules use (see the module's step 1).
        data_sharing_rule: where `data_sharing` came from.
        memory_accesses: global memory accesses per thread at the graph's degree class.
    """

    memory_access_pattern: AccessPattern
    computational_load: Level
    data_sharing_table: Level
    data_sharing: Level
    data_sharing_rule: str
    memory_accesses: Level

    @property
    def compute_rich(self) -> bool:
        """More computation than the access pattern needs to hide its latency (CLr above MAp).

        Thesis 4.3 pairs full-coalesced with low CLr, medium-coalesced with medium and scatter
        with high as the cases that maximum-occupancy sizes balance.
        """
        return self.computational_load.rank > self.memory_access_pattern.rank

    def to_json(self) -> dict[str, str]:
        return {
            "memory_access_pattern": self.memory_access_pattern.value,
            "computational_load": self.computational_load.value,
            "data_sharing": self.data_sharing.value,
            "memory_accesses": self.memory_accesses.value,
        }


@dataclass(frozen=True)
class KernelPrediction:
    """The prediction for one kernel, with everything that led to it.

    Args:
        kernel: its name.
        launch: the predicted block size, L1 state and lanes.
        classes: its classes on this graph and GPU.
        threads_per_instance: threads one launch starts per SSSP instance.
        kernel_stress_ratio: those threads times the predicted CK over the GPU's resident threads
            (shown, not classified: see `autotune.model.features`).
        occupancy: the occupancy table under the predicted L1 state, over the candidate sizes.
        maximizing_block_sizes: the sizes of that table that maximize occupancy.
        concurrent_kernels: the CK this kernel alone would get.
        decisions: the rules applied, in order.
    """

    kernel: str
    launch: KernelLaunch
    classes: KernelClasses
    threads_per_instance: int
    kernel_stress_ratio: float
    occupancy: tuple[Occupancy, ...]
    maximizing_block_sizes: tuple[int, ...]
    concurrent_kernels: int
    decisions: tuple[Decision, ...] = ()


@dataclass(frozen=True)
class Prediction:
    """A predicted launch configuration for one graph on one GPU.

    Args:
        config: the launch configuration.
        graph: the graph's features and classes on the GPU.
        device: the GPU.
        kernels: per kernel, what led to its launch.
        decisions: the solve-wide decisions (CK).
    """

    config: LaunchConfig
    graph: GraphClasses
    device: DeviceProfile
    kernels: Mapping[str, KernelPrediction]
    decisions: tuple[Decision, ...] = field(default=())

    def rules(self) -> dict[str, str]:
        """Which rule chose each value: {"relax.block_size": "4.6.5 (3)", ..., "concurrent_kernels": ...}."""
        chosen = {f"{name}.{d.parameter}": d.rule for name, kernel in self.kernels.items() for d in kernel.decisions}
        chosen.update({d.parameter: d.rule for d in self.decisions})
        return chosen

    def to_json(self) -> dict[str, object]:
        """The `predicted` object of a table entry."""
        return {
            "config": self.config.to_json(),
            "rules": self.rules(),
            "classes": {name: kernel.classes.to_json() for name, kernel in self.kernels.items()},
        }


def kernel_classes(kernel: KernelCharacterization, graph: GraphClasses) -> KernelClasses:
    """The classes of `kernel` on a graph (the module's step 1)."""
    table = kernel.data_sharing.at(graph.degree_class)
    sharing, rule = table, f"Table 4.1 at d(G) {graph.degree_class}"
    if kernel.data_sharing_grows_with_stress and graph.stress_class is Level.LOW:
        sharing, rule = Level.LOW, "4.6.5 (1)ii: low st, DSr counted low"
    elif kernel.data_sharing_grows_with_stress and graph.stress_class is Level.HIGH:
        sharing, rule = Level.HIGH, "4.6.5 (4): high st, DSr counted high"
    return KernelClasses(
        memory_access_pattern=kernel.memory_access_pattern,
        computational_load=kernel.computational_load,
        data_sharing_table=table,
        data_sharing=sharing,
        data_sharing_rule=rule,
        memory_accesses=kernel.memory_accesses.at(graph.degree_class),
    )


def predict_cache(
    kernel: KernelCharacterization, classes: KernelClasses, graph: GraphClasses, device: DeviceProfile
) -> Decision:
    """The L1 state (the module's step 2)."""
    st = graph.stress_class
    if st is Level.HIGH and classes.data_sharing is not Level.HIGH:
        return Decision(
            CACHE, CacheState.NO_L1, "4.6.5 (5)",
            f"high st ({graph.stress_ratio:.2f} > 3) with {classes.data_sharing} DSr: deactivate L1 "
            "(32-byte segments ease the thrashing of a stressed GPU)",
        )
    why = f"{st} st ({graph.stress_ratio:.2f})" if st is not Level.HIGH else "high DSr"
    sizes = candidate_block_sizes(device)
    with_l1 = maximizing_warps(occupancy_table(device, kernel.resources, sizes, CacheState.PREFER_L1))
    with_shared = maximizing_warps(occupancy_table(device, kernel.resources, sizes, CacheState.PREFER_SHARED))
    if with_l1 < with_shared:
        return Decision(
            CACHE, CacheState.PREFER_SHARED, "4.5.2 premise",
            f"{why} asks for a larger L1 (4.6.5 (4)), but the smallest shared-memory configuration "
            f"lowers the best occupancy from {with_shared} to {with_l1} warps per SM: keep the normal L1",
        )
    return Decision(
        CACHE, CacheState.PREFER_L1, "4.6.5 (4)",
        f"{why}: increase L1 (the best occupancy stays {with_l1} warps per SM)",
    )


def maximizing_warps(table: Iterable[Occupancy]) -> int:
    return max((row.active_warps for row in table), default=0)


def predict_block_size(
    classes: KernelClasses, graph: GraphClasses, table: tuple[Occupancy, ...], best: tuple[int, ...]
) -> Decision:
    """The block size (the module's step 4), from an occupancy table and its maximizing sizes."""
    smallest = best[0]
    pattern, load, sharing = classes.memory_access_pattern, classes.computational_load, classes.data_sharing
    listed = "/".join(map(str, best))
    if sharing is not Level.LOW:
        size = best[1] if len(best) > 1 else smallest
        literal = pattern is AccessPattern.MEDIUM_COALESCED and load is Level.LOW
        return Decision(
            BLOCK_SIZE, size, "4.6.5 (3)" if literal else "4.6.5 (3), generalized",
            f"{sharing} DSr: jump from {smallest}, the smallest size that maximizes occupancy "
            f"({listed}), to the next one, {size}",
        )
    if classes.compute_rich and graph.stress_class is not Level.HIGH:
        lower = [row for row in table if row.block_size < smallest and row.blocks_per_sm > 0]
        if not lower:
            return Decision(
                BLOCK_SIZE, smallest, "4.6.5 (2)",
                f"{load} CLr for a {pattern} pattern at {graph.stress_class} st asks for a size "
                f"below {smallest}, but none is smaller: {smallest}",
            )
        row = lower[-1]
        literal = pattern is AccessPattern.COALESCED and load is Level.MEDIUM
        return Decision(
            BLOCK_SIZE, row.block_size, "4.6.5 (2)" if literal else "4.6.5 (2), generalized",
            f"{load} CLr for a {pattern} pattern, low DSr, {graph.stress_class} st: the candidate "
            f"below {smallest} (the smallest maximizing size), {row.block_size}, at "
            f"{row.occupancy:.0%} occupancy",
        )
    if classes.compute_rich:
        rule = "4.6.5 (1)iii" if pattern is AccessPattern.COALESCED and load is Level.MEDIUM else "4.6.5 (1)iii, generalized"
        reason = f"{load} CLr, low DSr and high st: the smallest size that maximizes occupancy ({listed})"
    elif pattern is AccessPattern.COALESCED and load is Level.LOW:
        rule, reason = "4.6.5 (1)i", f"coalesced, low CLr, low DSr: the smallest size that maximizes occupancy ({listed})"
    elif pattern is AccessPattern.MEDIUM_COALESCED and load is Level.LOW:
        rule = "4.6.5 (1)ii"
        reason = f"medium-coalesced, low CLr, low DSr: the smallest size that maximizes occupancy ({listed})"
    else:
        rule = "4.6.5 (1), generalized"
        balance = (
            "balances computation and memory latency at maximum occupancy (4.3)"
            if load.rank == pattern.rank
            else "needs every warp to hide its memory latency (4.3)"
        )
        reason = f"{pattern} with {load} CLr {balance}: the smallest size that maximizes occupancy ({listed})"
    return Decision(BLOCK_SIZE, smallest, rule, reason)


def predict_concurrent_kernels(classes: KernelClasses) -> Decision:
    """The CK a kernel alone would get (4.6.4), from its memory-accesses class."""
    ck = CONCURRENT_KERNELS_BY_MEMORY_ACCESSES[classes.memory_accesses]
    return Decision(
        CONCURRENT_KERNELS, ck, "4.6.4",
        f"{classes.memory_accesses} memory accesses per thread: CK {ck} (fewer concurrent kernels "
        "for kernels with many memory accesses)",
    )


def predict_lanes(mean_degree: float, device: DeviceProfile) -> Decision:
    """Lanes per vertex for relax: the largest power of two not above d(G), at most a warp.

    Not in the thesis. Lanes of one vertex stride over its edge list together, so with L near the
    mean degree a vertex of mean degree gives each lane about one edge; more lanes would idle.
    """
    cap = min(max(LANE_CHOICES), device.warp_size)
    lanes = 1
    while lanes * 2 <= min(mean_degree, cap):
        lanes *= 2
    return Decision(
        LANES, lanes, "lanes: power of two <= d(G)",
        f"d(G) = {mean_degree:.1f}: {lanes} lane(s) per vertex (the largest power of two not above "
        f"d(G), at most {cap}), about one edge per lane",
    )


def solve_concurrent_kernels(per_kernel: Mapping[str, int], device: DeviceProfile) -> Decision:
    """One CK for the solve: the smallest kernel's, within the GPU's concurrent-kernel limit."""
    kernel, ck = min(per_kernel.items(), key=lambda item: (item[1], item[0]))
    reason = f"the solve runs every kernel with one CK: the smallest kernel preference ({kernel}: {ck})"
    limit = device.max_concurrent_kernels
    if limit is not None and ck > limit:
        ck = max(choice for choice in CONCURRENT_KERNEL_CHOICES if choice <= limit)
        reason += f", capped by the GPU's {limit} concurrent kernels: {ck}"
    return Decision(CONCURRENT_KERNELS, ck, "4.6.4", reason)


def predict_kernel(
    kernel: KernelCharacterization, graph: GraphClasses, device: DeviceProfile, lanes: Decision
) -> KernelPrediction:
    """Steps 1 to 5 for one kernel (CK is this kernel's own preference); `lanes` applies to a
    kernel that launches L threads per vertex."""
    if kernel.uses_lanes and kernel.name != "relax":
        raise InputError(
            f"kernel {kernel.name}: threads_per_vertex = \"lanes\" applies to relax only "
            "(a launch configuration has lanes for relax alone)"
        )
    classes = kernel_classes(kernel, graph)
    cache = predict_cache(kernel, classes, graph, device)
    table = occupancy_table(device, kernel.resources, candidate_block_sizes(device), cache.value)
    best = maximizing(table)
    if not best:
        raise InputError(f"kernel {kernel.name} cannot launch on {device.name}: {table[0].reason}")
    block = predict_block_size(classes, graph, table, best)
    ck = predict_concurrent_kernels(classes)
    kernel_lanes = int(lanes.value) if kernel.uses_lanes else 1
    per_vertex = kernel.threads_launched_per_vertex(kernel_lanes)
    n = graph.features.n_vertices
    return KernelPrediction(
        kernel=kernel.name,
        launch=KernelLaunch(block.value, cache.value, kernel_lanes),
        classes=classes,
        threads_per_instance=math.ceil(n * per_vertex),
        kernel_stress_ratio=stress_ratio(n, device, per_vertex, ck.value),
        occupancy=table,
        maximizing_block_sizes=best,
        concurrent_kernels=ck.value,
        decisions=(cache, block, ck) + ((lanes,) if kernel.uses_lanes else ()),
    )


def predict(
    graph: GraphFeatures | GraphClasses,
    device: DeviceProfile,
    characterization: Characterization | None = None,
    algorithm: str = "crauser",
    kernels: Sequence[str] = ("relax", "minimum", "update"),
) -> Prediction:
    """Predict the launch configuration of the tuned kernels for a graph on a GPU.

    Args:
        graph: the graph's features (n, m), or already classified.
        device: the GPU's profile.
        characterization: the kernels' characterization (default: the shipped `sssp.toml`).
        algorithm: the thesis algorithm the configuration launches (crauser or martin).
        kernels: the tuned kernels whose launch is predicted (the algorithm's).

    Returns:
        The configuration with, per kernel, the classes, the occupancy table and the rules applied.

    Raises:
        InputError: the characterization lacks a tuned kernel, or a kernel cannot launch.

    Example::

        >>> from autotune.model import GraphFeatures, load_device
        >>> features = GraphFeatures.from_mean_degree("random24k-d20", 24576, 20)
        >>> predict(features, load_device("kepler-gk104")).config.minimum.block_size
        96
    """
    characterization = characterization or load_characterization()
    classes = graph if isinstance(graph, GraphClasses) else classify(graph, device)
    lanes = predict_lanes(classes.features.mean_degree, device)
    predicted = {name: predict_kernel(characterization.kernel(name), classes, device, lanes) for name in kernels}
    ck = solve_concurrent_kernels({name: k.concurrent_kernels for name, k in predicted.items()}, device)
    config = LaunchConfig(ck.value, {name: k.launch for name, k in predicted.items()}, algorithm)
    return Prediction(config=config, graph=classes, device=device, kernels=predicted, decisions=(ck,))
