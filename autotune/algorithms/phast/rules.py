"""The model's rules for PHAST (`kernels/phast.cu`): every tuned value from the device profile, the
characterization's [model] constants (`algorithms/phast/phast.toml`, not fitted: read off PHAST's
sweeps on an H100) and the graph's size, each with the rule that chose it. Like the other
algorithms' rules they aim at the batch end; `one_query` gives the one-query shape (the first
trials of a search of one query, `Phast.latency_design`).

Batch end:
1. CK: the largest of the algorithm's (a block per instance).
2. Distances in shared memory where the graph's n ints fit a block's (as one query's rule 1), else in
   global memory with GPU-wide levels from the domain's value nearest n / `batch_levels_divisor`
   vertices (on a log scale).
3. Block sizes: for the sweep, of the sizes that keep the most threads resident on an SM (the occupancy
   calculator, with the sweep's registers and its shared memory, the distances' included), the nearest
   to `batch_block_size_shared` or `batch_block_size` on a log scale (a graph whose distances leave one
   block an SM wants one large block, not `batch_block_size_shared`'s 288 threads alone: rgg_n_2_15_s0,
   +48% in suite `classout` at 1e3cffa); `pull_block_size` for the GPU-wide levels.

One query:
1. Distances: in the block's shared memory where the graph's n ints fit what one block may take
   (`max_shared_memory_per_block`, less the kernel's own `Phast.staged_bytes`) and n is at most
   `one_query_shared_vertices` (a larger graph's wide bottom levels go faster over the whole GPU
   than on one block), else in global memory.
   With shared distances, the downward arcs there too (`shared_arcs` down) where they fit beside
   them, priced at `down_arcs_per_arc` arcs of the hierarchy per arc of the graph.
2. GPU-wide levels: off with shared distances, else `gpu_levels` (a level of more vertices, and
   every level below it, is swept by the whole GPU).
3. Block sizes: `block_size` for the sweep, `pull_block_size` for the GPU-wide levels. CK 1, L1
   default.
4. Up to `one_query_shape_queries` sources at once take this shape too, CK raised to theirs (a few
   instances leave most SMs idle on the narrow levels, as one does: `Phast.one_query_shape_up_to`).

Both ends: the upward phase by search (`upward`), small levels a warp a vertex (`warp_levels` on):
the faster on every graph of run Y's A/B (docs/notes/phast.md).

Example::

    >>> from autotune.model import GraphFeatures, load_device
    >>> from autotune.algorithms import get
    >>> roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3,
    ...                       min_positive_weight=10, max_weight=2467)
    >>> batch = get("phast").predict(roads, load_device("hopper-h100")).config
    >>> batch.concurrent_kernels, batch.param("gpu_levels"), batch.kernel("sweep").block_size
    (1024, 4096, 384)
    >>> one = one_query(roads, load_device("hopper-h100"), get("phast").characterization, get("phast")).config
    >>> one.concurrent_kernels, one.param("distances"), one.param("gpu_levels"), one.kernel("sweep").block_size
    (1, 'global', 1024, 1024)
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.characterization import Characterization
from autotune.algorithms.delta.rules import DeltaPrediction, constants_of
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphClasses, GraphFeatures, classify
from autotune.model.occupancy import max_occupancy_block_sizes
from autotune.model.decision import Decision

DEFAULTS = {"block_size": 1024, "pull_block_size": 256, "gpu_levels": 1024, "batch_block_size": 384,
            "batch_block_size_shared": 288, "batch_levels_divisor": 16, "down_arcs_per_arc": 1.3,
            "one_query_shared_vertices": 24576}
BOTH_ENDS = {"upward": "search", "warp_levels": "on"}

__all__ = ["DEFAULTS", "constants_of", "levels_domain", "one_query", "predict"]


def predict(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
            algorithm: Any) -> DeltaPrediction:
    """PHAST's configuration of the batch end (the module's rules)."""
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    constants = constants_of(characterization, DEFAULTS)
    graph = classes.features
    ck = max(algorithm.concurrent_kernels)
    need, room = 4 * graph.n_vertices, device.max_shared_memory_per_block - algorithm.staged_bytes
    shared = need <= room
    pull = int(constants["pull_block_size"])
    sweep, why_sweep = batch_sweep_block(characterization, device, 4 * graph.n_vertices if shared else 0,
                                         "batch_block_size_shared" if shared else "batch_block_size", constants)
    decisions = (Decision("concurrent_kernels", ck, "phast batch 1", f"the largest of {algorithm.name}'s CK"),
                 Decision("distances", "shared" if shared else "global", "phast batch 2",
                          f"{graph.n_vertices} distances take {need} bytes; a block may have {room} beside its own"))
    levels: Any = "off"
    if not shared:
        divisor = float(constants["batch_levels_divisor"])
        domain = levels_domain(algorithm)
        levels = min(domain, key=lambda v: abs(math.log2(v) - math.log2(max(graph.n_vertices / divisor, 1.0))))
        decisions += (Decision("gpu_levels", levels, "phast batch 2", f"the nearest of {domain} to "
                               f"{graph.n_vertices} / batch_levels_divisor {divisor:g}"),)
    else:
        decisions += (Decision("gpu_levels", levels, "phast batch 2", "every level on the block (shared distances)"),)
    decisions += (Decision("sweep.block_size", sweep, "phast batch 3", why_sweep),
                  Decision("pull.block_size", pull, "phast batch 3", f"pull_block_size {pull}"))
    kernels = {"sweep": KernelLaunch(sweep, CacheState.DEFAULT), "pull": KernelLaunch(pull, CacheState.DEFAULT)}
    decisions += both_ends()
    params = {"distances": "shared" if shared else "global", "gpu_levels": levels, "shared_arcs": "none",
              **BOTH_ENDS}
    config = algorithm.canonical(LaunchConfig(ck, kernels, algorithm.name, params))
    return DeltaPrediction(config, classes, device, decisions, constants, model="phast-rules")


def levels_domain(algorithm: Any) -> list[int]:
    """The finite values of `gpu_levels` (batch rule 2 takes the nearest to n / `batch_levels_divisor`)."""
    return [v for v in algorithm.parameter("gpu_levels").values if v != "off"]


def batch_sweep_block(characterization: Characterization, device: DeviceProfile, distance_bytes: int,
                      constant: str, constants: dict[str, float]) -> tuple[int, str]:
    """The batch end's sweep block size (rule 3) and why: of the sizes of highest occupancy of the
    sweep's function (`phast_shared` with `distance_bytes` of distances beside its own shared memory,
    else `phast_global`), the nearest to the constant named `constant` on a log scale."""
    function = "phast_shared" if distance_bytes else "phast_global"
    own = characterization.kernel("sweep").resources_of(function)
    resources = replace(own, static_shared_memory_bytes=own.static_shared_memory_bytes + distance_bytes)
    wanted = float(constants[constant])
    sizes = max_occupancy_block_sizes(device, resources)
    if not sizes:
        return int(wanted), f"{constant} {wanted:g} ({function} launches at no size)"
    size = min(sizes, key=lambda s: (abs(math.log2(s / wanted)), s))
    return size, (f"of the sizes of highest occupancy of {function} ({resources.registers_per_thread} registers, "
                  f"{resources.static_shared_memory_bytes} bytes of shared memory: {_ranges(sizes)}), the nearest to "
                  f"{constant} {wanted:g}")


def _ranges(sizes: tuple[int, ...]) -> str:
    """`sizes` in a few words: all of them where few, else the smallest and largest."""
    return ", ".join(map(str, sizes)) if len(sizes) <= 6 else f"{len(sizes)} from {sizes[0]} to {sizes[-1]}"


def both_ends() -> tuple[Decision, ...]:
    """The decisions that are the same at one query and at the batch end."""
    return (Decision("upward", BOTH_ENDS["upward"], "phast both", "rounds of a search over the vertices reached"),
            Decision("warp_levels", BOTH_ENDS["warp_levels"], "phast both", "a level of a vertex a warp or fewer: "
                     "a warp a vertex"))


def one_query(features: GraphFeatures | GraphClasses, device: DeviceProfile, characterization: Characterization,
              algorithm: Any) -> DeltaPrediction:
    """PHAST's configuration of one query (the module's one-query rules)."""
    classes = features if isinstance(features, GraphClasses) else classify(features, device)
    graph = classes.features
    constants = constants_of(characterization, DEFAULTS)
    need, room = 4 * graph.n_vertices, device.max_shared_memory_per_block - algorithm.staged_bytes
    most = int(constants["one_query_shared_vertices"])
    shared = need <= room and graph.n_vertices <= most
    distances = "shared" if shared else "global"
    decisions = [Decision("distances", distances, "phast 1", f"{graph.n_vertices} distances take {need} bytes; "
                          f"a block may have {room} beside its own; one_query_shared_vertices {most}")]
    arcs = int(constants["down_arcs_per_arc"] * graph.n_edges)
    staged = need + 4 * (graph.n_vertices + 1) + 8 * arcs
    shared_arcs = "down" if shared and staged <= room else "none"
    decisions.append(Decision("shared_arcs", shared_arcs, "phast 1", f"the distances and about {arcs} downward arcs "
                              f"({constants['down_arcs_per_arc']} an arc) take {staged} bytes of {room}")
                     if shared else Decision("shared_arcs", shared_arcs, "phast 1", "distances in global memory"))
    gpu_levels: Any = "off" if shared else int(constants["gpu_levels"])
    decisions.append(Decision("gpu_levels", gpu_levels, "phast 2", "every level on the block (shared distances)"
                              if shared else f"gpu_levels {gpu_levels}"))
    sweep, pull = int(constants["block_size"]), int(constants["pull_block_size"])
    decisions.append(Decision("sweep.block_size", sweep, "phast 3", f"block_size {sweep}"))
    decisions.append(Decision("pull.block_size", pull, "phast 3", f"pull_block_size {pull}"))
    kernels = {"sweep": KernelLaunch(sweep, CacheState.DEFAULT), "pull": KernelLaunch(pull, CacheState.DEFAULT)}
    decisions += both_ends()
    params = {"distances": distances, "gpu_levels": gpu_levels, "shared_arcs": shared_arcs, **BOTH_ENDS}
    config = algorithm.canonical(LaunchConfig(1, kernels, algorithm.name, params))
    return DeltaPrediction(config, classes, device, tuple(decisions), constants, model="phast-rules")
