"""CPU shortest paths: scipy's Dijkstra (the oracle for every GPU result) and numpy versions of
the GPU algorithms, which report their statistics.

* `oracle`: `reference_distances`, `dijkstra` (scipy).
* `frontier`: `crauser`, `martin` (thesis Alg. 5-10).
* `delta`: `delta_stepping` (near-far Delta-stepping).
* `result`: `SolveResult`, `UNREACHABLE`.

Which CPU solver belongs to which algorithm is the algorithm's (`autotune.algorithms`).
"""
from __future__ import annotations

from autotune.reference.delta import INFINITE, delta_stepping
from autotune.reference.frontier import crauser, martin, out_crauser_values
from autotune.reference.oracle import dijkstra, reference_distances
from autotune.reference.result import UNREACHABLE, SolveResult

__all__ = [
    "INFINITE",
    "UNREACHABLE",
    "SolveResult",
    "crauser",
    "delta_stepping",
    "dijkstra",
    "martin",
    "out_crauser_values",
    "reference_distances",
]
