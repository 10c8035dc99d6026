"""Which graphs contract in rounds, and on how many threads.

The compiled contraction contracts one vertex at a time, least important first (`contract.cpp`), or in
rounds of independent vertices on several threads (`rounds.hpp`): each round every uncontracted vertex
whose key is less than each neighbour's, their shortcuts found at once by witness searches that avoid
all of the round's vertices. The same hierarchy for any number of threads, but not the order's: on
this project's 2-core VM grid22 contracted in 137 s against 228 in order, with more levels (grid20 141
against 127, usa-roads 89 against 79) and 2% more arcs, so a graph that contracts within seconds keeps
the order's hierarchy (docs/notes/phast.md). A larger one contracts in rounds whatever its cores.
"""
from __future__ import annotations

from autotune.graphs.csr import CSRGraph
from autotune.resources import usable_cores

ROUNDS_FROM = 1 << 21  # vertices: a graph this large contracts in rounds, on one core too (the same hierarchy)
# At most this many threads: each keeps its own witness search's arrays, 16 bytes a vertex (grid24 on 16
# threads: 4.3 GB of them; its build peaked at 16 GB resident on the H200's host); measured up to 16 cores.
MAX_THREADS = 16


def rounds_for(graph: CSRGraph, cores: int | None = None) -> int:
    """The threads a graph of at least `ROUNDS_FROM` vertices contracts on in rounds: the `cores`
    this process may use (default `usable_cores()`), at most `MAX_THREADS`, one at the least; 0 (in
    order) for a smaller graph. On one core too, so that a graph's hierarchy does not depend on the
    machine: on this VM's one core `graph hierarchy grid24` built in 425.2 s against 702.3 in order
    (249 levels against 251, 2% more arcs; docs/notes/phast.md)."""
    cores = usable_cores() if cores is None else cores
    return max(1, min(cores, MAX_THREADS)) if graph.n_vertices >= ROUNDS_FROM else 0
