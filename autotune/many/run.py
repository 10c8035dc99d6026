"""A many-source run from plan to summary: the shards planned (`plan`), the ones a directory already
holds skipped (`store`), every worker opened and verified on the sample (`work`), the rest solved
by whichever worker is free (`executors`), progress on stderr, and the reductions put together.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence, TextIO

import numpy as np

from autotune.many.executors import open_executor
from autotune.many.plan import ShardPlan, shard_size
from autotune.many.store import ShardStore
from autotune.many.work import SolverSpec

PROGRESS_EVERY_S = 5.0
# What a local cluster's start costs over one process's: `setup_s` 3.9 s against 0.4 s for usa-roads
# (suite `many` on two H200s of one host at a5691ca, `docs/many-sources.md`).
CLUSTER_START_S = 3.5


def estimate_line(sources: int, shards: int, workers: int | None, ms_per_sssp: float) -> str:
    """What a run will take at a table's `ms_per_sssp`, said before it starts (`workers` None: an
    existing cluster's, of a number not known here); for a local cluster of several workers, whether
    one device would finish it sooner (its start costs `CLUSTER_START_S` more than one process's,
    which the workers must win back).

    Example:
        >>> estimate_line(87_575, 18, 2, 0.0035).split(": ")[-1]
        'one device (no --devices) finishes a run this short sooner'
        >>> estimate_line(87_575, 18, None, 0.0035).split(": ")[0]
        "87,575 sources in 18 shards on the cluster's workers"
    """
    one = sources * ms_per_sssp / 1000
    if workers is None:
        return (f"{sources:,} sources in {shards:,} shards on the cluster's workers: about {one:,.1f} s of solving on "
                f"one device at the table's {ms_per_sssp:.4f} ms per SSSP")
    line = (f"{sources:,} sources in {shards:,} shards on {workers} worker(s): about {one / workers:,.1f} s of solving "
            f"at the table's {ms_per_sssp:.4f} ms per SSSP")
    if workers > 1 and one / workers + CLUSTER_START_S >= one:
        line += (f"; starting the local cluster costs about {CLUSTER_START_S:g} s more than one process: one device "
                 "(no --devices) finishes a run this short sooner")
    return line


@dataclass
class ManyRequest:
    """What to solve and where.

    Args:
        graph: the graph (a `CSRGraph`).
        sources: every source, in the order the results list them.
        expected: the sample's CPU reference rows, by source (`ReferenceCache`'s: the graph's width).
        specs: one solver spec per local worker (a GPU or a CPU process).
        visible: per local worker, its CUDA_VISIBLE_DEVICES (see `DaskExecutor`).
        address: a Dask cluster's scheduler, or None.
        cluster: run through Dask even with one local worker.
        directory: `--save-dir`, or None.
        keep_rows: write the distances (with a directory).
        reductions: per-source reductions asked for.
        shard_size: sources per shard (None: `plan.shard_size`).
        estimate_ms: the expected milliseconds per SSSP (a table's), for the estimate before starting.
    """

    graph: Any
    sources: Sequence[int]
    expected: Mapping[int, np.ndarray]
    specs: Sequence[SolverSpec]
    visible: Sequence[str | None] = ()
    address: str | None = None
    cluster: bool = False
    directory: Path | None = None
    keep_rows: bool = False
    reductions: Sequence[str] = ()
    shard_size: int | None = None
    estimate_ms: float | None = None
    config: Mapping[str, Any] | None = None
    progress: TextIO | None = field(default_factory=lambda: sys.stderr)

    def plan(self) -> ShardPlan:
        batch = self.specs[0].batch
        size = self.shard_size or shard_size(len(self.sources), self.graph.n_vertices, batch,
                                             self.keep_rows and self.directory is not None)
        return ShardPlan.of(self.sources, list(self.expected), size)


class Progress:
    """A line on `stream` after the first shard (the estimate from the run's own rate, where no table
    gave one) and then every `PROGRESS_EVERY_S`: shards and sources done, the rate, the time left."""

    def __init__(self, stream: TextIO | None, total_sources: int, total_shards: int) -> None:
        self.stream, self.total_sources, self.total_shards = stream, total_sources, total_shards
        self.sources = self.shards = 0
        self.start = self.last = time.perf_counter()

    def say(self, text: str) -> None:
        if self.stream is not None:
            print(text, file=self.stream, flush=True)

    def update(self, rows: int) -> None:
        self.sources += rows
        self.shards += 1
        now = time.perf_counter()
        if self.shards > 1 and now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        rate = self.sources / max(now - self.start, 1e-9)
        left = (self.total_sources - self.sources) / rate if rate > 0 else float("inf")
        self.say(f"  {self.shards:,} of {self.total_shards:,} shards, {self.sources:,} of {self.total_sources:,} "
                 f"sources, {rate:,.0f} SSSPs per second, about {left:,.0f} s left")


def run_many(request: ManyRequest) -> dict[str, Any]:
    """Solve every source of `request` once; returns the summary (`autotune.cli.sssp_many` prints it).

    Raises:
        WrongResult: a worker's sample differs from the CPU reference (nothing of it is written).
        OutputError: the directory cannot hold this run.
        KeyboardInterrupt: after saying how far the run got (the same command goes on from there).
    """
    graph = request.graph
    plan = request.plan()
    identity = {key: value for key, value in graph.info().items() if key in ("name", "vertices", "edges", "sha256")}
    store = ShardStore(request.directory, plan, identity, request.keep_rows and request.directory is not None,
                       request.reductions, request.config)
    pending = store.pending()
    todo = sum(len(plan.shard(k)) for k in pending)
    progress = Progress(request.progress, todo, len(pending))
    if request.estimate_ms is not None and todo:
        workers = max(1, len(request.specs)) if request.address is None else None
        progress.say(estimate_line(todo, len(pending), workers, request.estimate_ms))
    summarize = bool(request.reductions)
    reports: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    setup_s = wall_s = 0.0
    if pending:
        start = time.perf_counter()
        executor = open_executor(request.specs, request.visible, request.address, request.cluster)
        try:
            reports = executor.prepare(graph, request.expected, summarize)
            setup_s = time.perf_counter() - start
            progress.say(f"{len(reports)} worker(s) ready and verified on {len(request.expected)} sources in "
                         f"{setup_s:.1f} s: {', '.join(sorted(r['device'] for r in reports))}")
            progress.start = progress.last = time.perf_counter()
            directory = None if request.directory is None else str(request.directory)
            for result in executor.solve([(k, plan.shard(k)) for k in pending], directory,
                                         request.keep_rows, summarize):
                store.finished(result)
                results.append(result)
                progress.update(int(result["rows"]))
            wall_s = time.perf_counter() - progress.start
        except KeyboardInterrupt:
            done = len(plan) - len(store.pending())
            progress.say(f"interrupted: {done:,} of {len(plan):,} shards saved in {request.directory}; the same command "
                         "goes on from there" if request.directory is not None else
                         f"interrupted: {done:,} of {len(plan):,} shards solved, none kept (no --save-dir)")
            raise
        finally:
            executor.close()
    reduced = store.reduced()
    solved = sum(int(r["rows"]) for r in results)
    per_worker: dict[str, int] = {}
    for result in results:
        name = f"{result['device']} (process {result['pid']})"
        per_worker[name] = per_worker.get(name, 0) + int(result["rows"])
    return {
        "sources": len(plan.order), "solved": solved, "already_saved": len(plan.order) - todo,
        "shards": len(plan), "shard_size": plan.size, "batch": request.specs[0].batch,
        "workers": len(reports), "devices": sorted(r["device"] for r in reports), "per_worker": per_worker,
        "verified_sources": len(request.expected), "setup_s": setup_s, "wall_s": wall_s,
        "gpu_ms": sum(float(r["gpu_ms"]) for r in results),
        "device_clock": "CUDA events" if request.specs[0].on_gpu else "host clock",
        "ms_per_sssp": 1000.0 * wall_s / solved if solved else None,
        "sssp_per_s": solved / wall_s if wall_s > 0 else None,
        "write_s": sum(float(r["write_s"]) for r in results),
        "saved": None if request.directory is None else str(request.directory),
        "reductions": {name: {"min": float(np.min(v)), "median": float(np.median(v)), "max": float(np.max(v))}
                       for name, v in reduced.items() if len(v)},
    }


__all__ = ["CLUSTER_START_S", "ManyRequest", "Progress", "estimate_line", "run_many"]
