"""Shortest-path trees on the GPU (`kernels/paths.cu`): a predecessor per vertex from a solve's
distances, for any algorithm.

`PathTrees(solver).build(sources)` runs after `solver.solve(config, sources)`: on the distances the
solve left in GPU memory (`Solver.device_distances`), or, for an engine that keeps them in another
layout, on the returned distances copied back up (a copy the timing then includes). Its time is
CUDA events around its own launches, so that a caller can report what the tree adds to the solve.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.gpu.compile import compiled_source
from autotune.gpu.engine import INIT_BLOCK, PackedLaunch, Solver, init_blocks, timed_span
from autotune.gpu.memory import check_memory

SOURCE = "paths.cu"
SCAN_BLOCK = 256  # tight_parents: a warp per vertex
SCAN_GRID_LIMIT = 4096  # its blocks per instance (the warps stride over the vertices)
HUB_DEGREE = 1024  # arcs from which a vertex's arcs are cut into chunks (tight_chunks)
CHUNK_ARCS = 1024  # arcs of a chunk; a block of SCAN_BLOCK threads takes one at a time
CHUNK_GRID_LIMIT = 1024  # tight_chunks' blocks per instance
CLOSURE_BLOCK = 1024  # zero_closure: one block per instance
NO_PARENT = -1


@dataclass
class TreeResult:
    """Parents of `len(sources)` instances: int32 (CK, n), NO_PARENT for the source and for
    unreachable vertices; `elapsed_ms` the CUDA-event time of the tree's launches."""

    parents: np.ndarray
    elapsed_ms: float


def hub_chunks(row_offsets: np.ndarray, hub_degree: int = HUB_DEGREE, chunk_arcs: int = CHUNK_ARCS) -> np.ndarray:
    """(vertex, first arc) of every chunk of `chunk_arcs` arcs of the vertices of at least
    `hub_degree` arcs, int32 (k, 2).

    Example:
        >>> hub_chunks(np.array([0, 2, 7, 8]), hub_degree=4, chunk_arcs=3).tolist()
        [[1, 2], [1, 5]]
    """
    degrees = np.diff(row_offsets)
    chunks = [(v, first) for v in np.flatnonzero(degrees >= hub_degree)
              for first in range(int(row_offsets[v]), int(row_offsets[v + 1]), chunk_arcs)]
    return np.array(chunks, dtype=np.int32).reshape(-1, 2)


def zero_weight_arcs(graph: CSRGraph) -> np.ndarray:
    """The (u, v) pairs of the graph's arcs of weight 0, int32 (k, 2), self-loops left out.

    Example:
        >>> g = CSRGraph("g", np.array([0, 2, 3, 3]), np.array([1, 2, 1]), np.array([0, 5, 0]))
        >>> zero_weight_arcs(g).tolist()
        [[0, 1]]
    """
    zero = (graph.weights == 0) & (graph.tails != graph.columns)
    return np.stack([graph.tails[zero], graph.columns[zero]], axis=1).astype(np.int32)


