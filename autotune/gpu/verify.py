"""Every solve's distances checked on the GPU (`kernels/verify.cu`): the sample's reference rows
are uploaded once, and a batch's rows are compared with them where they are, instead of being
copied to the host first. At the batch end of a large graph that copy and a comparison on the CPU
took more time than the solves (road-FLA, CK 1,024: 4.4 GB a batch; about 27 of a 59 s default sweep
on an H100, 27 trials; with the check here, 159 trials in 57 s: `benchmarks/data.py` names the
records). Only the rows of instances that differ are copied, to name what differs exactly as the
check on the CPU (`timer.distance_error`) does.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from autotune.gpu.compile import compiled_source
from autotune.gpu.engine import INIT_BLOCK, Solver, init_blocks

SOURCE = "verify.cu"
DEVICE_CHECK_BYTES = 64 * 2**20  # batches whose rows take more are checked on the GPU


class DeviceCheck:
    """The reference rows of `sample` (by source) in GPU memory, freed with the solver's graph.

    Raises:
        pycuda's MemoryError: the GPU lacks room for them (the caller checks on the CPU instead).
    """

    def __init__(self, solver: Solver, expected: Mapping[int, np.ndarray], sample: Sequence[int]) -> None:
        self.solver = solver
        self.row = {source: index for index, source in enumerate(dict.fromkeys(sample))}
        width = solver.width
        rows = np.stack([expected[source] for source in self.row]).astype(width.dtype, copy=False)
        self.expected = solver.device_graph.upload(solver.cuda, rows, width.dtype)
        self.function = compiled_source(SOURCE, width.wide).get_function("first_difference")

    def first_differences(self, sources: Sequence[int]) -> np.ndarray | None:
        """Per instance of the solver's last solve (one per source), the first vertex whose
        distance differs from the reference, -1 where none does; None when the solve's rows are
        not on the GPU (`Solver.device_row_blocks`)."""
        blocks = self.solver.device_row_blocks(len(sources))
        if blocks is None:
            return None
        cuda, n, ck = self.solver.cuda, self.solver.graph.n_vertices, len(sources)
        row_of = cuda.to_device(np.asarray([self.row[s] for s in sources], dtype=np.int32))
        differs = cuda.to_device(np.full(ck, n, dtype=np.int32))
        grid_x = init_blocks(n)
        for pointer, first, count in blocks:
            self.function(np.int32(n), np.int32(first), pointer, self.expected, row_of, differs,
                          grid=(grid_x, count), block=(INIT_BLOCK, 1, 1))
        cuda.Context.synchronize()
        found = cuda.from_device(differs, (ck,), np.int32)
        return np.where(found < n, found, -1)


__all__ = ["DEVICE_CHECK_BYTES", "DeviceCheck"]
