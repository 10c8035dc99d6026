"""Work-efficient Delta-stepping in the near-far form (`kernels/delta.cu`): frontier queues with
duplicate suppression, thread/warp/block expansion of skewed degrees, and the iteration loop on
the host or in one persistent launch. Tuned: Delta (from the smallest positive weight to INF, the
relaxed settlement of Fiala's poster), the loop mode, the blocks per instance, the two bin
thresholds, each kernel's block size and L1 state, and CK."""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta.shared import QUEUE_CAPACITY
from autotune.algorithms.parameters import Parameter
from autotune.launch import LaunchConfig, ParamValue

if TYPE_CHECKING:
    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult

INFINITE = "inf"
OFF = "off"
HOST, PERSISTENT, SHARED = "host", "persistent", "shared"
MIN_BLOCK_THRESHOLD = 32
GRID_BLOCKS = 128  # the blocks a one-query grid launches (latency_design), shared out over CK instances when bridged
DELTA_SPAN = 16  # the largest finite Delta tried: the largest weight times this, in powers of two
SHARED_PER_BLOCK = 227 * 1024  # the shared memory a Hopper block may opt into
# Shared memory for the graph in loop mode shared, at most: Hopper's 227 KiB a block less
# solve_block's arrays at 1,024 threads (12 bytes a thread and two queue heads of 2,048 entries).
MAX_SHARED_GRAPH_BYTES = SHARED_PER_BLOCK - 12 * 1024 - 8 * QUEUE_CAPACITY
MAX_DELTA = 1 << 30  # the kernels take Delta as an int, INT32_MAX meaning INF (`delta_argument`)
MAX_DEFER_WORK = 1 << 30  # the kernels take `defer_work` as an int (and grow it up to 2e9 on small queues)


def delta_values(features: Any) -> tuple[ParamValue, ...]:
    """Delta on a log scale, from the graph's smallest positive weight (rounded down to a power of
    two) to 16 times its largest (rounded up), at most `MAX_DELTA`, then INF. A graph without
    positive weights: 1, INF.

    Example:
        >>> from types import SimpleNamespace
        >>> delta_values(SimpleNamespace(min_positive_weight=1, max_weight=100))[-3:]
        (1024, 2048, 'inf')
        >>> delta_values(SimpleNamespace(min_positive_weight=10**8, max_weight=2 * 10**8))
        (67108864, 134217728, 268435456, 536870912, 1073741824, 'inf')
    """
    low = getattr(features, "min_positive_weight", None)
    high = getattr(features, "max_weight", None)
    if not low or not high:
        return (1, INFINITE)
    first = min(1 << max(0, int(math.floor(math.log2(low)))), MAX_DELTA)
    last = min(1 << max(0, int(math.ceil(math.log2(high * DELTA_SPAN)))), MAX_DELTA)
    values: list[ParamValue] = []
    value = first
    while value <= last:
        values.append(value)
        value <<= 1
    return (*values, INFINITE)


def threshold_argument(value: ParamValue, max_degree: int | None = None) -> int:
    """A bin threshold as the kernels take it: 0 for `off`, and 0 too where no vertex of the graph
    (of `max_degree` edges at most) reaches it: the bin would be empty, and the block bin costs a
    barrier per tile to find that out (4% of one query on usa-roads, docs/notes/delta-kernels.md, run K).

    Example:
        >>> threshold_argument(1024, max_degree=6), threshold_argument(4, max_degree=6), threshold_argument(OFF)
        (0, 4, 0)
    """
    if value == OFF or (max_degree is not None and int(value) > max_degree):
        return 0
    return int(value)


def shared_graph_bytes(n_vertices: int, n_edges: int, wide: bool = False) -> int:
    """Shared memory the `shared` loop mode takes for the graph (offsets, columns, weights) and an
    instance's distances, on top of what solve_block takes (delta.cu, block_solve); `wide`: the
    64-bit builds' (8 bytes a distance, from the next 8 bytes).

    Example:
        >>> shared_graph_bytes(3353, 8859), shared_graph_bytes(3353, 8859, wide=True)  # rome99
        (97700, 111116)
    """
    return 4 * (n_vertices + 1 + 2 * n_edges) + (4 + 8 * n_vertices if wide else 4 * n_vertices)


