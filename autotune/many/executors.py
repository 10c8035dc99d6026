"""Who runs a many-source run's workers (`autotune.many.work`): this process, one device
(`InProcess`), or Dask (`DaskExecutor`): a local cluster of one worker process per device by
default, or the cluster at `--cluster ADDRESS` (its workers started one per GPU, as RAPIDS's
`dask-cuda-worker` starts them, each seeing its GPU as device 0, with the graph's and the tables'
files at the same paths). Dask was chosen over Ray because its wheels fit the GPU machine (Ray's
79 MB does not) and because its scheduler hands a shard to whichever worker is free, so a faster
GPU takes more: `docs/many-sources.md`.

Both give the same calls: `prepare` (every worker opens and verifies its solver on the sample),
`solve` (shards, yielded as they finish, in any order) and `close`.
"""
from __future__ import annotations

import logging
import uuid
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from autotune.errors import AutotuneError, InputError
from autotune.many import work
from autotune.many.work import SolverSpec

Shard = tuple[int, Sequence[int]]


class InProcess:
    """One worker in this process: the single-device run, with no cluster to start."""

    def __init__(self, spec: SolverSpec) -> None:
        self.spec = spec
        self.token = uuid.uuid4().hex
        self.workers = 1

    def prepare(self, graph: Any, expected: Mapping[int, np.ndarray], summarize: bool) -> list[dict[str, Any]]:
        return [work.prepare(self.token, graph, self.spec, expected, summarize)]

    def solve(self, shards: Sequence[Shard], directory: str | None, keep_rows: bool,
              summarize: bool) -> Iterator[dict[str, Any]]:
        for k, sources in shards:
            yield work.solve_shard(self.token, k, sources, directory, keep_rows, summarize)

    def close(self) -> None:
        work.release(self.token)


class DaskExecutor:
    """Workers in Dask's worker processes, one per device (see the module's doc).

    Args:
        specs: one solver spec per local worker, their `device_index` as its process sees it
            (each local GPU worker sees only its GPU: CUDA_VISIBLE_DEVICES); ignored with `address`
            but for the first, which every worker of the cluster uses.
        visible: per local worker, the CUDA_VISIBLE_DEVICES it is started with (None: unchanged).
        address: an existing cluster's scheduler; None starts a local one.

    Raises:
        InputError: Dask's `distributed` is not installed, or the cluster cannot be reached.
    """

    def __init__(self, specs: Sequence[SolverSpec], visible: Sequence[str | None] = (),
                 address: str | None = None) -> None:
        try:
            from distributed import Client, Nanny, Scheduler, SpecCluster
        except ImportError:
            raise InputError("several devices or --cluster need Dask: pip install 'autotune[many]' "
                             "(dask and distributed)") from None
        self.token = uuid.uuid4().hex
        self.specs = list(specs)
        self.cluster = None
        if address is None:
            visible = list(visible) or [None] * len(self.specs)
            workers = {f"worker-{i}": {"cls": Nanny, "options": {
                "nthreads": 1, "silence_logs": logging.ERROR,
                "env": {} if visible[i] is None else {"CUDA_VISIBLE_DEVICES": visible[i]}}}
                for i in range(len(self.specs))}
            self.cluster = SpecCluster(workers=workers, silence_logs=logging.ERROR, scheduler={
                "cls": Scheduler, "options": {"dashboard_address": None, "dashboard": False}})
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout="20s")
            except OSError as error:
                raise InputError(f"--cluster {address}: cannot reach the scheduler ({error})") from None
        self.addresses = list(self.client.scheduler_info()["workers"])
        if not self.addresses:
            self.close()
            raise InputError(f"--cluster {address}: the cluster has no workers")
        self.workers = len(self.addresses)
        self._futures: list[Any] = []

    def _spec(self, index: int) -> SolverSpec:
        return self.specs[index] if self.cluster is not None else self.specs[0]

    def prepare(self, graph: Any, expected: Mapping[int, np.ndarray], summarize: bool) -> list[dict[str, Any]]:
        """Send the graph to every worker once, and open and verify each worker's solver."""
        shared = self.client.scatter(graph, broadcast=True)
        futures = [self.client.submit(work.prepare, self.token, shared, self._spec(i), dict(expected), summarize,
                                      workers=[address], allow_other_workers=False, pure=False)
                   for i, address in enumerate(self.addresses)]
        self._futures = futures
        reports = self.client.gather(futures)
        # A shard of no sources on each worker, paid here with the workers' start: on this project's VM a
        # cluster's first map of a function started its tasks ~16 ms later than the next map did.
        self.client.gather([self.client.submit(work.solve_shard, self.token, -1, np.zeros(0, dtype=np.int64), None,
                                               False, False, workers=[address], allow_other_workers=False,
                                               pure=False) for address in self.addresses])
        return reports

    def solve(self, shards: Sequence[Shard], directory: str | None, keep_rows: bool,
              summarize: bool) -> Iterator[dict[str, Any]]:
        """Every shard submitted at once (one graph for the scheduler, each shard's sources one
        array: Dask walks a list's items one by one, ~75 ms for usa-roads' 87,575 sources), the
        results gathered as they finish (no round trip each)."""
        from distributed import as_completed

        futures = self.client.map(work.solve_shard, [self.token] * len(shards), [k for k, _ in shards],
                                  [np.asarray(sources, dtype=np.int64) for _, sources in shards],
                                  key=[f"shard-{k:05d}-{self.token}" for k, _ in shards], pure=False,
                                  directory=directory, keep_rows=keep_rows, summarize=summarize)
        self._futures = futures
        for _, result in as_completed(futures, with_results=True):
            yield result

    def close(self) -> None:
        """Cancel what is left; each worker's solver closed on the thread that opened it (a worker
        of one thread: a local cluster's), so its GPU memory, streams and events are freed before it goes."""
        try:
            for future in self._futures:
                future.cancel()
            if self.addresses:
                from distributed import wait

                # bounded: the release pinned to a worker lost meanwhile would wait for ever
                wait([self.client.submit(work.release, self.token, workers=[address], allow_other_workers=False,
                                         pure=False) for address in self.addresses], timeout=30)
        except Exception:  # the cluster is going away anyway; nothing to report
            pass
        finally:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def open_executor(specs: Sequence[SolverSpec], visible: Sequence[str | None] = (), address: str | None = None,
                  cluster: bool = False) -> InProcess | DaskExecutor:
    """In this process for one local worker unless `cluster` asks for Dask; Dask otherwise."""
    if address is None and len(specs) == 1 and not cluster:
        return InProcess(specs[0])
    if not specs:
        raise AutotuneError("no device to run on")
    return DaskExecutor(specs, visible, address)


__all__ = ["DaskExecutor", "InProcess", "open_executor"]
