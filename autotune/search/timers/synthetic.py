"""A synthetic `Timer` for tests, demos and strategy comparisons: no GPU, a known landscape.

Times are a deterministic function of the configuration, separable per kernel (as the thesis's
composition assumes), with a known optimum (`SyntheticLandscape.optimum(space)` finds it by brute
force), some invalid configurations, some wrong ones, and optional noise that is a deterministic
function of (seed, configuration, how often it was measured), so two runs that measure the same
configurations in the same order see the same numbers.

The landscape is GPU Crauser's (its three kernels and relax's lanes). Nothing here describes a
real GPU; records made with it are labelled synthetic.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from autotune.algorithms import get
from autotune.launch import CacheState, DEFAULT_ALGORITHM, KernelLaunch, LaunchConfig
from autotune.measure import Measurement, Status, StopAsk, asked_along
from autotune.search.results import GraphInfo
from autotune.search.space import SearchSpace

ALGORITHM = get(DEFAULT_ALGORITHM)

SYNTHETIC_DEVICE_NAME = "Synthetic GPU (hopper-h100 profile, no hardware)"


def synthetic_device(profile: str = "hopper-h100") -> dict[str, Any]:
    """The table's device object of a synthetic GPU: a shipped profile's fields under a name that
    says it is synthetic (so the model can predict and classify, and tables validate)."""
    import dataclasses

    from autotune.model import load_device
    from autotune.table.format import device_section

    device = dataclasses.replace(load_device(profile), name=SYNTHETIC_DEVICE_NAME)
    data = device_section(device)
    data["profile"] = f"{profile} (synthetic)"
    data["description"] = f"synthetic timings, no hardware; the {profile} profile's limits"
    return data


def synthetic_graph(name: str = "synthetic-graph", n_vertices: int = 4096, n_edges: int = 131072) -> GraphInfo:
    """A made-up graph description (its sha256 is that of its name)."""
    return GraphInfo(name=name, sha256=hashlib.sha256(name.encode()).hexdigest(), n_vertices=n_vertices,
                     n_edges=n_edges)


@dataclass(frozen=True)
class KernelShape:
    """One kernel's synthetic cost: `base_ms * (1 + curvature * (log2 b - log2 best_b)^2) * cache factor`."""

    base_ms: float
    best_block: int
    curvature: float
    cache_factor: Mapping[CacheState, float]


def _shapes() -> dict[str, KernelShape]:
    c = CacheState
    return {
        "relax": KernelShape(2.0, 128, 0.08, {c.DEFAULT: 1.0, c.PREFER_L1: 0.9, c.PREFER_SHARED: 1.05, c.NO_L1: 1.2}),
        "minimum": KernelShape(0.6, 256, 0.05,
                               {c.DEFAULT: 1.0, c.PREFER_L1: 1.02, c.PREFER_SHARED: 0.95, c.NO_L1: 1.1}),
        "update": KernelShape(0.4, 64, 0.06, {c.DEFAULT: 1.0, c.PREFER_L1: 0.97, c.PREFER_SHARED: 1.0, c.NO_L1: 0.92}),
    }


