"""What a measurement is, independent of how it was taken (GPU, or replayed from records), and the
protocol every timer follows.

`Timer` is the seam between the tuner and the GPU: the search asks a timer for a `Measurement` of a
`LaunchConfig` and never knows whether a GPU or a file of records answered.

The protocol (`Protocol`): every configuration of a graph is timed on the same fixed *sample* of
sources (`choose_sources`), whatever its CK, so that times at different CK measure the same work. A
*repetition* solves the whole sample once, in batches of CK sources (a CK 64 batch covers a sample of
32 twice; a CK 1 configuration solves the 32 one by one); its time per SSSP is its batches' time
over the SSSPs they solved. A measurement is a warm-up batch, `min_repetitions` to
`max_repetitions` timed repetitions (after the minimum, it stops as soon as the spread of the
repetitions is within `noise` of their median) and one profiled batch (CUDA events around every
kernel; left out when the caller asks, as the finalists' re-measurement rounds do). Where the
warm-up solved the whole sample in `LONG_BATCH_MS` or more (a large graph's batch end), the batches
are long (`long_batches`): `LONG_REPETITIONS` repetitions suffice where they agree, and no batch is
profiled (a trial of rmat22's batch end took five batches of 1.5 s; it takes three).

A `stop` callback, asked after the warm-up and after every batch with the times so far, answers an
`Ask`: PRUNE ends the measurement early as PRUNED (the search's pruning: far slower than the best so
far); ENOUGH, after a whole repetition, ends the repetitions there, below the protocol's minimum if
need be, and keeps the measurement OK (a configuration that cannot win, being far behind the best:
one repetition solves the whole sample, the work every configuration is timed on, and more would
only narrow a spread no conclusion depends on). At the warm-up, ENOUGH means GO_ON. The warm-up is
reported as such (`warm_up` True: it runs cold, the pruner allows it twice the bound) only when its
batch covers part of the sample; a batch of CK >= the sample covers it whole, the same work as a
repetition, and is reported as one. A `limit_ms` (per SSSP, the pruning bound at the time) also
stops the warm-up batch on the host clock once it has run CK x that long (twice that for a
partial one), so a hopeless configuration costs little more than the bound however slow it is.
A `stop` with a `left_ms()` (the sweep's budget: `search.run.pruning.BudgetStop`; `time_left_ms`)
also stops every batch once that time is up: a batch so stopped measured nothing, and the
measurement keeps the whole repetitions before it (as ENOUGH), or without one is PRUNED.
"""
from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Mapping, Protocol as TypingProtocol, Sequence

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig

DEFAULT_SAMPLE = 32
DEFAULT_REPETITIONS = 3
DEFAULT_NOISE = 0.03
# A warm-up batch of the whole sample this long makes the batches long (`Protocol.for_long_batches`): on rmat22 at
# 02935ed (H200, suite large's sweep; its records: benchmarks/data/h200/rmat22-curve-02935ed.records.jsonl.gz) every
# batch of 1,024 SSSPs took 1.5-1.7 s, three repetitions of one configuration spread 0.4-0.9%, the first within 0.35%
# of their median, the warm-up within 1.04% of it
LONG_BATCH_MS = 1_000.0
LONG_REPETITIONS = 2


def long_batches(ms_per_sssp: float | None, concurrent_kernels: int, sample: int) -> bool:
    """Whether a configuration's batches are long: each solves the whole sample (CK at least its
    size) in `LONG_BATCH_MS` or more, at `ms_per_sssp` (None: unknown, not long).

    Example:
        >>> long_batches(1.5, 1024, 32), long_batches(1.5, 512, 32), long_batches(100.0, 16, 32)
        (True, False, False)
    """
    return ms_per_sssp is not None and concurrent_kernels >= sample \
        and ms_per_sssp * concurrent_kernels >= LONG_BATCH_MS


class Status(str, Enum):
    OK = "ok"  # timed and verified against the CPU reference
    INVALID = "invalid"  # the GPU cannot run this configuration; `reason` says why
    WRONG = "wrong"  # it ran, but its distances differ from the reference: never a winner
    PRUNED = "pruned"  # stopped early, already far slower than the best so far: never a winner

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Protocol:
    """How each configuration is measured (see the module docstring).

    Args:
        sample: sources per graph, the same for every configuration.
        min_repetitions: timed repetitions always taken.
        max_repetitions: the cap when the repetitions disagree.
        noise: stop after `min_repetitions` once (max - min) / median of the repetitions is at most this.
        seed: draws the sample.
    """

    sample: int = DEFAULT_SAMPLE
    min_repetitions: int = DEFAULT_REPETITIONS
    max_repetitions: int = DEFAULT_REPETITIONS
    noise: float = DEFAULT_NOISE
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_repetitions < self.min_repetitions:
            object.__setattr__(self, "max_repetitions", self.min_repetitions)

    def settled(self, times_ms: Sequence[float]) -> bool:
        """Whether the repetitions so far are enough."""
        if len(times_ms) < self.min_repetitions:
            return False
        if len(times_ms) >= self.max_repetitions:
            return True
        median = statistics.median(times_ms)
        return median > 0 and (max(times_ms) - min(times_ms)) / median <= self.noise

    def for_long_batches(self) -> Protocol:
        """The protocol once a warm-up batch of the whole sample took `LONG_BATCH_MS` or more: its
        minimum of repetitions at most `LONG_REPETITIONS`, each repetition averaging over at least
        that long (the module's docstring)."""
        return dataclasses.replace(self, min_repetitions=min(self.min_repetitions, LONG_REPETITIONS))

    def to_json(self) -> dict[str, Any]:
        return {"sample": self.sample, "min_repetitions": self.min_repetitions,
                "max_repetitions": self.max_repetitions, "noise": self.noise, "seed": self.seed}


