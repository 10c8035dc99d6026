"""GPU Crauser and GPU Martín (Ortega-Arranz's thesis, chapter 3): three kernels per iteration
(relax, minimum, update) over every vertex, one source file (`kernels/sssp.cu`) compiled with
`-DCRAUSER=1` or `-DCRAUSER=0`. Their model is the thesis's (chapter 4, `autotune.algorithms.thesis.rules`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from autotune.algorithms.base import Algorithm
from autotune.launch import ParamValue

if TYPE_CHECKING:
    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult


class ThesisAlgorithm(Algorithm):
    """Crauser (`crauser=True`) or Martín: the thesis's kernels, tuned by block size and L1 state
    per kernel, lanes per vertex for relax, and CK."""

    kernels = ("relax", "minimum", "update")
    lanes_kernels = frozenset({"relax"})
    source = "sssp.cu"
    engine = "autotune.algorithms.thesis.engine:ThesisSolver"
    characterization_file = "sssp.toml"
    thesis = True
    bytes_per_vertex = 6  # dist (4), unsettled and frontier flags (1 each): thesis_engine.Workspace
    bytes_per_instance = 16  # two thresholds, an iteration count, a source
    wide_distances = True  # kernels/sssp.cu's dist and thresholds are dist_t
    wide_bytes_per_vertex = 4  # dist of 8 bytes
    wide_bytes_per_instance = 8  # thresholds of 8 bytes

    def __init__(self, name: str, crauser: bool, summary: str, auto_rank: int, header_id: int) -> None:
        self.name = name
        self.header_id = header_id
        self.crauser = crauser
        self.summary = summary
        self.auto_rank = auto_rank

    def compile_options(self, no_l1: bool) -> list[str]:
        return [f"-DCRAUSER={int(self.crauser)}", *super().compile_options(no_l1)]

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        from autotune.algorithms.thesis.reference import crauser, martin

        return (crauser if self.crauser else martin)(graph, source)

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.thesis.rules import predict

        return predict(features, device, characterization or self.characterization, algorithm=self.name,
                       kernels=self.kernels)


CRAUSER = ThesisAlgorithm(
    "crauser", True,
    "GPU Crauser (thesis Alg. 5-10): settle every vertex within the smallest dist + out-weight", 1, 0)
MARTIN = ThesisAlgorithm(
    "martin", False,
    "GPU Martín (thesis 3.1.1): settle the vertices at the smallest tentative distance", 2, 1)
