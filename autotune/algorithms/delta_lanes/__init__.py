"""Near-far Delta-stepping with a batch's sources interleaved in warp lanes (`kernels/lanes.cu`):
groups of 32 instances share one traversal, each edge relaxed by a warp for the 32 at once on
coalesced 128-byte lines of distances. Batches only: a group of one instance wastes 31 lanes.
Tuned: Delta (the group's shared bucket width, from the smallest positive weight to INF), the
blocks per SM the groups' advance fills the GPU with, each kernel's block size and L1 state,
and CK."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta import DELTA, INFINITE, delta_values
from autotune.algorithms.parameters import Parameter
from autotune.launch import ParamValue

if TYPE_CHECKING:
    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult

LANES = 32  # instances per group: a warp's lanes


def groups_of(concurrent_kernels: int) -> int:
    """Groups of `LANES` instances a batch of `concurrent_kernels` takes (the last one may be
    partly empty).

    Example:
        >>> groups_of(1), groups_of(32), groups_of(33), groups_of(1024)
        (1, 1, 2, 32)
    """
    return -(-concurrent_kernels // LANES)


def blocks_per_group(blocks_per_sm: int, sm_count: int, groups: int) -> int:
    """The advance's blocks per group: `blocks_per_sm` blocks on every SM, shared by the groups.

    Example:
        >>> blocks_per_group(2, 132, 32), blocks_per_group(2, 132, 1)
        (9, 264)
    """
    return max(1, -(-blocks_per_sm * sm_count // groups))


class DeltaLanes(Algorithm):
    name = "delta_lanes"
    summary = "near-far Delta-stepping of 32 sources at once, interleaved in a warp's lanes (batches)"
    kernels = ("advance", "split")
    parameters = (
        Parameter("delta", "bucket width shared by a group's 32 instances; inf: relaxed settlement",
                  INFINITE, names=(INFINITE,), graph_values=delta_values, values=(INFINITE,)),
        Parameter("blocks_per_sm", "blocks of the advance per SM, shared by the groups (they take "
                  "tiles of the queues from a counter)", 2, values=(1, 2, 4, 8)),
    )
    concurrent_kernels = (32, 64, 128, 256, 512, 1024)
    source = "lanes.cu"
    engine = "autotune.algorithms.delta_lanes.engine:LanesSolver"
    characterization_file = "lanes.toml"
    header_id = 3
    auto_rank = 0
    # Per instance: its distances (4 bytes a vertex) and a 32nd of the group's four masks and four
    # queues (32 bytes a vertex); a 32nd of the group's 17 state fields, and its source.
    bytes_per_vertex = 5
    bytes_per_instance = 8
    wide_distances = True  # kernels/lanes.cu's dist, threshold and far minima are dist_t
    wide_bytes_per_vertex = 4  # distances of 8 bytes
    wide_bytes_per_instance = 1  # a 32nd of the group's three 64-bit state fields

    def compiled_functions(self) -> dict[str, tuple[str, ...]]:
        return {"advance": ("lanes_advance",), "split": ("lanes_finish",)}

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        """The CPU reference of one instance: Delta-stepping's, under this algorithm's name (a
        group shares its threshold schedule, which changes the work, not the distances)."""
        from dataclasses import replace

        from autotune.algorithms.delta.reference import delta_stepping

        return replace(delta_stepping(graph, source, (params or {}).get("delta", INFINITE)), algorithm=self.name)

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.delta_lanes.rules import predict

        return predict(features, device, characterization or self.characterization, self, DELTA.characterization)

    def header_rules(self, device: DeviceProfile, characterization: Characterization, latency: Any) -> str:
        from autotune.algorithms.delta_lanes.header import header_rules

        return header_rules(self, device, characterization, DELTA.characterization)


DELTA_LANES = DeltaLanes()
