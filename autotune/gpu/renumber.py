"""A graph in a `VertexOrder`'s ids on the GPU (`kernels/renumber.cu`), built there from the graph an
engine already holds (`GraphOnDevice`), and its solves' distances put back in the graph's ids: an
engine relaxes the renumbered arcs from renamed sources and hands out rows in the graph's ids, so
that what reads them (the timer's check, reductions, shortest-path trees over the graph's own
arrays) never sees the renumbering (`autotune.graphs.order` says why and where)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from autotune.gpu.compile import compiled_source
from autotune.gpu.device import driver
from autotune.gpu.engine import INIT_BLOCK, PackedLaunch, init_blocks
from autotune.gpu.memory import GraphOnDevice
from autotune.graphs.order import VertexOrder

SOURCE = "renumber.cu"
ROWS_BLOCK = 256  # renumber_arcs: a warp a row, 8 rows a block
SHORT_ROW = 64  # rows of at most this many arcs are sorted a thread each, longer ones a block a run
SORT_THREADS, SORT_RUN = 256, 2048  # renumber.cu's sort_long_runs


def long_runs(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs `sort_long_runs` sorts: each row of more than `SHORT_ROW` arcs cut into runs of at
    most `SORT_RUN`, as (first arc, arcs) int32 arrays.

    Example:
        >>> long_runs(np.array([0, 3, 103, 5103]))
        (array([   3,  103, 2151, 4199], dtype=int32), array([ 100, 2048, 2048,  904], dtype=int32))
    """
    degrees = np.diff(offsets)
    rows = np.flatnonzero(degrees > SHORT_ROW)
    counts = -(-degrees[rows] // SORT_RUN)
    first_run = np.repeat(np.cumsum(counts) - counts, counts)
    runs = np.repeat(offsets[rows], counts) + (np.arange(int(counts.sum())) - first_run) * SORT_RUN
    return runs.astype(np.int32), np.minimum(np.repeat(offsets[rows + 1], counts) - runs, SORT_RUN).astype(np.int32)


class RenumberedGraph:
    """The CSR arrays of `device_graph`'s graph in `order`'s ids (`row_offsets`, `columns`,
    `weights`, as `GraphOnDevice`'s; each row's arcs by head, a row of more than `SORT_RUN` in runs
    of that many: rmat20's one query 0.688 -> 0.647 ms against rows left in the graph's order, by a
    probe on host-built graphs, docs/notes/delta-kernels.md run AL) and the renaming `new_of`,
    allocated with `device_graph` (freed with it); `wide`: the distances' 64-bit build of the
    kernels that put rows back."""

    def __init__(self, device_graph: GraphOnDevice, order: VertexOrder, wide: bool = False) -> None:
        cuda = driver()
        graph = device_graph.graph
        n, m = graph.n_vertices, graph.n_edges
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(graph.out_degrees[order.old_of], out=offsets[1:])
        self.order = order
        self.row_offsets = device_graph.upload(cuda, offsets)
        self.new_of = device_graph.upload(cuda, order.new_of)
        old_of = device_graph.upload(cuda, order.old_of)
        self.columns = device_graph.alloc(cuda, 4 * max(m, 1))
        self.weights = device_graph.alloc(cuda, 4 * max(m, 1))
        module = compiled_source(SOURCE, wide)
        module.get_function("renumber_arcs")(
            np.int32(n), device_graph.row_offsets, device_graph.columns, device_graph.weights, old_of, self.new_of,
            self.row_offsets, self.columns, self.weights, grid=(max(1, -(-n // (ROWS_BLOCK // 32))), 1),
            block=(ROWS_BLOCK, 1, 1))
        module.get_function("sort_short_rows")(np.int32(n), self.row_offsets, self.columns, self.weights,
                                               np.int32(SHORT_ROW), grid=(init_blocks(n), 1), block=(INIT_BLOCK, 1, 1))
        runs, lengths = long_runs(offsets)
        if len(runs):
            runs_at, lengths_at = (device_graph.upload(cuda, a) for a in (runs, lengths))
            module.get_function("sort_long_runs")(runs_at, lengths_at, self.columns, self.weights,
                                                  grid=(len(runs), 1), block=(SORT_THREADS, 1, 1))
        cuda.Context.synchronize()
        self._rows = module.get_function("rows_in_graph_order")
        self.n = n

    def renamed(self, vertices: Sequence[int]) -> list[int]:
        """`vertices` in the renumbered ids (-1, none, stays -1)."""
        return [int(self.order.new_of[v]) if v >= 0 else -1 for v in vertices]

    def rows_in_graph_order(self, ck: int, dist, out) -> PackedLaunch:
        """A launch that writes `ck` rows of distances by the renumbered ids (`dist`) into `out` by
        the graph's ids."""
        return PackedLaunch(self._rows, (init_blocks(self.n), ck), INIT_BLOCK, "iPPP",
                            [(np.int32(self.n), self.new_of, dist, out)])


__all__ = ["RenumberedGraph", "SOURCE"]
