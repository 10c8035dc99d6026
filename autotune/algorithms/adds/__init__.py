"""Asynchronous Delta-stepping without barriers (`kernels/adds.cu`, the class of ADDS: Wang,
Fussell, Lin, PPoPP 2021): warps take vertices from a window of Delta-bucket rings and push what
they improve, with no phase and no barrier; Delta adapts on the device within a tuned range.
Tuned: the starting Delta, how far it may adapt, the rings, the blocks per instance, the entries
a warp takes at once, the hub threshold, the block size and L1 state, and CK."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta import DELTA, INFINITE, OFF, delta_values
from autotune.algorithms.parameters import Parameter
from autotune.launch import LaunchConfig, ParamValue

if TYPE_CHECKING:
    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult

INFINITE_SHIFT = 31  # Delta = INF: every distance in bucket 0
MAX_SHIFT = 30


def delta_shift(delta: ParamValue) -> int:
    """The kernel's Delta, 2^shift (Delta is a power of two: the parameter's domain).

    Example:
        >>> delta_shift(1024), delta_shift("inf")
        (10, 31)
    """
    return INFINITE_SHIFT if delta == INFINITE else int(math.log2(int(delta)))


def shift_bounds(delta: ParamValue, adapt: int) -> tuple[int, int]:
    """How far Delta may adapt: `adapt` doublings and halvings of the start (none for INF).

    Example:
        >>> shift_bounds(1024, 2), shift_bounds("inf", 2), shift_bounds(2, 4)
        ((8, 12), (31, 31), (0, 5))
    """
    shift = delta_shift(delta)
    if shift == INFINITE_SHIFT:
        return shift, shift
    return max(0, shift - adapt), min(MAX_SHIFT, shift + adapt)


def ring_size(n_vertices: int) -> int:
    """Entries of each bucket ring: a power of two of at least 4n + 32 (every improvement of a
    vertex queues it; a ring that fills fails the solve).

    Example:
        >>> ring_size(3353), ring_size(1)
        (16384, 1024)
    """
    return 1 << max(10, math.ceil(math.log2(4 * n_vertices + 32)))


class Adds(Algorithm):
    name = "adds"
    summary = "asynchronous Delta-stepping: warps take work from Delta-bucket rings without barriers"
    kernels = ("solve",)
    parameters = (
        Parameter("delta", "starting bucket width (a power of two); inf: one bucket, FIFO order", 1024,
                  names=(INFINITE,), graph_values=delta_values, values=(INFINITE,)),
        Parameter("adapt", "doublings and halvings Delta may take on the device from its start", 2,
                  values=(0, 1, 2, 4), minimum=0),
        Parameter("buckets", "Delta-bucket rings in the window (1 for Delta = inf)", 8, values=(1, 2, 4, 8, 16, 32)),
        Parameter("blocks", "blocks per SSSP instance (no barrier: none has to be resident)", 32,
                  values=(1, 2, 4, 8, 16, 32, 64, 128, 256)),
        Parameter("chunk", "ring entries a warp takes at once", 8, values=(1, 2, 4, 8, 16, 32)),
        Parameter("hub_threshold", "a vertex of at least this many edges is cut into chunks of this "
                  "many, each taken by one warp", 1024, values=(256, 1024, 4096, OFF), names=(OFF,),
                  minimum=32),
    )
    concurrent_kernels = (1, 2, 4, 8, 16, 32, 64)
    source = "adds.cu"
    engine = "autotune.algorithms.adds.engine:AddsSolver"
    characterization_file = "adds.toml"
    header_id = 4
    auto_rank = 2
    # Experimental: on the H100 it is 2.4x to 8.1x slower than near-far Delta-stepping's tuned one
    # query on every graph measured (docs/notes/delta-kernels.md, run O): tuned when named, not by auto.
    in_auto = False
    # dist, expanded and (by default) 8 rings of ~4n entries, 4 bytes each; more rings take more
    # (the engine checks the free memory for the configuration's own)
    bytes_per_vertex = 4 * (2 + 8 * 4)
    bytes_per_instance = 32 * 69 + 4  # the state (69 fields of 32 bytes) and a source
    wide_distances = True  # kernels/adds.cu's dist and expanded are dist_t
    wide_bytes_per_vertex = 8  # dist and expanded of 8 bytes

    def compiled_functions(self) -> dict[str, tuple[str, ...]]:
        return {"solve": ("adds_solve",)}

    def canonical(self, config: LaunchConfig) -> LaunchConfig:
        """Delta = inf is one bucket that never adapts."""
        if config.param("delta") == INFINITE and (config.param("buckets") != 1 or config.param("adapt") != 0):
            return config.replace(buckets=1, adapt=0)
        return config

    def latency_design(self, space: Any) -> list[LaunchConfig]:
        """One query: the whole GPU's worth of blocks and a quarter of it, each with the middle of
        the graph's Delta domain and INF, within the space's values."""
        values = dict(space.params)
        deltas = [d for d in values["delta"] if d != INFINITE]
        block = 256 if 256 in space.uniform_block_sizes else max(space.uniform_block_sizes)
        design = []
        for blocks in (128, 32):
            for delta in dict.fromkeys([deltas[len(deltas) // 2] if deltas else INFINITE, INFINITE]):
                params = {"blocks": blocks, "delta": delta}
                params = {k: v for k, v in params.items() if v in values[k]}
                design.append(self.uniform(block, space.caches[0], 1, 1, params))
        return [c for c in dict.fromkeys(design) if space.contains(c)]

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        """The CPU reference: Delta-stepping with the starting Delta (any order of the asynchronous
        kernel's relaxations gives the same distances)."""
        from dataclasses import replace

        from autotune.algorithms.delta.reference import delta_stepping

        return replace(delta_stepping(graph, source, (params or {}).get("delta", INFINITE)), algorithm=self.name)

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.adds.rules import predict

        return predict(features, device, characterization or self.characterization, self, DELTA.characterization)


ADDS = Adds()
