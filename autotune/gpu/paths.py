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
COMPONENT_LANES = 32  # zero_components: a component of at most this many vertices a warp
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


@dataclass(frozen=True)
class ZeroComponents:
    """The vertices the graph's zero-weight arcs join, by connected set (`kernels/paths.cu`'s step
    2): those of at most `COMPONENT_LANES` vertices as `start` (int32, k + 1), `members` and per
    member `in_masks` (uint32: bit j, a zero-weight arc from the component's j-th member into it);
    the arcs of the larger ones as (u, v) pairs, `big_arcs`."""

    start: np.ndarray
    members: np.ndarray
    in_masks: np.ndarray
    big_arcs: np.ndarray

    @classmethod
    def of(cls, arcs: np.ndarray, n: int, lanes: int = COMPONENT_LANES) -> ZeroComponents:
        """The components of the zero-weight arcs `arcs` ((k, 2), `zero_weight_arcs`) of a graph
        of `n` vertices.

        Example:
            >>> c = ZeroComponents.of(np.array([[0, 1], [1, 0], [2, 3], [3, 4], [4, 5]]), 6, lanes=3)
            >>> c.start.tolist(), c.members.tolist(), c.in_masks.tolist(), c.big_arcs.tolist()
            ([0, 2], [0, 1], [2, 1], [[2, 3], [3, 4], [4, 5]])
        """
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        u, v = (arcs[:, 0], arcs[:, 1]) if len(arcs) else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        _, label = connected_components(coo_matrix((np.ones(len(u)), (u, v)), shape=(n, n)), directed=False)
        joined = np.zeros(n, bool)
        joined[u], joined[v] = True, True
        sizes = np.bincount(label[joined], minlength=label.max() + 1 if n else 0)
        small = joined & (sizes[label] <= lanes)
        members = np.flatnonzero(small)
        members = members[np.argsort(label[members], kind="stable")]
        start = np.concatenate([[0], np.cumsum(np.unique(label[members], return_counts=True)[1])])
        index = np.zeros(n, np.int64)  # a member's place in its component
        index[members] = np.arange(len(members)) - np.repeat(start[:-1], np.diff(start))
        masks = np.zeros(n, np.uint32)
        inside = small[v]
        np.bitwise_or.at(masks, v[inside], (np.uint32(1) << index[u[inside]].astype(np.uint32)))
        return cls(start.astype(np.int32), members.astype(np.int32), masks[members],
                   arcs[~inside].astype(np.int32).reshape(-1, 2))