def loop_values(features: Any) -> tuple[ParamValue, ...]:
    """The loop modes a sweep tries on a graph: `shared` only where the graph and its distances
    fit in the most shared memory a GPU gives one block (`MAX_SHARED_GRAPH_BYTES`; the engine
    refuses what does not fit on the GPU at hand).

    Example:
        >>> from types import SimpleNamespace
        >>> loop_values(SimpleNamespace(n_vertices=3353, n_edges=8859)), loop_values(SimpleNamespace(n_vertices=87575, n_edges=242982))
        (('host', 'persistent', 'shared'), ('host', 'persistent'))
    """
    n, m = getattr(features, "n_vertices", None), getattr(features, "n_edges", None)
    fits = n is not None and m is not None and shared_graph_bytes(n, m) <= MAX_SHARED_GRAPH_BYTES
    return (HOST, PERSISTENT, SHARED) if fits else (HOST, PERSISTENT)


DEFER_WEIGHTS = (1, 2, 4, 8, 16, 32)  # `defer_work`'s values, in the graph's largest weights
# `defer_work` is offered where some vertex has this many edges. At 32, random4194304-d16 (every out-degree 16) was
# never offered it: its default sweep's one query 7.842 ms at b0141ee, 3.666 ms with `defer_work` 800 at 0ca17ab (the
# H200, suite `large`: benchmarks/results/nvidia-h200/large.json, the earlier row in its version before a1ba9cf).
# Graphs of smaller degrees are not measured.
DEFER_WORK_BELOW = 16
DEFER_FIRST = 4  # one query's grid is also tried first with defer_work at this many largest weights
GRID_TILES = 2  # `tiles` where a configuration does not set it (kernels/delta.cu's host loop: GRID_TILES)


def defer_values(features: Any) -> tuple[ParamValue, ...]:
    """`defer_work`'s values on a graph: off, and the largest weight times `DEFER_WEIGHTS` where
    some vertex has `DEFER_WORK_BELOW` edges or more (100 for a graph of unknown weights), each at
    most `MAX_DEFER_WORK` (the kernels take it as an int: weights near 2^31 passed it).

    Example:
        >>> from types import SimpleNamespace
        >>> defer_values(SimpleNamespace(max_degree=16, max_weight=100)), defer_values(SimpleNamespace(max_degree=6))
        (('off', 100, 200, 400, 800, 1600, 3200), ('off',))
        >>> defer_values(SimpleNamespace(max_degree=300, max_weight=2 * 10**8))
        ('off', 200000000, 400000000, 800000000, 1073741824)
    """
    most = getattr(features, "max_degree", None)
    if most is not None and most < DEFER_WORK_BELOW:
        return (OFF,)
    weight = max(1, int(getattr(features, "max_weight", None) or 100))
    return (OFF, *dict.fromkeys(min(weight * k, MAX_DEFER_WORK) for k in DEFER_WEIGHTS))


def delta_argument(value: ParamValue) -> int:
    """Delta as the kernels take it: INT32_MAX for `inf`."""
    return 0x7FFFFFFF if value == INFINITE else int(value)