class PathTrees:
    """Builds shortest-path trees of `solver`'s graph after its solves (module docstring); the GPU
    memory it takes is released with `close` or on leaving a `with` block. `hub_degree`: arcs from
    which a vertex's arcs are taken by blocks in chunks rather than by one warp."""

    def __init__(self, solver: Solver, hub_degree: int = HUB_DEGREE) -> None:
        self.solver = solver
        self.cuda = solver.cuda
        graph = solver.graph
        self.n = graph.n_vertices
        module = compiled_source(SOURCE)
        self._clear = module.get_function("clear_parents")
        self._scan = module.get_function("tight_parents")
        self._closure = module.get_function("zero_closure")
        self._chunk_scan = module.get_function("tight_chunks")
        self._graph_arrays: list = []  # the zero-weight arcs and the hubs' chunks, for the graph's life
        arcs = zero_weight_arcs(graph)
        self.hub_degree = hub_degree
        chunks = hub_chunks(graph.row_offsets, hub_degree)
        self.zero_arcs, self.chunks = len(arcs), len(chunks)
        self._arcs = self._upload(arcs) if self.zero_arcs else None
        self._chunks = self._upload(chunks) if self.chunks else None
        self._rows: list = []  # parents, sources and (if needed) distances of up to `_capacity` instances
        self._capacity = 0
        self._parents = self._sources = self._distances = None
        self._stream = self.cuda.Stream()

    def __enter__(self) -> PathTrees:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._free_rows()
        for allocation in self._graph_arrays:
            allocation.free()
        self._graph_arrays.clear()
        self._arcs = self._chunks = None

    def _upload(self, array: np.ndarray):
        allocation = self.cuda.mem_alloc(array.nbytes)
        self._graph_arrays.append(allocation)
        self.cuda.memcpy_htod(allocation, np.ascontiguousarray(array))
        return allocation

    def _free_rows(self) -> None:
        for allocation in self._rows:
            allocation.free()
        self._rows.clear()
        self._capacity = 0
        self._parents = self._sources = self._distances = None

    def _reserve(self, ck: int, copies_distances: bool) -> None:
        if self._capacity >= ck and (self._distances is not None or not copies_distances):
            return
        self._free_rows()
        rows = 4 * self.n * ck
        check_memory(rows * (2 if copies_distances else 1), f"shortest-path trees of {ck} instances")
        self._parents = self.cuda.mem_alloc(max(rows, 4))
        self._rows.append(self._parents)
        self._sources = self.cuda.mem_alloc(4 * ck)
        self._rows.append(self._sources)
        if copies_distances:
            self._distances = self.cuda.mem_alloc(max(rows, 4))
            self._rows.append(self._distances)
        self._capacity = ck

    def build(self, sources: Sequence[int], distances: np.ndarray) -> TreeResult:
        """The trees of the solve from `sources` just run, whose `distances` ((CK, n) int32) the
        solve returned: used on the GPU only when the engine keeps no copy there."""
        ck, n = len(sources), self.n
        on_device = self.solver.device_distances()
        self._reserve(ck, on_device is None)
        self.cuda.memcpy_htod(self._sources, np.asarray(sources, dtype=np.int32))
        launches = self._launches(ck, self._distances if on_device is None else on_device)
        stream = self._stream
        with timed_span(self.solver, stream) as span:
            if on_device is None:
                self.cuda.memcpy_htod_async(self._distances, np.ascontiguousarray(distances, dtype=np.int32), stream)
            for launch in launches:
                launch(stream)
        parents = np.empty((ck, n), dtype=np.int32)
        self.cuda.memcpy_dtoh(parents, self._parents)
        return TreeResult(parents, span.elapsed_ms)

    def _launches(self, ck: int, distances) -> list[PackedLaunch]:
        n = np.int32(self.n)
        g = self.solver.device_graph
        scan_grid = min(SCAN_GRID_LIMIT, -(-self.n // (SCAN_BLOCK // 32)) or 1)
        out = [PackedLaunch(self._clear, (init_blocks(self.n), ck), INIT_BLOCK, "iP", [(n, self._parents)]),
               PackedLaunch(self._scan, (scan_grid, ck), SCAN_BLOCK, "iiPPPPP",
                            [(n, np.int32(self.hub_degree), g.row_offsets, g.columns, g.weights, distances,
                              self._parents)])]
        if self._chunks is not None:
            out.append(PackedLaunch(self._chunk_scan, (min(CHUNK_GRID_LIMIT, self.chunks), ck), SCAN_BLOCK, "iiiPPPPPP",
                                    [(n, np.int32(self.chunks), np.int32(CHUNK_ARCS), self._chunks, g.row_offsets,
                                      g.columns, g.weights, distances, self._parents)]))
        if self._arcs is not None:
            out.append(PackedLaunch(self._closure, (1, ck), CLOSURE_BLOCK, "iiPPPP",
                                    [(n, np.int32(self.zero_arcs), self._arcs, self._sources, distances,
                                      self._parents)]))
        return out


__all__ = ["NO_PARENT", "PathTrees", "TreeResult", "hub_chunks", "zero_weight_arcs"]