def transposed(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The graph's in-arcs by head: (offsets, tails, weights), int32.

    Example:
        >>> g = CSRGraph("g", np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([4, 5, 6]))
        >>> [a.tolist() for a in transposed(g)]
        [[0, 0, 1, 3], [0, 0, 1], [4, 5, 6]]
    """
    order = np.argsort(graph.columns, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(graph.columns, minlength=graph.n_vertices))])
    return offsets.astype(np.int32), graph.tails[order].astype(np.int32), graph.weights[order].astype(np.int32)


class PathTrees:
    """Builds shortest-path trees of `solver`'s graph after its solves (module docstring); the GPU
    memory it takes is released with `close` or on leaving a `with` block. `hub_degree`: arcs from
    which a vertex's arcs are taken by blocks in chunks rather than by one warp."""

    def __init__(self, solver: Solver, hub_degree: int = HUB_DEGREE) -> None:
        self.solver = solver
        self.cuda = solver.cuda
        graph = solver.graph
        self.n = graph.n_vertices
        self.width = solver.width
        module = compiled_source(SOURCE, self.width.wide)
        self._clear = module.get_function("clear_parents")
        self._scan = module.get_function("tight_parents")
        self._pull = module.get_function("pull_parents")
        self._closure = module.get_function("zero_closure")
        self._components = module.get_function("zero_components")
        self._chunk_scan = module.get_function("tight_chunks")
        self._graph_arrays: list = []  # what the passes read besides the graph, for the graph's life
        self.hub_degree = hub_degree
        in_degrees = np.bincount(graph.columns, minlength=self.n)
        self.pulls = not len(in_degrees) or int(in_degrees.max()) < hub_degree  # step 1 by in-arcs (paths.cu)
        self._in_arcs = [self._upload(a) for a in transposed(graph)] if self.pulls else None
        chunks = hub_chunks(graph.row_offsets, hub_degree) if not self.pulls else np.zeros((0, 2), np.int32)
        self.chunks = len(chunks)
        self._chunks = self._upload(chunks) if self.chunks else None
        components = ZeroComponents.of(zero_weight_arcs(graph), self.n)
        self.components, self.zero_arcs = len(components.start) - 1, len(components.big_arcs)
        self._small = [self._upload(a) for a in (components.start, components.members, components.in_masks)] \
            if self.components else None
        self._arcs = self._upload(components.big_arcs) if self.zero_arcs else None
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
        self._arcs = self._chunks = self._in_arcs = self._small = None
        self._stream = None  # released in this thread (`Solver._release_handles`)

    def _upload(self, array: np.ndarray):
        allocation = self.cuda.mem_alloc(max(array.nbytes, 4))  # a graph without arcs has empty ones
        self._graph_arrays.append(allocation)
        if array.nbytes:
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
        distance_rows = self.width.itemsize * self.n * ck
        check_memory(rows + (distance_rows if copies_distances else 0), f"shortest-path trees of {ck} instances")
        self._parents = self.cuda.mem_alloc(max(rows, 4))
        self._rows.append(self._parents)
        self._sources = self.cuda.mem_alloc(4 * ck)
        self._rows.append(self._sources)
        if copies_distances:
            self._distances = self.cuda.mem_alloc(max(distance_rows, 8))
            self._rows.append(self._distances)
        self._capacity = ck

    def build(self, sources: Sequence[int], distances: np.ndarray) -> TreeResult:
        """The trees of the solve from `sources` just run, whose `distances` ((CK, n), the solver's
        width) the solve returned: used on the GPU only when the engine keeps no copy there."""
        ck, n = len(sources), self.n
        on_device = self.solver.device_distances()
        self._reserve(ck, on_device is None)
        self.cuda.memcpy_htod(self._sources, np.asarray(sources, dtype=np.int32))
        launches = self._launches(ck, self._distances if on_device is None else on_device)
        stream = self._stream
        with timed_span(self.solver, stream) as span:
            if on_device is None:
                self.cuda.memcpy_htod_async(self._distances, np.ascontiguousarray(distances, dtype=self.width.dtype),
                                             stream)
            for launch in launches:
                launch(stream)
        parents = np.empty((ck, n), dtype=np.int32)
        self.cuda.memcpy_dtoh(parents, self._parents)
        return TreeResult(parents, span.elapsed_ms)

    def _launches(self, ck: int, distances) -> list[PackedLaunch]:
        n = np.int32(self.n)
        g = self.solver.device_graph
        scan_grid = min(SCAN_GRID_LIMIT, -(-self.n // (SCAN_BLOCK // 32)) or 1)
        if self.pulls:
            out = [PackedLaunch(self._pull, (scan_grid, ck), SCAN_BLOCK, "iPPPPP",
                                [(n, *self._in_arcs, distances, self._parents)])]
        else:
            out = [PackedLaunch(self._clear, (init_blocks(self.n), ck), INIT_BLOCK, "iP", [(n, self._parents)]),
                   PackedLaunch(self._scan, (scan_grid, ck), SCAN_BLOCK, "iiPPPPP",
                                [(n, np.int32(self.hub_degree), g.row_offsets, g.columns, g.weights, distances,
                                  self._parents)])]
        if self._chunks is not None:
            out.append(PackedLaunch(self._chunk_scan, (min(CHUNK_GRID_LIMIT, self.chunks), ck), SCAN_BLOCK, "iiiPPPPPP",
                                    [(n, np.int32(self.chunks), np.int32(CHUNK_ARCS), self._chunks, g.row_offsets,
                                      g.columns, g.weights, distances, self._parents)]))
        if self._small is not None:
            grid = min(SCAN_GRID_LIMIT, -(-self.components // (SCAN_BLOCK // 32)))
            out.append(PackedLaunch(self._components, (grid, ck), SCAN_BLOCK, "iiPPPPPP",
                                    [(n, np.int32(self.components), *self._small, self._sources, distances,
                                      self._parents)]))
        if self._arcs is not None:
            out.append(PackedLaunch(self._closure, (1, ck), CLOSURE_BLOCK, "iiPPPP",
                                    [(n, np.int32(self.zero_arcs), self._arcs, self._sources, distances,
                                      self._parents)]))
        return out


__all__ = ["NO_PARENT", "PathTrees", "TreeResult", "hub_chunks", "zero_weight_arcs"]
