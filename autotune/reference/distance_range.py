"""Whether a graph's distances fit the GPU kernels' 32-bit integers: decided before the first solve.

The kernels keep distances as int32, with 2**31 - 1 (`INF`) for unreachable, and relax an arc as
`dist[u] + w` in 32 bits. A distance of `INF` or more, or a relaxation from a reached vertex past
it, would wrap and every configuration would be recorded wrong with nothing said why; the CPU
solvers compute in int64 and are right. So the reference distances of the sources a command
verifies are checked as they are computed (`check_reference`), and a command that solves sources
it does not verify asks `may_pass` first: the longest a shortest path can be is (n - 1) x the
largest weight.

Example:
    >>> import numpy as np
    >>> from autotune.graphs import build_csr
    >>> chain = build_csr("chain", 3, np.array([0, 1]), np.array([1, 2]), np.array([2**31 - 1, 2**31 - 1]))
    >>> check_reference(chain, 0, np.array([0, 2**31 - 1, 2**32 - 2]))
    Traceback (most recent call last):
    autotune.errors.InputError: chain: the shortest distance from source 0 to vertex 1 is 2147483647, and the GPU kernels hold distances in 32 bits (at most 2147483646, with room for one more arc of the largest weight, 2147483647); scale the weights down
"""
from __future__ import annotations

import numpy as np

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph

INT32_MAX = 2**31 - 1
GPU_DISTANCE_MAX = INT32_MAX - 1  # INT32_MAX itself is INF, unreachable


def max_weight(graph: CSRGraph) -> int:
    return int(graph.weights.max()) if graph.n_edges else 0


def check_reference(graph: CSRGraph, source: int, distances: np.ndarray) -> None:
    """Refuse a graph on which the distances from `source` (int64, -1 unreachable) do not fit the
    kernels: a distance past `GPU_DISTANCE_MAX`, or one from which an arc of the graph's largest
    weight would pass `INT32_MAX`.

    Raises:
        InputError: naming the graph, the source, the vertex and the distance.
    """
    reached = distances >= 0
    if not reached.any():
        return
    weight = max_weight(graph)
    limit = min(GPU_DISTANCE_MAX, INT32_MAX - weight)
    over = np.flatnonzero(reached & (distances > limit))
    if len(over):
        vertex = int(over[0])
        raise InputError(
            f"{graph.name}: the shortest distance from source {source} to vertex {vertex} is {int(distances[vertex])}, "
            f"and the GPU kernels hold distances in 32 bits (at most {GPU_DISTANCE_MAX}, with room for one more arc "
            f"of the largest weight, {weight}); scale the weights down")


def may_pass(graph: CSRGraph) -> int | None:
    """The bound (n - 1) x the largest weight where it passes what the kernels hold (then a source
    whose distances were not computed on the CPU could overflow); None where every source is safe."""
    bound = max(graph.n_vertices - 1, 0) * max_weight(graph)
    return bound if bound + max_weight(graph) > INT32_MAX else None
