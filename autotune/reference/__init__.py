"""CPU shortest paths every algorithm shares: scipy's Dijkstra (the oracle for every GPU result),
the solvers' result type, the reference cache and the shortest-path tree checks.

* `oracle`: `reference_distances`, `dijkstra` (scipy).
* `result`: `SolveResult`, `UNREACHABLE`.

An algorithm's own CPU reference lives with it (`autotune.algorithms.<name>.reference`, e.g.
`thesis.reference.crauser`, `delta.reference.delta_stepping`); `Algorithm.solve_cpu` runs it.
"""
from __future__ import annotations

from autotune.reference.oracle import dijkstra, reference_distances
from autotune.reference.result import UNREACHABLE, SolveResult

__all__ = [
    "UNREACHABLE",
    "SolveResult",
    "dijkstra",
    "reference_distances",
]
