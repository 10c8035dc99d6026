"""GPU memory of the engines: the graph's CSR arrays, a solve's workspace (named allocations, the
pinned ring the host polls, the rows the distances come back in), and the check that a workspace
fits the free memory before it is allocated."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from autotune.model.memory import MEMORY_SHARE  # a workspace may take this share of the free GPU memory
from autotune.errors import LaunchRejected
from autotune.graphs.csr import CSRGraph
from autotune.gpu.device import driver


class GraphOnDevice:
    """The CSR arrays in GPU memory, for the life of the object (and any arrays an engine adds)."""

    def __init__(self, graph: CSRGraph) -> None:
        cuda = driver()
        self.graph = graph
        self.n = graph.n_vertices
        self._allocations: list = []
        self.row_offsets = self.upload(cuda, graph.row_offsets)
        self.columns = self.upload(cuda, graph.columns if graph.n_edges else np.zeros(1, np.int32))
        self.weights = self.upload(cuda, graph.weights if graph.n_edges else np.zeros(1, np.int32))

    def alloc(self, cuda, nbytes: int):
        allocation = cuda.mem_alloc(max(nbytes, 4))
        self._allocations.append(allocation)
        return allocation

    def upload(self, cuda, array: np.ndarray, dtype: np.dtype = np.dtype(np.int32)):
        """`array` copied to the GPU as `dtype` (int32: the graph's arrays; int64: wide distances)."""
        array = np.ascontiguousarray(array, dtype=dtype)
        allocation = self.alloc(cuda, array.nbytes)
        cuda.memcpy_htod(allocation, array)
        return allocation

    def free(self) -> None:
        for allocation in self._allocations:
            allocation.free()
        self._allocations.clear()


_CAP: list[int] = []  # the GPU memory this process may use (`set_memory_cap`), none by default


def set_memory_cap(cap_bytes: int | None) -> None:
    """Let this process's workspaces take at most `cap_bytes` of GPU memory in all (`--max-memory`:
    a table for a GPU of less memory made on one of more); None lifts the cap."""
    _CAP[:] = [] if cap_bytes is None else [int(cap_bytes)]


def check_memory(needed_bytes: int, what: str) -> None:
    """Refuse a workspace larger than `MEMORY_SHARE` of the free GPU memory, or of what the cap
    (`set_memory_cap`) leaves beside the memory in use.

    Raises:
        LaunchRejected: naming what needed how much.
    """
    free_bytes, total_bytes = driver().mem_get_info()
    usable = free_bytes if not _CAP else min(free_bytes, _CAP[0] - (total_bytes - free_bytes))
    if needed_bytes > MEMORY_SHARE * usable:
        capped = f" (--max-memory {_CAP[0] / 2**30:.1f} GiB)" if _CAP else ""
        raise LaunchRejected(None, f"{what} need {needed_bytes / 2**30:.2f} GiB of GPU memory; "
                                   f"{max(usable, 0) / 2**30:.2f} GiB may be used{capped}")


PINNED_ROWS_BYTES = 512 * 2**20  # distances copied back through page-locked memory up to this size


class DeviceArrays:
    """A solve's workspace: named GPU allocations (attributes of those names), `ring`, a pinned
    array (`ring_dtype`) the host reads the instances' progress into, and `rows`, where the
    distances (`dtype`: the solver's width) come back.

    Raises:
        LaunchRejected: the GPU lacks the memory (`check_memory`, or an allocation that fails
            because another process took it since); nothing stays allocated.
    """

    def __init__(self, sizes: Mapping[str, int], ring_shape: tuple[int, int], what: str,
                 dtype: np.dtype = np.dtype(np.int32), ring_dtype: np.dtype = np.dtype(np.int32)) -> None:
        cuda = driver()
        self.dtype = np.dtype(dtype)
        check_memory(sum(sizes.values()), what)
        self._allocated: list = []
        try:
            for name, nbytes in sizes.items():
                allocation = cuda.mem_alloc(max(nbytes, 8))
                self._allocated.append(allocation)
                setattr(self, name, allocation)
            self.ring = cuda.pagelocked_empty(ring_shape, ring_dtype)
            self._rows: np.ndarray | None = None
        except cuda.MemoryError as error:
            self.free()
            raise LaunchRejected(None, f"{what}: out of GPU memory ({error})") from None

    def rows(self, ck: int, n: int) -> np.ndarray:
        """A (ck, n) host array of `dtype` to copy distances into: page-locked and reused (a copy
        at the bus's full speed, which matters when every distance is kept: `sssp --sources all`)
        up to `PINNED_ROWS_BYTES`, a fresh array above. The caller reads it before the next solve."""
        if ck * n * self.dtype.itemsize > PINNED_ROWS_BYTES:
            return np.empty((ck, n), dtype=self.dtype)
        if self._rows is None or self._rows.shape[0] < ck or self._rows.shape[1] != n:
            try:
                self._rows = driver().pagelocked_empty((ck, n), self.dtype)
            except Exception:  # the host cannot lock that much memory: a plain array copies slower
                self._rows = None
                return np.empty((ck, n), dtype=self.dtype)
        return self._rows[:ck]

    def free(self) -> None:
        self._rows = None
        for allocation in self._allocated:
            allocation.free()
        self._allocated.clear()


__all__ = ["DeviceArrays", "GraphOnDevice", "PINNED_ROWS_BYTES", "check_memory", "set_memory_cap"]
