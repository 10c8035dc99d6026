"""The exhaustive search as thesis Fig. 4.1 draws it, as data: per kernel and L1 state, one series
per block size of the kernel's time against CK, over the uniform configurations measured (one
block size and L1 state for every kernel).

Relax's point at (block size, L1 state, CK) is its fastest over the lanes per vertex L measured;
minimum and update do not use L, so theirs is the median over L (the L runs are repeated
measurements for them).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from autotune.report.analysis import Measured, pooled
from autotune.report.load import Run
from autotune.launch import CacheState
from autotune.report.thesis import THESIS_KERNELS


@dataclass(frozen=True)
class GridSeries:
    """One curve of Fig. 4.1: a kernel's ms per SSSP against CK at one block size and L1 state."""

    kernel: str
    cache: str
    block_size: int
    points: tuple[tuple[int, float], ...]  # (CK, ms), by CK

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "cache": self.cache, "block_size": self.block_size,
                "points": [list(p) for p in self.points]}


@dataclass(frozen=True)
class GridMinimum:
    """A panel's fastest point (the thesis's horizontal line)."""

    kernel: str
    cache: str
    block_size: int
    concurrent_kernels: int
    kernel_ms: float


def _uniform(config: Any) -> tuple[int, str] | None:
    launches = {(k.block_size, k.cache.value) for k in config.kernels.values()}
    return launches.pop() if len(launches) == 1 else None


def exhaustive_grid(runs: Sequence[Run], measured: Measured | None = None) -> dict[str, list[GridSeries]]:
    """Per kernel, the series of one graph (empty when fewer than two CK values were measured).

    Uses the exhaustive run's records when there is one, else every run's (`measured`, when
    given, holds those)."""
    chosen = [r for r in runs if r.strategy in ("exhaustive", "engine-benchmark") and r.records]
    results = pooled(r for run in chosen for r in run.records) if chosen else (measured or Measured.of(runs)).configs
    values: dict[tuple[str, str, int, int], list[float]] = {}
    for result in results.values():
        uniform = _uniform(result.config)
        if not result.ok or uniform is None:
            continue
        block, cache = uniform
        for kernel in THESIS_KERNELS:
            if kernel in result.kernel_ms:
                values.setdefault((kernel, cache, block, result.config.concurrent_kernels), []).append(
                    result.kernel_ms[kernel])
    if len({key[3] for key in values}) < 2:
        return {}
    series: dict[tuple[str, str, int], list[tuple[int, float]]] = {}
    for (kernel, cache, block, ck), times in values.items():
        point = min(times) if kernel == "relax" else statistics.median(times)
        series.setdefault((kernel, cache, block), []).append((ck, point))
    order = [state.value for state in CacheState]
    out: dict[str, list[GridSeries]] = {}
    for (kernel, cache, block), points in sorted(series.items(), key=lambda item: (
            THESIS_KERNELS.index(item[0][0]), order.index(item[0][1]), item[0][2])):
        out.setdefault(kernel, []).append(GridSeries(kernel, cache, block, tuple(sorted(points))))
    return out


def panel_minima(grid: Mapping[str, Sequence[GridSeries]]) -> list[GridMinimum]:
    """Per kernel and L1 state, the fastest point of the grid."""
    out = []
    for kernel, series in grid.items():
        by_cache: dict[str, GridMinimum] = {}
        for line in series:
            for ck, ms in line.points:
                current = by_cache.get(line.cache)
                if current is None or ms < current.kernel_ms:
                    by_cache[line.cache] = GridMinimum(kernel, line.cache, line.block_size, ck, ms)
        out += by_cache.values()
    return out
