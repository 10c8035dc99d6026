"""The CSR graph type every other module works on."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True, eq=False)
class CSRGraph:
    """A directed graph in compressed sparse row form, with non-negative integer weights.

    The out-edges of vertex `v` are `columns[row_offsets[v]:row_offsets[v + 1]]`, with weights at
    the same positions of `weights`. Arrays are int32 (the GPU kernels' types).

    Args:
        name: the spec or file the graph came from.
        row_offsets: int32, length n + 1, non-decreasing, from 0 to m.
        columns: int32, length m, target vertex of each arc.
        weights: int32, length m, non-negative weight of each arc.
    """

    name: str
    row_offsets: np.ndarray
    columns: np.ndarray
    weights: np.ndarray

    @property
    def n_vertices(self) -> int:
        return len(self.row_offsets) - 1

    @property
    def n_edges(self) -> int:
        return len(self.columns)

    @cached_property
    def out_degrees(self) -> np.ndarray:
        return np.diff(self.row_offsets)

    @property
    def mean_degree(self) -> float:
        """d(G) of the thesis: arcs per vertex."""
        return self.n_edges / self.n_vertices if self.n_vertices else 0.0

    @property
    def max_degree(self) -> int:
        return int(self.out_degrees.max()) if self.n_vertices else 0

    @property
    def n_sinks(self) -> int:
        """Vertices with no out-edges."""
        return int(np.count_nonzero(self.out_degrees == 0))

    @cached_property
    def sha256(self) -> str:
        """Digest of the arrays (not the name): equal graphs have equal digests on any machine."""
        digest = hashlib.sha256()
        for array in (self.row_offsets, self.columns, self.weights):
            digest.update(np.ascontiguousarray(array, dtype="<i4").tobytes())
        return digest.hexdigest()

    def info(self) -> dict[str, object]:
        """The summary `autotune graph info --json` prints."""
        return {
            "name": self.name,
            "vertices": self.n_vertices,
            "edges": self.n_edges,
            "mean_degree": self.mean_degree,
            "max_degree": self.max_degree,
            "sinks": self.n_sinks,
            "sha256": self.sha256,
        }
