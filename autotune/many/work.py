"""A worker of a many-source run: one device (a GPU, or a CPU core for the CPU oracle), the graph
loaded once, its configuration verified on the sample before any shard, then shards on demand.

The functions at the bottom (`prepare`, `solve_shard`, `release`) are what an executor calls, in
the same process (`autotune.many.executors.InProcess`) or as Dask tasks in a worker process
(`DaskExecutor`); a process keeps its open workers by the run's token between calls.
"""
from __future__ import annotations

import hashlib
import io
import os
import threading
import time
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from autotune.errors import AutotuneError, WrongResult
from autotune.files import atomic_write, file_sha256
from autotune.many.plan import batches
from autotune.many.reductions import summarize_rows
from autotune.reference.distance_range import width_for



@dataclass(frozen=True)
class SolverSpec:
    """How a worker opens its solver (sent to worker processes: plain data).

    Args:
        algorithm: the registered algorithm whose GPU engine solves; None for the CPU oracle
            (scipy's Dijkstra, a batch at a time: the CPU baseline, and what runs without a GPU).
        config: the launch configuration's JSON (GPU) or None.
        batch: sources solved at once (the configuration's CK on a GPU).
        device_index: the GPU, as the worker's process sees it.
    """

    algorithm: str | None
    config: Mapping[str, Any] | None
    batch: int
    device_index: int = 0

    @property
    def on_gpu(self) -> bool:
        return self.algorithm is not None


@dataclass
class OracleResult:
    distances: np.ndarray
    elapsed_ms: float