def batches(sample: Sequence[int], concurrent_kernels: int) -> list[list[int]]:
    """The batches of CK sources that cover the sample once (the last cycles back to its start).

    Example:
        >>> batches([5, 6, 7], 2)
        [[5, 6], [7, 5]]
        >>> batches([5, 6], 4)
        [[5, 6, 5, 6]]
    """
    count = max(1, math.ceil(len(sample) / concurrent_kernels))
    return [[sample[(b * concurrent_kernels + k) % len(sample)] for k in range(concurrent_kernels)]
            for b in range(count)]


class Ask(Enum):
    """A `StopAsk`'s answer (module docstring)."""

    GO_ON = "go on"
    PRUNE = "prune"
    ENOUGH = "enough"


StopAsk = Callable[[Sequence[float], bool], Ask]  # (ms per SSSP so far, warm-up?) -> what to do now


@dataclass(frozen=True)
class Measurement:
    """One configuration measured on one graph.

    Args:
        config: what was measured.
        status: ok, invalid, wrong or pruned.
        times_ms: milliseconds per SSSP of each timed repetition (for a pruned measurement, of
            each batch it timed before it stopped).
        kernel_ms: per kernel ("relax", ..., "other"), milliseconds per SSSP, from CUDA events
            around each phase of the profiled batch.
        iterations: mean outer-loop iterations per SSSP.
        edges: arcs of the graph (for GTEPS).
        warm_up_ms: milliseconds per SSSP of the warm-up batch (its first CK sources of the
            sample), when the timer took one: the candidates of the baseline are ranked on it.
        launch_share: share of the timed solves' wall time the host spent in launch calls.
        reason: why it is invalid, wrong or pruned.
    """

    config: LaunchConfig
    status: Status
    times_ms: tuple[float, ...] = ()
    kernel_ms: Mapping[str, float] = field(default_factory=dict)
    iterations: float = 0.0
    edges: int = 0
    launch_share: float | None = None
    reason: str | None = None
    warm_up_ms: float | None = None

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
            "warm_up_ms": self.warm_up_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "measurement", default_algorithm: str = DEFAULT_ALGORITHM,
                  read_config: Callable[[Any, str, str], LaunchConfig] = LaunchConfig.from_json) -> Measurement:
        """A measurement's JSON; `read_config` reads its configuration (the registry's
        `autotune.algorithms.config_from_json` checks it against its algorithm, as records and
        studies are read)."""
        status = Status(data["status"])
        times = tuple(float(t) for t in data.get("times_ms", ()))
        if status is Status.OK and not times:
            raise ValueError(f"{where}: an ok measurement without times_ms (its time is their median)")
        return cls(
            config=read_config(data["config"], where, default_algorithm),
            status=status,
            times_ms=times,
            kernel_ms={k: float(v) for k, v in data.get("kernel_ms", {}).items()},
            iterations=float(data.get("iterations", 0.0)),
            edges=int(data.get("edges", 0)),
            launch_share=data.get("launch_share"),
            reason=data.get("reason"),
            warm_up_ms=None if data.get("warm_up_ms") is None else float(data["warm_up_ms"]),
        )


def time_left_ms(stop: StopAsk | None) -> float | None:
    """How long the measurement `stop` is asked for may still run, in ms (its `left_ms()`), or None."""
    left = getattr(stop, "left_ms", None)
    return left() if callable(left) else None


class Timer(TypingProtocol):
    """Measures launch configurations on one graph.

    `measure(config, stop, limit_ms=..., profile=...)`: `stop` and `limit_ms` as in the module
    docstring; `profile` False leaves out the profiled batch (the measurement's `kernel_ms` is
    then empty). A timer that cannot honour `limit_ms` or `profile` may ignore them.
    """

    def measure(self, config: LaunchConfig, stop: StopAsk | None = None, *, limit_ms: float | None = None,
                profile: bool = True) -> Measurement: ...


def asked_along(measurement: Measurement, stop: StopAsk | None) -> Measurement:
    """An ok `measurement` whose repetitions are already known (recorded, or simulated) as a timer
    asked to `stop` would have returned it: `stop` is asked at its warm-up (when it has a
    `warm_up_ms`) and after every repetition but the last; PRUNE makes it PRUNED with what came
    before, ENOUGH keeps the repetitions so far. Anything else comes back unchanged."""
    if stop is None or not measurement.ok:
        return measurement
    warm, times = measurement.warm_up_ms, measurement.times_ms

    def pruned(kept: tuple[float, ...], reason: str) -> Measurement:
        return Measurement(measurement.config, Status.PRUNED, times_ms=kept, edges=measurement.edges, reason=reason,
                           warm_up_ms=warm)

    if warm is not None and stop((warm,), True) is Ask.PRUNE:
        return pruned((warm,), "pruned after the warm-up")
    for count in range(1, len(times)):
        answer = stop(times[:count], False)
        if answer is Ask.PRUNE:
            return pruned(times[:count], f"pruned after {count} repetitions")
        if answer is Ask.ENOUGH:
            return dataclasses.replace(measurement, times_ms=times[:count])
    return measurement


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
