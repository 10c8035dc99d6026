"""ReplayTimer: a `Timer` that answers from recorded measurements instead of a GPU.

Like Kernel Tuner's simulation mode, it lets every strategy run, be compared and be tested on a
machine without a GPU, on real measurements taken earlier.

What it answers, in order:

1. **Recorded.** A configuration with records is answered with them; a configuration recorded
   `n` times is answered with its records in turn (the k-th request gets record k mod n), so a
   replay of a live sweep's records sees the same re-measurements in the same order.
2. **Composed** (approximation; `compose=True`, the default). A configuration that is not
   recorded, but whose kernels each appear in a recorded *uniform* run (one block size and cache
   for all kernels) at the same CK and L, is composed from those runs, as the thesis's
   exhaustive search composes its winner (4.6)::

       kernel_ms[k] = kernel_ms[k] of uniform(block_k, cache_k, CK, L)      for k in relax, minimum, update
       other_ms     = median over those (one to three) uniform runs of
                      ms_per_sssp - (kernel_ms[relax] + kernel_ms[minimum] + kernel_ms[update])
       ms_per_sssp  = sum of the kernel_ms[k] + other_ms

   `other_ms` is what lies outside the three tuned kernels: the init kernel, launch gaps and the
   host's polling. The repetitions' times are the relax run's times scaled to that total, so the
   spread of a real run is kept. A composition uses the first ok record of each uniform run;
   when one of them is not ok, the configuration is not composable.
3. **Not recorded.** Anything else is `INVALID` with the reason `"not recorded in the replayed
   records"`, so a search over a larger space than was recorded goes on (the sampler learns
   that the point failed), and the sweep's summary counts these. With `strict=True` it raises
   `InputError` instead.

Example:
    >>> timer = ReplayTimer(read_records("records.jsonl"))  # doctest: +SKIP
    >>> timer.measure(LaunchConfig.default()).ms_per_sssp   # doctest: +SKIP
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from autotune.errors import InputError
from autotune.measure import Measurement, Status
from autotune.search.records import Record
from autotune.space import TUNED_KERNELS, LaunchConfig

NOT_RECORDED = "not recorded in the replayed records"


def recorded_space(records: Sequence[Record]) -> dict[str, str]:
    """The space the records' search covered, as `SearchSpace.from_options` texts: every block
    size, cache state, CK and lanes value of the records of phase `search` (of all records when
    none is). A replay searches this space unless told otherwise, so it does not ask for
    configurations the records cannot answer."""
    chosen = [r for r in records if r.phase == "search"] or list(records)
    configs = [r.measurement.config for r in chosen]
    blocks = sorted({k.block_size for c in configs for k in c.kernels.values()})
    caches = list(dict.fromkeys(k.cache.value for c in configs for k in c.kernels.values()))
    return {
        "block_sizes": ",".join(map(str, blocks)),
        "caches": ",".join(caches),
        "ck": ",".join(map(str, sorted({c.concurrent_kernels for c in configs}))),
        "lanes": ",".join(map(str, sorted({c.lanes for c in configs}))),
    }


@dataclass(frozen=True)
class ReplayStats:
    """What a replay answered: from records, composed, or not recorded."""

    recorded: int
    composed: int
    not_recorded: int

    def to_json(self) -> dict[str, int]:
        return {"recorded": self.recorded, "composed": self.composed, "not_recorded": self.not_recorded}


class ReplayTimer:
    """Answers `measure(config)` from records of one graph (see the module docstring).

    Args:
        records: records of one graph, algorithm and device (use `select()` to pick them).
        compose: compose unrecorded configurations from uniform runs (documented approximation).
        strict: raise `InputError` for a configuration it cannot answer, instead of INVALID.

    Raises:
        InputError: when `records` is empty or mixes graphs.
    """

    def __init__(self, records: Sequence[Record], compose: bool = True, strict: bool = False) -> None:
        if not records:
            raise InputError("replay: no records to replay")
        digests = {r.graph.sha256 or r.graph.name for r in records}
        if len(digests) > 1:
            raise InputError(f"replay: the records mix {len(digests)} graphs; select one graph's records")
        self.records = tuple(records)
        self.compose = compose
        self.strict = strict
        self._by_key: dict[str, list[Measurement]] = defaultdict(list)
        for record in records:
            self._by_key[record.measurement.config.key()].append(record.measurement)
        self._served: dict[str, int] = defaultdict(int)
        self._recorded = self._composed = self._not_recorded = 0

    @classmethod
    def select(cls, records: Iterable[Record], graph: str, algorithm: str | None = None) -> list[Record]:
        """The records of one graph (by name or sha256) and, if given, one algorithm."""
        return [r for r in records if graph in (r.graph.name, r.graph.sha256)
                and (algorithm is None or r.algorithm == algorithm)]

    @property
    def stats(self) -> ReplayStats:
        return ReplayStats(self._recorded, self._composed, self._not_recorded)

    def recorded_configs(self) -> list[LaunchConfig]:
        """Every recorded configuration, in first-recorded order."""
        return [measurements[0].config for measurements in self._by_key.values()]

    def measure(self, config: LaunchConfig) -> Measurement:
        key = config.key()
        measurements = self._by_key.get(key)
        if measurements:
            index = self._served[key] % len(measurements)
            self._served[key] += 1
            self._recorded += 1
            return measurements[index]
        why = "composing is off"
        if self.compose:
            composed, why = self._composed_measurement(config)
            if composed is not None:
                self._composed += 1
                return composed
        if self.strict:
            raise InputError(f"replay: {config} is {NOT_RECORDED} ({why})")
        self._not_recorded += 1
        edges = self.records[0].measurement.edges
        return Measurement(config, Status.INVALID, edges=edges, reason=f"{NOT_RECORDED} ({why})")

    def _first_ok(self, config: LaunchConfig) -> Measurement | None:
        for measurement in self._by_key.get(config.key(), ()):
            if measurement.ok and measurement.times_ms:
                return measurement
        return None

    def _composed_measurement(self, config: LaunchConfig) -> tuple[Measurement | None, str]:
        ck, lanes = config.concurrent_kernels, config.lanes
        parts: dict[str, Measurement] = {}
        for kernel, launch in config.kernels.items():
            uniform = LaunchConfig.uniform(launch.block_size, launch.cache, ck, lanes)
            found = self._first_ok(uniform)
            if found is None or kernel not in found.kernel_ms:
                return None, f"no ok uniform run {launch.block_size}:{launch.cache.value} at CK {ck}, L {lanes}"
            parts[kernel] = found
        kernel_ms = {k: parts[k].kernel_ms[k] for k in TUNED_KERNELS}
        others = []
        for part in {id(m): m for m in parts.values()}.values():
            others.append(part.ms_per_sssp - sum(part.kernel_ms.get(k, 0.0) for k in TUNED_KERNELS))
        other_ms = statistics.median(others)
        total_ms = sum(kernel_ms.values()) + other_ms
        relax = parts["relax"]
        scale = total_ms / relax.ms_per_sssp if relax.ms_per_sssp else 1.0
        if "other" in relax.kernel_ms:
            kernel_ms["other"] = statistics.median(p.kernel_ms.get("other", 0.0) for p in parts.values())
        return Measurement(
            config,
            Status.OK,
            times_ms=tuple(t * scale for t in relax.times_ms),
            kernel_ms=kernel_ms,
            iterations=relax.iterations,
            edges=relax.edges,
            launch_share=relax.launch_share,
        ), ""
