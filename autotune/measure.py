"""What a measurement is, independent of how it was taken (GPU, or replayed from records).

`Timer` is the seam between the tuner and the GPU: the search asks a timer for a `Measurement` of a
`LaunchConfig` and never knows whether a GPU or a file of records answered.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.space import LaunchConfig


class Status(str, Enum):
    OK = "ok"  # timed and verified against the CPU reference
    INVALID = "invalid"  # the GPU cannot run this configuration; `reason` says why
    WRONG = "wrong"  # it ran, but its distances differ from the reference: never a winner

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Measurement:
    """One configuration measured on one graph.

    Args:
        config: what was measured.
        status: ok, invalid or wrong.
        times_ms: milliseconds per SSSP of each repetition (a repetition solves CK sources at once).
        kernel_ms: per kernel ("relax", "minimum", "update", "other"), the median milliseconds it
            took per SSSP, from CUDA events around each phase.
        iterations: mean outer-loop iterations per SSSP.
        edges: arcs of the graph (for GTEPS).
        launch_share: share of the timed solves' wall time the host spent in launch calls.
        reason: why it is invalid or wrong.
    """

    config: LaunchConfig
    status: Status
    times_ms: tuple[float, ...] = ()
    kernel_ms: Mapping[str, float] = field(default_factory=dict)
    iterations: float = 0.0
    edges: int = 0
    launch_share: float | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def verified(self) -> bool:
        return self.status is Status.OK

    @property
    def ms_per_sssp(self) -> float | None:
        """Median milliseconds per SSSP; None unless ok."""
        return statistics.median(self.times_ms) if self.ok and self.times_ms else None

    @property
    def spread_ms(self) -> tuple[float, float] | None:
        """(min, max) milliseconds per SSSP over the repetitions."""
        return (min(self.times_ms), max(self.times_ms)) if self.ok and self.times_ms else None

    @property
    def gteps(self) -> float | None:
        """Giga traversed edges per second: edges x SSSPs / time, so edges / (ms per SSSP) / 1e6."""
        ms = self.ms_per_sssp
        return self.edges / ms / 1e6 if ms else None

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config.to_json(),
            "status": self.status.value,
            "ms_per_sssp": self.ms_per_sssp,
            "times_ms": list(self.times_ms),
            "kernel_ms": dict(self.kernel_ms),
            "iterations": self.iterations,
            "edges": self.edges,
            "gteps": self.gteps,
            "launch_share": self.launch_share,
            "verified": self.verified,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "measurement") -> Measurement:
        return cls(
            config=LaunchConfig.from_json(data["config"], where),
            status=Status(data["status"]),
            times_ms=tuple(float(t) for t in data.get("times_ms", ())),
            kernel_ms={k: float(v) for k, v in data.get("kernel_ms", {}).items()},
            iterations=float(data.get("iterations", 0.0)),
            edges=int(data.get("edges", 0)),
            launch_share=data.get("launch_share"),
            reason=data.get("reason"),
        )


class Timer(Protocol):
    """Measures launch configurations on one graph."""

    def measure(self, config: LaunchConfig) -> Measurement: ...


def choose_sources(graph: CSRGraph, count: int, seed: int = 0) -> tuple[int, ...]:
    """`count` distinct source vertices among those with out-edges, drawn with `seed`.

    Fewer are returned when the graph has fewer such vertices.
    """
    candidates = np.flatnonzero(graph.out_degrees > 0)
    if len(candidates) == 0:
        candidates = np.arange(graph.n_vertices)
    rng = np.random.default_rng(seed)
    picked = rng.choice(candidates, size=min(count, len(candidates)), replace=False)
    return tuple(int(v) for v in picked)


def pool_size(repetitions: int, concurrent_kernels: int) -> int:
    """Sources a measurement needs so that none of its solves (a warm-up, `repetitions` timed, one
    profiled; each solving `concurrent_kernels` sources) shares a source with another."""
    return (repetitions + 2) * concurrent_kernels


def sources_for_repetition(pool: Sequence[int], concurrent_kernels: int, repetition: int) -> list[int]:
    """The CK sources that repetition `repetition` solves: the pool read round-robin, so successive
    repetitions solve different sources while the pool lasts."""
    start = repetition * concurrent_kernels
    return [pool[(start + k) % len(pool)] for k in range(concurrent_kernels)]
