"""The CSR graph type every other module works on."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from autotune.errors import InputError


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
    def tails(self) -> np.ndarray:
        """The tail of every arc, in the arcs' order (int32, length m)."""
        return np.repeat(np.arange(self.n_vertices, dtype=np.int32), np.diff(self.row_offsets))

    @cached_property
    def sha256(self) -> str:
        """Digest of the arrays (not the name): equal graphs have equal digests on any machine."""
        digest = hashlib.sha256()
        for array in (self.row_offsets, self.columns, self.weights):
            digest.update(memoryview(np.ascontiguousarray(array, dtype="<i4")).cast("B"))  # no copy
        return digest.hexdigest()

    def validate(self, where: str) -> None:
        """Check the invariants the docstring states; `where` names the graph's origin in errors.

        Raises:
            InputError: naming `where` and the first broken invariant.
        """
        arrays = {"row_offsets": self.row_offsets, "columns": self.columns, "weights": self.weights}
        for label, array in arrays.items():
            if not isinstance(array, np.ndarray) or array.ndim != 1 or array.dtype != np.int32:
                found = getattr(array, "dtype", type(array).__name__)
                raise InputError(f"{where}: {label} must be a 1-d int32 array, found {found}")
        offsets, n, m = self.row_offsets, len(self.row_offsets) - 1, len(self.columns)
        if n < 0 or offsets[0] != 0 or offsets[-1] != m or np.any(np.diff(offsets) < 0):
            raise InputError(f"{where}: row_offsets must rise from 0 to the edge count ({m})")
        if len(self.weights) != m:
            raise InputError(f"{where}: {len(self.weights)} weights for {m} edges")
        if m and (self.columns.min() < 0 or self.columns.max() >= n):
            raise InputError(f"{where}: a column id is outside 0..{n - 1}")
        if m and self.weights.min() < 0:
            raise InputError(f"{where}: negative weight {self.weights.min()}; weights must be >= 0")

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
