"""The model's rules for the Delta-stepping kernels (`kernels/delta.cu`): every tuned value from
the device profile, the kernels' characterization (`algorithms/delta/delta.toml`, its [model]
constants) and the graph's features, each with the rule that chose it. The rules aim at the
tuner's default objective, the least time per SSSP; the constants are fitted on the H100's
batched records by `scripts/fit_delta_model.py`, which also checks them leaving each graph out
(the benchmark suite `model`: `python3 -m benchmarks run model`).

1. Delta: Meyer and Sanders show Delta = Theta(1 / d) keeps the work linear for random weights in
   [0, 1], Delta in units of the largest weight; here in units of the weight of the arcs shortest
   paths take, estimated by the mean of the vertices' lightest out-arc weights (`unit_weight`: a
   power grid's few huge impedances and a dense graph's heavy arcs do not move it, where they move
   the mean; `scripts/study_delta_unit.py` found it predicts every class left out, the road
   networks included, where the mean and the median weight do not), and damped by the degree skew
   cv(G) (a hub's edges come in one bucket, so skewed graphs want smaller buckets):
   Delta = `delta_scale` x unit / d(G) / (1 + cv(G))^`delta_skew` x (largest weight /
   (2 x unit))^`delta_spread` (`delta_target`; the spread exponent is fitted at 0), rounded to the
   nearest power of two of the algorithm's domain. A graph without weights (all 0) gets INF.
2. Blocks per instance: 1. Many independent instances fill the GPU better than one instance
   spread over blocks that meet at barriers (the batched winner of every graph of the H100 runs
   but rmat17, where two blocks per instance were 11% faster).
3. Loop mode: persistent (the host launches once; one block per instance needs no grid barrier).
4. Concurrent instances: the largest of the algorithm's CK values (1024 at most) whose
   workspaces fit in the device's memory (`autotune.model.memory`); but where the level width
   reaches `wide_width` (when the characterization fits one), one instance per SM (the largest CK
   no larger than the SM count: 128 on the H100's and H200's 132), each with a block of
   `wide_block_size`, and only where solve_block's duplicate bitmaps fit a block's shared memory
   (`algorithms.delta_shared.bitmap_words`). Until a9bcd3b the engine kept those bitmaps in
   shared memory only while CK was at most the SM count, and CK 128 with blocks of 1,024 beat
   CK 1,024 by 7% to 84% on every graph wider than 900 (`benchmarks/data/h100/ck-bs-grid-93dca1c.jsonl.gz` at 68a5795).
   Since a9bcd3b the engine keeps them at any CK where they cost no residency, and
   `scripts/probe_batch_ck.py` on the H100 (`benchmarks/data/h100/ck-bs-grid-e6e4b8e.jsonl.gz`)
   found CK 1,024 the best on all 14 of its graphs (CK 128 2% to 62% slower with the same
   blocks): `delta_fit.fit_wide` now places no width, and the shipped constants have none.
5. Block size: where the graph's level width is known (`autotune.model.shape`: the vertices a
   source reaches per breadth-first level), the ladder `block_width_<size>`: the largest size
   whose width the graph's reaches. Each instance's block works through a level's share of
   the queue; a wide level keeps a large block busy, a narrow one leaves most of its threads idle.
   `scripts/probe_batch_bins.py` timed the batch-end prediction at every size on 31 graphs of the
   H100 (`benchmarks/data/h100/bins-grid-4d19028.jsonl.gz`, the engine of a9bcd3b): 128 won on
   usa-roads, rome99 and power-pegase2869 (widths 237, 75, 56), 256 on the meshes, geometric
   graphs, p2p-Gnutella04 and the other power grids (107 to 580), 512 from about 700 (and on two
   roads), 1,024 on most graphs from about 1,500; `delta_fit.fit_block_widths` places the cuts,
   each class of graphs weighing the same. Then, beyond one instance per SM, a size at which
   solve_block would lose its duplicate bitmaps (they would lower the blocks an SM holds:
   `keeps_bitmaps`, with solve_block's own registers) gives way to the smallest larger size of the
   ladder that keeps them, where one does: in the same records, a size without its bitmaps was
   1.4x to 1.8x slower than the next with them on the meshes, rgg and delaunay graphs (blocks of
   128 against 256) and web-Stanford (512 against 1,024). Not on usa-roads, whose narrow levels
   want 128 (512, the first with bitmaps, is 1.41x). The ladder is fitted at the sizes this step
   takes. Where the width is unknown, `block_size`; from `wide_width` on, rule 4's. Each
   among the sizes an SM can hold (the largest such otherwise).
6. Bin thresholds: whole blocks for degrees of at least `block_threshold` (when the graph has
   them); a warp for degrees of at least a warp only where the mean degree reaches a warp,
   otherwise off. At the batch end the warp bin's pass costs more than the few wide vertices
   expanded by one thread each: `scripts/probe_batch_bins.py` on the H100 (records in
   `benchmarks/data/h100/bins-grid-d16ea63.jsonl.gz` at 68a5795) found no warp bin faster than one from 32
   on all 11 graphs of mean degree under 32 whose degrees reach 32, each at its best block size:
   by 18% to 36% on eight (social, collaboration, citation, web, a stiffness mesh), by 1% to 7%
   on the two p2p graphs and rmat17; slower only on the random graphs of degree 200 (16%, 21%).
7. L1 state: default (the kernels' queues bypass L1 by their own loads).

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467, lightest_weight=45.4)
    >>> config = get("delta").predict(roads, load_device("hopper-h100")).config
    >>> config.param("delta"), config.param("blocks"), config.concurrent_kernels
    (512, 1, 1024)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from autotune.algorithms.delta.shared import QUEUE_CAPACITY, bitmap_words
from autotune.errors import InputError
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.memory import memory_bound
from autotune.model.occupancy import blocks_with_extra_shared, candidate_block_sizes, occupancy
from autotune.model.decision import Decision

WARP = 32  # rule 6: the warp bin's threshold, and the mean degree from which it pays
DEFAULTS = {"delta_scale": 16.0, "delta_skew": 0.0, "delta_spread": 0.0, "block_size": 256, "block_threshold": 1024}


@dataclass(frozen=True)
class DeltaPrediction:
    """A predicted Delta-stepping configuration and the rule behind every value."""

    config: LaunchConfig
    graph: GraphClasses
    device: DeviceProfile
    decisions: tuple[Decision, ...] = field(default=())
    constants: Mapping[str, float] = field(default_factory=dict)
    kernels: Mapping[str, Any] = field(default_factory=dict)  # no per-kernel rules: every value is solve-wide
    model: str = "delta-rules"

    def rules(self) -> dict[str, str]:
        return {d.parameter: d.rule for d in self.decisions}

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.to_json(), "rules": self.rules(),
                "constants": dict(self.constants), "model": self.model}


def constants_of(characterization: Characterization, defaults: Mapping[str, float] = DEFAULTS) -> dict[str, float]:
    """The [model] constants of the characterization, `defaults` (these rules') where it has none."""
    return {**defaults, **dict(getattr(characterization, "model", {}) or {})}


def nearest_power(value: float, domain: tuple[Any, ...]) -> Any:
    """The power of two of `domain` nearest `value` on a log scale (ties: the smaller); the last
    value (INF) when the domain has no finite one."""
    finite = [v for v in domain if isinstance(v, int)]
    if not finite:
        return domain[-1]
    return min(finite, key=lambda v: (abs(math.log2(v) - math.log2(max(value, 1e-9))), v))


def delta_target(scale: float, skew: float, spread: float, unit: float, max_weight: float | None,
                 mean_degree: float, degree_cv: float | None) -> float:
    """Rule 1's Delta before rounding (the module docstring), `unit` its weight unit
    (`unit_weight`); without a largest weight, the weights are taken as uniform (the spread factor 1)."""
    spread_factor = max_weight / (2.0 * unit) if max_weight and unit else 1.0
    return (scale * unit / max(mean_degree, 1e-9) / (1.0 + (degree_cv or 0.0)) ** skew
            * spread_factor ** spread)


def unit_weight(lightest_weight: float | None, mean_weight: float | None) -> float | None:
    """Rule 1's weight unit: the mean of the vertices' lightest out-arc weights
    (`features.lightest_weight`), or the mean weight where that is unknown (a graph known only by
    a table's or records' figures, which do not hold it) or 0 (every vertex has an arc of weight 0)."""
    return lightest_weight or mean_weight


def graph_target(constants: Mapping[str, Any], graph: GraphFeatures) -> float | None:
    """Rule 1's Delta before rounding for `graph` with `constants`' delta_scale, delta_skew and
    delta_spread, or None where no positive weight is known (relaxed settlement: INF)."""
    unit = unit_weight(graph.lightest_weight, graph.mean_weight)
    if not unit:
        return None
    return delta_target(constants["delta_scale"], constants["delta_skew"], constants["delta_spread"], unit,
                        graph.max_weight, max(graph.mean_degree, 1e-9), graph.degree_cv)


LADDER = "block_width_"  # rule 5's constants: block_width_<size> = the level width from which <size> is taken


def ladder_of(constants: Mapping[str, Any]) -> dict[int, float]:
    """Rule 5's ladder in `constants`: block size -> the level width from which it is taken."""
    return {int(key[len(LADDER):]): float(value) for key, value in constants.items()
            if key.startswith(LADDER) and key[len(LADDER):].isdigit()}


def ladder_size(ladder: Mapping[int, float], width: float) -> int:
    """The ladder's block size for a level width: the largest whose width it reaches (else the smallest)."""
    return max((size for size, start in ladder.items() if width >= start), default=min(ladder))


def is_wide(graph: GraphFeatures, constants: Mapping[str, Any]) -> bool:
    """Whether the graph's level width reaches rule 4's fitted `wide_width`."""
    return "wide_width" in constants and graph.level_width is not None and graph.level_width >= constants["wide_width"]


def keeps_bitmaps(n_vertices: int, device: DeviceProfile, characterization: Characterization, block_size: int,
                  ck: int) -> bool:
    """Whether the engine gives solve_block's blocks of `block_size` their duplicate bitmaps at
    `ck` instances (`bitmap_words` as `gpu.delta_engine` calls it, with solve_block's own
    registers): they fit, and they cost no residency or CK is at most the SM count."""
    resources = characterization.kernel("advance").resources_of("solve_block")
    base = resources.shared_memory_bytes(block_size) + 8 * QUEUE_CAPACITY
    resident = blocks_with_extra_shared(device, resources.registers_per_thread, base, block_size)
    return bitmap_words(n_vertices, ck, device.sm_count, device.max_shared_memory_per_block - base, resident) > 0


def bitmap_size(size: int, sizes: Sequence[int], keeps: Callable[[int], bool]) -> int:
    """Rule 5's second step: `size` if it keeps the bitmaps (`keeps`), else the smallest larger of
    `sizes` that does, else `size`."""
    return size if keeps(size) else next((s for s in sorted(sizes) if s > size and keeps(s)), size)


def bitmap_sizes_of(vertices: Mapping[str, int], device: DeviceProfile, characterization: Characterization,
                    ck: int, sizes: Sequence[int]) -> Callable[[str, int], int]:
    """`delta_fit.fit_block_widths`' `taken`: for a graph of `vertices` and a ladder size, the size
    rule 5's second step takes at `ck` instances (`bitmap_size` among `sizes`)."""
    def taken(graph: str, size: int) -> int:
        return bitmap_size(size, sizes, lambda b: keeps_bitmaps(vertices[graph], device, characterization, b, ck))

    return taken


def launchable_sizes(device: DeviceProfile, characterization: Characterization) -> list[int]:
    """The block sizes of which an SM holds at least one block of the advance kernel (rule 5 takes
    among them)."""
    advance = characterization.kernel("advance").resources
    return [b for b in candidate_block_sizes(device) if occupancy(device, advance, b).blocks_per_sm > 0]


def per_sm(choices: Sequence[int], device: DeviceProfile) -> int:
    """Rule 4's CK of one instance per SM: the largest of `choices` no larger than the SM count."""
    return max([c for c in choices if c <= device.sm_count] or [min(choices)])


def block_size_for(graph: GraphFeatures, constants: Mapping[str, Any], wide: bool) -> tuple[int, str]:
    """Rule 5's block size before the device's limits, and why; `wide`: whether rule 4 gives one
    instance per SM."""
    if wide:
        size = int(constants["wide_block_size"])
        return size, f"level width {graph.level_width:,.0f} >= {constants['wide_width']:,.0f}: {size}, an SM's block"
    ladder, fixed = ladder_of(constants), int(constants["block_size"])
    if not ladder:
        return fixed, f"block_size {fixed}"
    if graph.level_width is None:
        return fixed, f"block_size {fixed}: the level width is unknown"
    size = ladder_size(ladder, graph.level_width)
    steps = ", ".join(f"{s} from {start:,.0f}" for s, start in sorted(ladder.items()))
    return size, f"level width {graph.level_width:,.0f}: {size} (block sizes {steps})"


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any) -> DeltaPrediction:
    """The Delta-stepping configuration for a graph on a GPU (the module's rules 1-7).

    Args:
        features: the graph's features (weights and degrees where known).
        device: the GPU's profile.
        characterization: `algorithms/delta/delta.toml` (resources and [model] constants).
        algorithm: the registered Delta-stepping algorithm (its kernels and parameter domains).
    """
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization)
    decisions: list[Decision] = []
    d = max(graph.mean_degree, 1e-9)

    domain = algorithm.parameter("delta").domain(graph)
    target = graph_target(constants, graph)
    if target is None:
        delta: Any = "inf"
        decisions.append(Decision("delta", delta, "delta 1", "no positive weight known: relaxed settlement (INF)"))
    else:
        unit = unit_weight(graph.lightest_weight, graph.mean_weight)
        delta = nearest_power(target, domain)
        named = "lightest-arc weight" if graph.lightest_weight else "mean weight"
        spread = (f" x (largest weight {graph.max_weight or 'unknown (uniform)'} / 2 x unit)^{constants['delta_spread']:g}"
                  if constants["delta_spread"] else "")
        decisions.append(Decision("delta", delta, "delta 1 (Meyer-Sanders)",
                                  f"{constants['delta_scale']:g} x {named} {unit:.1f} / d(G) "
                                  f"{d:.2f} / (1 + cv(G) {graph.degree_cv or 0.0:.2f})^{constants['delta_skew']:g}"
                                  f"{spread} = {target:.0f}: nearest power of two {delta}"))

    advance = characterization.kernel("advance").resources
    sizes = launchable_sizes(device, characterization)
    if not sizes:
        why = occupancy(device, advance, min(candidate_block_sizes(device))).reason
        raise InputError(f"{algorithm.name} cannot run on {device.name}: no block of its advance kernel launches "
                         f"there ({why or 'no SM holds one'})")
    reaches = is_wide(graph, constants)
    one_per_sm = per_sm(algorithm.concurrent_kernels, device)
    wide = reaches and keeps_bitmaps(graph.n_vertices, device, characterization, int(constants["wide_block_size"]),
                                     one_per_sm)
    if wide:
        largest = one_per_sm
        many = (f"level width {graph.level_width:,.0f} >= {constants['wide_width']:,.0f}: one instance per SM, "
                f"the largest CK up to {device.sm_count} SMs, {largest}")
    else:
        largest = max(c for c in algorithm.concurrent_kernels if c <= 1024)
        many = f"the largest CK, {largest}" + (f" (level width {graph.level_width:,.0f} >= {constants['wide_width']:,.0f}, "
                                               "but the duplicate bitmaps of one instance per SM do not fit its block's "
                                               "shared memory)" if reaches else "")
    wanted, why = block_size_for(graph, constants, wide)
    ladder = ladder_of(constants)
    if ladder and graph.level_width is not None and not wide:
        size = bitmap_size(wanted, list(ladder), lambda b: keeps_bitmaps(graph.n_vertices, device, characterization,
                                                                          b, largest))
        if size != wanted:
            why += f"; {size}, the smallest larger that keeps solve_block's duplicate bitmaps at CK {largest}"
        wanted = size
    block_size = wanted if wanted in sizes else max(sizes)
    decisions.append(Decision("blocks", 1, "delta 2", "one block per instance: independent instances fill the GPU"))
    decisions.append(Decision("loop", "persistent", "delta 3", "one launch per batch, no grid barrier"))
    ck, bound = memory_bound(algorithm, largest, algorithm.concurrent_kernels, graph.n_vertices, graph.n_edges, device)
    decisions.append(Decision("concurrent_kernels", ck, "delta 4", many + (f"; {bound}" if bound else "")))
    decisions.append(Decision("block_size", block_size, "delta 5", why if block_size == wanted else
                              f"{why}, which does not launch on {device.name}: the largest that does"))
    blocks = 1

    max_degree = graph.max_degree if graph.max_degree is not None else int(math.ceil(d))
    warp: Any = WARP if max_degree >= WARP and d >= WARP else "off"
    hub = int(constants["block_threshold"])
    block: Any = hub if max_degree >= hub else "off"
    decisions.append(Decision("warp_threshold", warp, "delta 6", f"largest degree {max_degree}, mean degree {d:.1f}"))
    decisions.append(Decision("block_threshold", block, "delta 6", f"largest degree {max_degree}"))
    decisions.append(Decision("cache", CacheState.DEFAULT, "delta 7", "the queues' loads bypass L1 themselves"))

    launch = KernelLaunch(block_size, CacheState.DEFAULT)
    params = {"delta": delta, "loop": "persistent", "blocks": blocks, "warp_threshold": warp, "block_threshold": block}
    config = algorithm.canonical(LaunchConfig(ck, {k: launch for k in algorithm.kernels}, algorithm.name, params))
    return DeltaPrediction(config, classes, device, tuple(decisions), constants)
