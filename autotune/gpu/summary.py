"""Per-source reductions of a solve's distances on the GPU (`kernels/summary.cu`): each instance's
row reduced to the vertices it reaches, its largest finite distance and their sum, without copying
the rows to the host (all-pairs of a 87k-vertex road network is 61 GB of rows; its summaries are 2 MB).
`autotune.many.reductions` turns them into reached, eccentricity and closeness.
"""
from __future__ import annotations

import numpy as np

from autotune.gpu.compile import compiled_source
from autotune.gpu.engine import INIT_BLOCK, Solver, init_blocks

SOURCE = "summary.cu"


class RowSummaries:
    """Reduces the last solve's rows of `solver` where they are (`Solver.device_row_blocks`)."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.function = compiled_source(SOURCE, solver.width.wide).get_function("row_summary")

    def summarize(self, ck: int) -> tuple[np.ndarray, float] | None:
        """The last solve's (ck, 3) int64 summaries (reached, farthest, total; one row per instance)
        and the CUDA-event milliseconds the reduction took; None when the rows are not on the GPU."""
        blocks = self.solver.device_row_blocks(ck)
        if blocks is None:
            return None
        cuda, n = self.solver.cuda, self.solver.graph.n_vertices
        reached = cuda.to_device(np.zeros(ck, dtype=np.uint32))
        farthest = cuda.to_device(np.zeros(ck, dtype=self.solver.width.dtype))
        total = cuda.to_device(np.zeros(ck, dtype=np.uint64))
        start, end = self.solver.event(), self.solver.event()
        start.record()
        for pointer, first, count in blocks:
            self.function(np.int32(n), np.int32(first), pointer, reached, farthest, total,
                          grid=(init_blocks(n), count), block=(INIT_BLOCK, 1, 1))
        end.record()
        end.synchronize()
        elapsed_ms = end.time_since(start)
        self.solver.recycle(start, end)
        out = np.empty((ck, 3), dtype=np.int64)
        out[:, 0] = cuda.from_device(reached, (ck,), np.uint32)
        out[:, 1] = cuda.from_device(farthest, (ck,), self.solver.width.dtype)
        out[:, 2] = cuda.from_device(total, (ck,), np.uint64).astype(np.int64)
        for array in (reached, farthest, total):
            array.free()
        return out, elapsed_ms


__all__ = ["RowSummaries"]