class OracleSolver:
    """The CPU oracle with a GPU solver's face: `solve(config, sources)` gives rows in the graph's
    `width` (int32, or int64 where its distances need it; the width's `inf` for unreachable), and the
    milliseconds they took (host clock)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.width = width_for(graph)

    def solve(self, config: Any, sources: Sequence[int]) -> OracleResult:
        from autotune.reference import reference_distances

        start = time.perf_counter()
        distinct = list(dict.fromkeys(int(s) for s in sources))  # a padded batch repeats its first source
        solved = reference_distances(self.graph, distinct)
        rows = solved[[distinct.index(int(s)) for s in sources]]
        rows = np.where(rows < 0, self.width.inf, rows).astype(self.width.dtype)
        return OracleResult(rows, (time.perf_counter() - start) * 1e3)

    def __enter__(self) -> OracleSolver:
        return self

    def __exit__(self, *exc_info) -> None:
        pass


def write_array(path: Path, array: np.ndarray) -> str:
    """`array` as .npy at `path`, atomically (`files.atomic_write`: a file there is whole); returns
    its sha256."""
    buffer = io.BytesIO()
    np.save(buffer, array)
    data = buffer.getvalue()
    atomic_write(path, data, "a shard")
    return hashlib.sha256(data).hexdigest()


def shard_path(directory: Path, kind: str, k: int) -> Path:
    """Where shard `k` of `kind` ("distances" or "summaries") is written."""
    return Path(directory) / f"{kind}-{k:05d}.npy"


class Worker:
    """One device's solver of one run: open it with `prepare`, solve shards, `close`."""

    def __init__(self, graph: Any, spec: SolverSpec) -> None:
        self.graph = graph
        self.spec = spec
        self._stack = ExitStack()
        self.solver: Any = None
        self.config: Any = None
        self.summaries: Any = None
        self.device = "cpu"
        self._lock = threading.Lock()  # a worker of several threads solves one shard at a time

    @contextmanager
    def current(self) -> Iterator[None]:
        """The worker's GPU context current for the block (a task may run on any thread)."""
        if not self.spec.on_gpu:
            yield
            return
        from autotune.gpu import gpu_session

        with gpu_session(self.spec.device_index):
            yield

    def prepare(self, expected: Mapping[int, np.ndarray], summarize: bool) -> dict[str, Any]:
        """Open the solver, then solve the sample (`expected`, by source) and check every row (and,
        with `summarize`, the GPU's per-row summaries) against the CPU reference.

        Raises:
            WrongResult: a sampled row differs (naming the device, the source and the first vertex).
        """
        start = time.perf_counter()
        with self.current():
            if self.spec.on_gpu:
                from autotune.algorithms import config_from_json, open_solver
                from autotune.gpu import device_description, device_handle

                self.config = config_from_json(self.spec.config, "config")
                self.device = str(device_description(device_handle(self.spec.device_index))["name"])
                self.solver = self._stack.enter_context(open_solver(self.graph, self.config.algorithm))
                if summarize:
                    from autotune.gpu.summary import RowSummaries

                    self.summaries = RowSummaries(self.solver)
            else:
                self.solver = OracleSolver(self.graph)
            sample = list(expected)
            gpu_ms = 0.0
            for batch, real in batches(sample, self.spec.batch):
                result = self.solver.solve(self.config, batch)
                gpu_ms += result.elapsed_ms
                for k, source in enumerate(batch[:real]):
                    differ = np.flatnonzero(result.distances[k] != expected[source])
                    if len(differ):
                        raise WrongResult(f"{self.device}: from source {source}, {len(differ)} distance(s) differ "
                                          f"from the CPU reference (first at vertex {differ[0]}); nothing saved")
                got_summaries = self._device_summaries(len(batch)) if summarize else None
                if got_summaries is not None:
                    want = summarize_rows(np.stack([expected[s] for s in batch[:real]]), self.solver.width.inf)
                    if not np.array_equal(got_summaries[0][:real], want):
                        raise WrongResult(f"{self.device}: the GPU's per-source summaries (reached, farthest, total) "
                                          "differ from the CPU's on the sample; nothing saved")
        return {"device": self.device, "pid": os.getpid(), "open_s": time.perf_counter() - start,
                "sample_gpu_ms": gpu_ms}

    def _device_summaries(self, ck: int) -> tuple[np.ndarray, float] | None:
        return None if self.summaries is None else self.summaries.summarize(ck)

    def solve_shard(self, k: int, sources: Sequence[int], directory: Path | None, keep_rows: bool,
                    summarize: bool) -> dict[str, Any]:
        """Solve shard `k` (its `sources`, in batches); write its files under `directory` (rows as
        int64 with -1 unreachable when `keep_rows`, summaries when `summarize`). Returns the
        timings, the files' checksums and, without a directory, the summaries."""
        with self._lock:
            return self._solve_shard(k, sources, directory, keep_rows, summarize)

    def _solve_shard(self, k: int, sources: Sequence[int], directory: Path | None, keep_rows: bool,
                     summarize: bool) -> dict[str, Any]:
        from autotune.many.distances import unreachable_as_minus_one

        rows_out: list[np.ndarray] = []
        summaries_out: list[np.ndarray] = []
        gpu_ms = 0.0
        start = time.perf_counter()
        with self.current():
            for batch, real in batches(sources, self.spec.batch):
                result = self.solver.solve(self.config, batch)
                gpu_ms += result.elapsed_ms
                summary = None
                if summarize and not keep_rows:
                    found = self._device_summaries(len(batch))
                    if found is not None:
                        summary, ms = found
                        gpu_ms += ms
                        summary = summary[:real]
                if keep_rows or (summarize and summary is None):
                    rows = np.asarray(result.distances[:real])
                    if summarize:
                        summary = summarize_rows(rows, self.solver.width.inf)
                    if keep_rows:
                        rows_out.append(unreachable_as_minus_one(rows, self.solver.width.inf))
                if summary is not None:
                    summaries_out.append(summary)
        solve_s = time.perf_counter() - start
        written: dict[str, str] = {}
        start = time.perf_counter()
        summaries = np.concatenate(summaries_out) if summaries_out else None
        if directory is not None:
            if keep_rows:
                written["distances"] = write_array(shard_path(directory, "distances", k), np.concatenate(rows_out))
            if summaries is not None:
                written["summaries"] = write_array(shard_path(directory, "summaries", k), summaries)
        return {"shard": k, "rows": len(sources), "device": self.device, "pid": os.getpid(), "gpu_ms": gpu_ms,
                "solve_s": solve_s, "write_s": time.perf_counter() - start, "sha256": written,
                "summaries": summaries if directory is None else None}

    def close(self) -> None:
        with self.current() if self.solver is not None else nullcontext():
            self._stack.close()


_WORKERS: dict[str, Worker] = {}  # this process's open workers, by run token


def prepare(token: str, graph: Any, spec: SolverSpec, expected: Mapping[int, np.ndarray],
            summarize: bool) -> dict[str, Any]:
    """Open this process's worker of run `token` and verify it on the sample (`Worker.prepare`)."""
    worker = Worker(graph, spec)
    try:
        report = worker.prepare(expected, summarize)
    except BaseException:
        worker.close()
        raise
    _WORKERS[token] = worker
    return report


def solve_shard(token: str, k: int, sources: Sequence[int], directory: str | None, keep_rows: bool,
                summarize: bool) -> dict[str, Any]:
    """Shard `k` of run `token` on this process's worker (`Worker.solve_shard`).

    Raises:
        AutotuneError: this process has no prepared worker for the run.
    """
    worker = _WORKERS.get(token)
    if worker is None:
        raise AutotuneError(f"worker process {os.getpid()} was not prepared for this run")
    return worker.solve_shard(k, np.asarray(sources, dtype=np.int64).tolist(),
                              None if directory is None else Path(directory), keep_rows, summarize)


def release(token: str) -> None:
    """Close this process's worker of run `token` (its GPU memory freed), if it has one."""
    worker = _WORKERS.pop(token, None)
    if worker is not None:
        worker.close()


__all__ = ["OracleSolver", "SolverSpec", "Worker", "file_sha256", "prepare", "release", "shard_path",
           "solve_shard", "write_array"]