@dataclass(frozen=True)
class SyntheticLandscape:
    """The synthetic cost model.

    Args:
        best_lanes: relax's best lanes per vertex.
        best_ck_log2: log2 of the best CK.
        edges: arcs reported for GTEPS.
        iterations: outer-loop iterations reported.
    """

    best_lanes: int = 4
    best_ck_log2: float = 2.0
    edges: int = 1_000_000
    iterations: float = 40.0
    shapes: Mapping[str, KernelShape] = field(default_factory=_shapes)

    def kernel_ms(self, config: LaunchConfig) -> dict[str, float]:
        """Per kernel ms per SSSP, and `other` (init and launch gaps), without noise."""
        ck_log2 = math.log2(config.concurrent_kernels)
        beyond = max(0.0, ck_log2 - self.best_ck_log2)  # more instances than pay: contention
        ck_factor = 1.0 / (1.0 + 0.25 * min(ck_log2, self.best_ck_log2)) + 0.03 * beyond**2
        out = {}
        for kernel in ALGORITHM.kernels:
            launch = config.kernels[kernel]
            shape = self.shapes[kernel]
            distance = math.log2(launch.block_size) - math.log2(shape.best_block)
            ms = shape.base_ms * (1 + shape.curvature * distance**2) * shape.cache_factor[launch.cache] * ck_factor
            if kernel == "relax":
                ms *= 1 + 0.05 * (math.log2(launch.lanes) - math.log2(self.best_lanes)) ** 2
            out[kernel] = ms
        out["other"] = 0.3 / config.concurrent_kernels + 0.05
        return out

    def ms_per_sssp(self, config: LaunchConfig) -> float:
        return sum(self.kernel_ms(config).values())

    def status(self, config: LaunchConfig) -> tuple[Status, str | None]:
        """Invalid: relax at 1024 threads with no_l1 (too many registers), CK 64 with 32-thread
        minimum blocks (too many blocks); wrong: update at 32 threads with prefer_l1."""
        if config.relax.block_size >= 1024 and config.relax.cache is CacheState.NO_L1:
            return Status.INVALID, "synthetic: relax needs more registers than a 1024-thread block has"
        if config.concurrent_kernels >= 64 and config.minimum.block_size == 32:
            return Status.INVALID, "synthetic: too many blocks for the grid"
        if config.update.block_size == 32 and config.update.cache is CacheState.PREFER_L1:
            return Status.WRONG, "synthetic: source 0: 3 distances differ from the CPU reference"
        return Status.OK, None

    def optimum(self, space: SearchSpace) -> tuple[LaunchConfig, float]:
        """The best valid configuration of `space`'s joint space and its ms.

        Costs and validity rules are separable per kernel for a given (CK, L), so for each
        (CK, L) each kernel's best valid (block size, cache) is its own choice.
        """
        best: tuple[float, str, LaunchConfig] | None = None
        for ck in space.concurrent_kernels:
            for lanes in space.lanes:
                reference = ALGORITHM.uniform(256, CacheState.DEFAULT, ck, lanes)
                launches = {}
                for kernel in ALGORITHM.kernels:
                    choices = []
                    for block_size in space.kernel_block_sizes(kernel):
                        for cache in space.caches:
                            launch = KernelLaunch(block_size, cache, lanes if kernel == "relax" else 1)
                            config = reference.replace(**{kernel: launch})
                            if self.status(config)[0] is Status.OK:
                                choices.append((self.kernel_ms(config)[kernel], str(launch), launch))
                    if not choices:
                        break
                    launches[kernel] = min(choices)[2]
                else:
                    config = reference.replace(**launches)
                    item = (self.ms_per_sssp(config), config.key(), config)
                    if best is None or item[:2] < best[:2]:
                        best = item
        if best is None:
            raise ValueError("no valid configuration in the space")
        return best[2], best[0]


def _unit_noise(*parts: object) -> float:
    """A deterministic number in [-1, 1) from `parts`."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2**63 - 1.0


class SyntheticTimer:
    """The `Timer` over a `SyntheticLandscape`.

    Args:
        landscape: the cost model.
        noise: relative amplitude of the per-repetition noise (0.02 = +-2 %).
        repetitions: times per measurement.
        seed: seeds the noise.
        interrupt_after: raise KeyboardInterrupt on this measure call (1-based), to simulate Ctrl-C.
        flaky: configurations that are ok (and very fast) the first time and WRONG afterwards.
    """

    def __init__(self, landscape: SyntheticLandscape | None = None, noise: float = 0.0, repetitions: int = 3,
                 seed: int = 0, interrupt_after: int | None = None, flaky: tuple[LaunchConfig, ...] = ()) -> None:
        self.landscape = landscape or SyntheticLandscape()
        self.noise = noise
        self.repetitions = repetitions
        self.seed = seed
        self.interrupt_after = interrupt_after
        self.flaky = {c.key() for c in flaky}
        self.calls: list[LaunchConfig] = []
        self._count: dict[str, int] = {}

    def measure(self, config: LaunchConfig, stop: StopAsk | None = None, *, limit_ms: float | None = None,
                profile: bool = True) -> Measurement:
        """As a GPU timer measures (`measure.asked_along`; the warm-up at the first repetition's
        time). `limit_ms` is not simulated; `profile` False leaves `kernel_ms` empty."""
        if self.interrupt_after is not None and len(self.calls) + 1 >= self.interrupt_after:
            raise KeyboardInterrupt("synthetic interruption")
        self.calls.append(config)
        key = config.key()
        index = self._count.get(key, 0)
        self._count[key] = index + 1
        edges = self.landscape.edges
        if key in self.flaky:
            if index > 0:
                return Measurement(config, Status.WRONG, edges=edges, reason="synthetic: flaky configuration")
            kernel_ms = {k: v * 0.2 for k, v in self.landscape.kernel_ms(config).items()}
            return Measurement(config, Status.OK, times_ms=(sum(kernel_ms.values()),) * self.repetitions,
                               kernel_ms=kernel_ms, iterations=self.landscape.iterations, edges=edges)
        status, reason = self.landscape.status(config)
        if status is not Status.OK:
            return Measurement(config, status, edges=edges, reason=reason)
        kernel_ms = self.landscape.kernel_ms(config)
        scale = [1 + self.noise * _unit_noise(self.seed, key, index, r) for r in range(self.repetitions)]
        total = sum(kernel_ms.values())
        return asked_along(Measurement(
            config,
            Status.OK,
            times_ms=tuple(total * s for s in scale),
            kernel_ms={k: v * scale[0] for k, v in kernel_ms.items()} if profile else {},
            iterations=self.landscape.iterations,
            edges=edges,
            launch_share=0.1,
            warm_up_ms=total * scale[0],
        ), stop)