class DeltaStepping(Algorithm):
    name = "delta"
    summary = "near-far Delta-stepping with frontier queues, hub load balancing and a device-resident loop"
    kernels = ("advance", "split")
    parameters = (
        Parameter("delta", "bucket width; inf: relaxed settlement (frontier Bellman-Ford)", INFINITE,
                  names=(INFINITE,), graph_values=delta_values, values=(INFINITE,)),
        Parameter("loop", "host: a launch per phase, termination read asynchronously; persistent: one "
                  "launch runs the whole solve; shared: one launch, one block per instance holding the graph and "
                  "the distances in shared memory (graphs of a few thousand vertices)", PERSISTENT,
                  values=(HOST, PERSISTENT, SHARED), names=(HOST, PERSISTENT, SHARED), integers=False,
                  graph_values=loop_values),
        Parameter("blocks", "blocks per SSSP instance (persistent with more than 1: a barrier between "
                  "phases, every block resident)", 1, values=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512)),
        Parameter("warp_threshold", "a vertex of at least this many edges is expanded by a warp",
                  32, values=(8, 16, 32, 64, OFF), names=(OFF,)),
        Parameter("block_threshold", "a vertex of at least this many edges is expanded by whole blocks "
                  "(in chunks of this many edges, across the instance's blocks)", 1024,
                  values=(128, 256, 512, 1024, 4096, OFF), names=(OFF,), minimum=MIN_BLOCK_THRESHOLD),
        Parameter("defer_work", "persistent with more than 1 block: a queued vertex waits for a later "
                  "iteration instead of being expanded while its edges times its distance above the smallest "
                  "of its queue exceed this (R-MAT's edges were scanned about three times a query)", OFF,
                  values=(OFF, *(100 * k for k in DEFER_WEIGHTS)), names=(OFF,), graph_values=defer_values),
        Parameter("tiles", "persistent with more than 1 block: a queue that would give each block fewer than this "
                  "many tiles of a block's threads is cut into smaller tiles (of 32 entries at least), this many a "
                  "block (more: skewed graphs' blocks wait less on one another; fewer: less overhead on even ones)",
                  GRID_TILES, values=(2, 3, 4, 8)),
    )
    concurrent_kernels = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    source = "delta.cu"
    source_parts = (("init", "advance", "finish"), ("solve_grid",), ("solve_block",), ("solve_shared",))
    engine = "autotune.algorithms.delta.engine:DeltaSolver"
    characterization_file = "delta.toml"
    # Up to this many sources at once take one query's shape, its grid shared out over them (`spread_over`),
    # not the batch end's one block each: 58 of the 60 Delta-stepping bests of CK 4, 8 and 16 in
    # tables/h200.json have that shape (blocks 128 / CK; mesh-bcsstk25's CK 16 has one block, random49k-d2's
    # CK 4 eight), at CK 32 one to four blocks. Not fitted; the class-out suite checks it.
    one_query_shape_queries = 16
    header_id = 2
    auto_rank = 0
    bytes_per_vertex = 28  # 7 int arrays (dist, 2 near queues, 2 far piles, 2 stamps): delta_engine.Workspace
    bytes_per_instance = 136  # 32 int fields of state, the source and the target (hub chunks, when used, come on top)
    renumbers_hubs = True  # delta_engine relaxes a skewed graph renumbered by in-degree (gpu.renumber)
    wide_distances = True  # kernels/delta.cu's dist, thresholds and minima are dist_t
    wide_bytes_per_vertex = 4  # dist of 8 bytes
    wide_bytes_per_instance = 256  # the state's 32 rows of 64-bit fields (delta_engine.state_bytes)
    reads_level_width = True  # rules 4 and 5: CK and block size from the level width (delta_rules)

    def compiled_functions(self) -> dict[str, tuple[str, ...]]:
        """`advance` launches as the host loop's advance or a persistent solve; `split` as finish."""
        return {"advance": ("advance", "solve_block", "solve_grid", "solve_shared"), "split": ("finish",)}

    def canonical(self, config: LaunchConfig) -> LaunchConfig:
        """A persistent or shared solve is one kernel launched as `advance`: `split` is advance's
        launch; a shared solve has one block per instance; only a grid (persistent, more than one
        block) defers vertices (`defer_work`; off where a configuration of before it lacks it) and
        sets `tiles` (`GRID_TILES` elsewhere and where a configuration of before it lacks it)."""
        if config.param("defer_work") is None:
            config = config.replace(defer_work=OFF)
        if config.param("tiles") is None:
            config = config.replace(tiles=GRID_TILES)
        loop = config.param("loop")
        if loop == SHARED and config.param("blocks") != 1:
            config = config.replace(blocks=1)
        if loop != PERSISTENT or int(config.param("blocks")) == 1:
            if config.param("defer_work") != OFF or config.param("tiles") != GRID_TILES:
                config = config.replace(defer_work=OFF, tiles=GRID_TILES)
        if loop in (PERSISTENT, SHARED) and config.kernel("split") != config.kernel("advance"):
            return config.replace(split=config.kernel("advance"))
        return config

    def bridge_candidates(self, config: LaunchConfig, concurrent_kernels: int) -> list[LaunchConfig]:
        """A neighbour's point with CK set, and, where its CK instances would launch fewer than
        `GRID_BLOCKS` blocks in all, the same point persistent with `GRID_BLOCKS` / CK blocks per
        instance: a few SSSPs at once spread over the GPU, as one query's grid does (rmat17 at
        CK 16: one block per instance, the batch end's shape, leaves 116 of 132 SMs idle).

        Example:
            >>> config = DELTA.default_config().replace(concurrent_kernels=32)
            >>> [(c.concurrent_kernels, c.param("blocks"), c.param("loop"))
            ...  for c in DELTA.bridge_candidates(config, 16)]
            [(16, 1, 'persistent'), (16, 8, 'persistent')]
        """
        plain = config.replace(concurrent_kernels=concurrent_kernels)
        blocks = max(1, GRID_BLOCKS // concurrent_kernels)
        if blocks <= int(config.param("blocks", 1)):
            return [plain]
        loop = HOST if config.param("loop") == HOST else PERSISTENT
        return [plain, plain.replace(blocks=1 << (blocks.bit_length() - 1), loop=loop)]

    def spread_over(self, config: LaunchConfig, concurrent_kernels: int) -> LaunchConfig:
        """One query's grid shared out over `concurrent_kernels` instances, as the sweep bridges it
        (`bridge_candidates`): its blocks divided among them (a power of two, one at least), deferral
        off (one query's alone: `latency_design`); one block per instance (or shared) as it is.

        Example:
            >>> grid = DELTA.default_config().replace(blocks=128, defer_work=2048)
            >>> spread = DELTA.spread_over(grid, 16)
            >>> spread.concurrent_kernels, spread.param("blocks"), spread.param("defer_work")
            (16, 8, 'off')
        """
        spread = config.replace(concurrent_kernels=concurrent_kernels)
        blocks = int(config.param("blocks", 1))
        if config.param("loop") != PERSISTENT or blocks == 1 or concurrent_kernels == 1:
            return spread
        share = max(1, blocks // concurrent_kernels)
        return self.canonical(spread.replace(blocks=1 << (share.bit_length() - 1), defer_work=OFF))

    def latency_design(self, space: Any) -> list[LaunchConfig]:
        """One query, or a few at once (each CK of the space, at most `FEW_QUERIES`): one block
        holding the graph in shared memory where the space has that loop mode (small graphs), the
        grid of `GRID_BLOCKS` blocks shared out over the CK instances, and, for one query, one
        persistent block of the largest size (the shapes that won one query on small graphs,
        power-law graphs and road networks, docs/notes/delta-kernels.md), also per instance at the
        space's largest CK (road-FLA at CK 16: a sweep of CK 16 alone found one block of 992
        threads, Δ 512, at 1.145 ms per SSSP; the table's study of CK 2 to 16, without that shape,
        ended at 2.81 ms, suite `answers` at fc8b739; with it and this order, 1.82 ms at 4615021),
        each with relaxed settlement (INF), the middle of the graph's Delta domain (one block: the
        middle first) and warp bins off, within the space's values; one query's grid also with
        `defer_work` at `DEFER_FIRST` times the graph's largest weight (run Z: the best of rmat17 to
        rmat20 and the random graphs of degree 20 lay at 2 to 8 times; a Bayesian sweep of rmat20
        that had to find it missed it). One query's grid also as twice the blocks of half the size,
        the same threads in two blocks a SM: random4194304-d16's one query 3.63 -> 3.48 ms on the H200
        (docs/notes/scale.md), a shape its latency sweep never drew (the sampler's draws of 256
        blocks came with block sizes that cannot all be resident, refused).
        In that order, from the largest CK down: the first measured has no incumbent to be pruned
        against, one block on a large graph is the slow one (rmat20: 115 ms against the grid's
        2.4 ms, 21 s of a sweep's budget measured whole when it came first), and on a road network
        a study's slice ran out on the small CKs' costly solves before CK 16, its best (road-FLA's
        records at 6224d08: CK 2, 4 and 8 measured in 3.6 s, then the slice ended; at 34ddb48 the
        slice ended after CK 16's grid and one block with INF, pruned: benchmarks/data/h100/
        road-FLA-curve-34ddb48.records.jsonl.gz)."""
        values = dict(space.params)
        deltas = list(values["delta"])
        finite = [d for d in deltas if d != INFINITE]
        block = max(space.uniform_block_sizes)
        middle = finite[len(finite) // 2] if finite else INFINITE
        works = sorted(v for v in values.get("defer_work", ()) if v != OFF)
        deferred = min(works, key=lambda v: abs(math.log2(v / (DEFER_FIRST * works[0])))) if works else None
        design, one_block = [], {1, max(space.concurrent_kernels)}
        for ck in sorted(space.concurrent_kernels, reverse=True):
            grid = max(1, GRID_BLOCKS // ck)
            shapes = [(SHARED, 1, block), (PERSISTENT, 1 << (grid.bit_length() - 1), block)]
            shapes += [(PERSISTENT, 2 * GRID_BLOCKS, block // 2)] if ck == 1 else []
            shapes += [(PERSISTENT, 1, block)] if ck in one_block else []
            for loop, blocks, size in shapes:
                if loop not in values["loop"]:
                    continue
                # one block has little to spend on relaxed settlement's extra work: the middle Δ first
                order = [middle, INFINITE] if blocks == 1 and loop == PERSISTENT else [INFINITE, middle]
                defer = [OFF] + ([deferred] if ck == 1 and blocks > 1 and loop == PERSISTENT and deferred else [])
                for delta, work in itertools.product(dict.fromkeys(order), defer):
                    params = {"loop": loop, "blocks": blocks, "delta": delta, "warp_threshold": OFF, "defer_work": work}
                    params = {k: v for k, v in params.items() if v in values[k]}
                    design.append(self.uniform(size, space.caches[0], ck, 1, params))
        return [c for c in dict.fromkeys(design) if space.contains(c)]

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        from autotune.algorithms.delta.reference import delta_stepping

        return delta_stepping(graph, source, (params or {}).get("delta", INFINITE))

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.delta.rules import predict

        return predict(features, device, characterization or self.characterization, self)

    def with_latency_rules(self, config: LaunchConfig, decisions: Sequence[Any], features: GraphFeatures,
                           level_width: Callable[[], float], latency: Any) -> tuple[LaunchConfig, Sequence[Any]]:
        """One query's grid or block, Delta and bins from the fitted latency rules
        (`autotune.algorithms.delta.latency.LatencyRules.apply`)."""
        return latency.apply(config, decisions, self, features, level_width())

    def with_spread_rules(self, config: LaunchConfig, decisions: Sequence[Any], features: GraphFeatures,
                          latency: Any, queries: int) -> tuple[LaunchConfig, Sequence[Any]]:
        """The shared-out grid's block size and Delta from the fitted spread rules
        (`autotune.algorithms.delta.spread`, `LatencyRules.apply_spread`)."""
        return latency.apply_spread(config, decisions, self, features, queries)

    def with_gpu_constants(self, characterization: Any, latency: Any) -> Any:
        """Rule 5's ladder of block sizes by level width (`delta.rules`) from the one fitted on the
        choice model's GPU (`LatencyRules.batch_ladder`), where it has one."""
        from autotune.algorithms.delta.rules import LADDER

        ladder = getattr(latency, "batch_ladder", None)
        if not ladder:
            return characterization
        kept = {k: v for k, v in dict(characterization.model).items() if not k.startswith(LADDER)}
        return dataclasses.replace(characterization, model={**kept, **{f"{LADDER}{size}": float(start)
                                                                       for size, start in ladder.items()}})

    def header_rules(self, device: DeviceProfile, characterization: Characterization, latency: Any) -> str:
        from autotune.algorithms.delta.header import header_rules

        return header_rules(self, device, characterization, latency, MAX_SHARED_GRAPH_BYTES, DEFER_WORK_BELOW,
                            DEFER_WEIGHTS, MAX_DEFER_WORK)


DELTA = DeltaStepping()
