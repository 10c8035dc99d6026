"""ReplayTimer: a `Timer` that answers from recorded measurements instead of a GPU.

Like Kernel Tuner's simulation mode, it lets every strategy run, be compared and be tested on a
machine without a GPU, on real measurements taken earlier.

What it answers, in order:

1. **Recorded.** A configuration with records is answered with them; a configuration recorded
   `n` times is answered with its records in turn (the k-th request gets record k mod n), so a
   replay of a live sweep's records sees the same re-measurements in the same order.
2. **Composed** (approximation; `compose=True`, the default). A configuration that is not
   recorded, but whose kernels each appear in a recorded *uniform* run (one block size and cache
   for all kernels) with the same CK, lanes and parameters, is composed from those runs, as the
   thesis's exhaustive search composes its winner (4.6)::

       kernel_ms[k] = kernel_ms[k] of uniform(block_k, cache_k, CK, L, params)   for each kernel k
       other_ms     = median over those uniform runs of ms_per_sssp - the sum of their kernel_ms
       ms_per_sssp  = sum of the kernel_ms[k] + other_ms

   `other_ms` is what lies outside the tuned kernels: the init kernel, launch gaps and the host's
   polling. The repetitions' times are the first kernel's run's times scaled to that total, so the
   spread of a real run is kept. A composition uses the first ok record of each uniform run;
   when one of them is not ok, the configuration is not composable.
3. **Not recorded.** Anything else is `INVALID` with the reason `"not recorded in the replayed
   records"`, so a search over a larger space than was recorded goes on (the sampler learns
   that the point failed), and the sweep's summary counts these. With `strict=True` it raises
   `InputError` instead.

A `stop` callback (the search's pruning) is asked after the recorded warm-up (when the record
holds its time) and after each recorded repetition, as a GPU timer asks after each batch; a
stopped answer is PRUNED with what came before, so a replay shows what pruning would have saved
(`ReplayStats.pruned`, and the `wall_s` the records give); ENOUGH keeps the repetitions so far. A
`limit_ms` and `profile` are not replayed: the records hold what was measured.

Example:
    >>> timer = ReplayTimer(read_records("records.jsonl"))               # doctest: +SKIP
    >>> timer.measure(get("crauser").default_config()).ms_per_sssp      # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.launch import LaunchConfig
from autotune.measure import Measurement, Status, StopAsk, Timer, asked_along
from autotune.search.results.records import NOT_RECORDED, Record



def _share(answer: Measurement, full: Measurement) -> float:
    """The share of `full`'s repetitions that `answer` (the same, or pruned from it) served."""
    if answer is full or not full.times_ms:
        return 1.0
    return len(answer.times_ms) / len(full.times_ms)


def recorded_space(records: Sequence[Record]) -> dict[str, Any]:
    """The space the records' search covered, as `SearchSpace.from_options` texts: every block
    size, cache state, CK, lanes value and parameter value of the records of phase `search` (of
    all records when none is). A replay searches this space unless told otherwise, so it does not
    ask for configurations the records cannot answer."""
    chosen = [r for r in records if r.phase == "search"] or list(records)
    configs = [r.measurement.config for r in chosen]
    blocks = sorted({k.block_size for c in configs for k in c.kernels.values()})
    caches = list(dict.fromkeys(k.cache.value for c in configs for k in c.kernels.values()))
    entry = algorithms.get(configs[0].algorithm)
    params = []
    for parameter in entry.parameters:
        values = parameter.parse(",".join(str(c.param(parameter.name)) for c in configs), "records")
        params.append(f"{parameter.name}={','.join(map(str, values))}")
    return {
        "block_sizes": ",".join(map(str, blocks)),
        "caches": ",".join(caches),
        "ck": ",".join(map(str, sorted({c.concurrent_kernels for c in configs}))),
        "lanes": ",".join(map(str, sorted({c.lanes for c in configs}))),
        "params": params,
    }


@dataclass(frozen=True)
class ReplayStats:
    """What a replay answered: from records, composed, or not recorded; and how many it pruned."""

    recorded: int
    composed: int
    not_recorded: int
    pruned: int = 0

    def to_json(self) -> dict[str, int]:
        data = {"recorded": self.recorded, "composed": self.composed, "not_recorded": self.not_recorded}
        if self.pruned:
            data["pruned"] = self.pruned
        return data


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
        digests = {r.graph.key for r in records}
        if len(digests) > 1:
            raise InputError(f"replay: the records mix {len(digests)} graphs; select one graph's records")
        self.records = tuple(records)
        self.compose = compose
        self.strict = strict
        self._by_key: dict[str, list[Measurement]] = defaultdict(list)
        self._walls: dict[str, list[float]] = defaultdict(list)  # the records' wall times, in the same order
        for record in records:
            key = record.measurement.config.key()
            self._by_key[key].append(record.measurement)
            self._walls[key].append(record.wall_s or 0.0)
        self._served: dict[str, int] = defaultdict(int)
        self._recorded = self._composed = self._not_recorded = self._pruned = 0
        self.last_wall_s = 0.0  # the recorded wall time of the last answer (its share when pruned)

    @classmethod
    def select(cls, records: Iterable[Record], graph: str, algorithm: str | None = None) -> list[Record]:
        """The records of one graph (by name or sha256) and, if given, one algorithm."""
        return [r for r in records if graph in (r.graph.name, r.graph.sha256)
                and (algorithm is None or r.algorithm == algorithm)]

    @property
    def stats(self) -> ReplayStats:
        return ReplayStats(self._recorded, self._composed, self._not_recorded, self._pruned)

    def measure(self, config: LaunchConfig, stop: StopAsk | None = None, *, limit_ms: float | None = None,
                profile: bool = True) -> Measurement:
        key = config.key()
        measurements = self._by_key.get(key)
        if measurements:
            index = self._served[key] % len(measurements)
            turn = self._served[key]
            self._served[key] += 1
            self._recorded += 1
            answer = self._stopped(measurements[index], stop, turn)
            self.last_wall_s = self._walls[key][index] * _share(answer, measurements[index])
            return answer
        why = "composing is off"
        if self.compose:
            composed, why = self._composed_measurement(config)
            if composed is not None:
                self._composed += 1
                answer = self._stopped(composed, stop)
                walls = [w for u in self._uniforms(config).values() for w in self._walls.get(u.key(), ())[:1]]
                self.last_wall_s = max(walls, default=0.0) * _share(answer, composed)
                return answer
        if self.strict:
            raise InputError(f"replay: {config} is {NOT_RECORDED} ({why})")
        self._not_recorded += 1
        self.last_wall_s = 0.0
        edges = self.records[0].measurement.edges
        return Measurement(config, Status.INVALID, edges=edges, reason=f"{NOT_RECORDED} ({why})")

    def price(self, config: LaunchConfig) -> tuple[float, str] | None:
        """What `config` costs on the records' graph, without serving it: the median time per
        SSSP of its verified records ("recorded"), else its composition ("composed"); None when
        neither exists (it was never measured, or never measured ok). Prices every configuration
        of one graph the same way, for checks that compare them (the benchmark suites `lookup` and `model`)."""
        times = [m.ms_per_sssp for m in self._by_key.get(config.key(), ()) if m.ok and m.ms_per_sssp is not None]
        if times:
            return statistics.median(times), "recorded"
        if self.compose:
            composed, _ = self._composed_measurement(config)
            if composed is not None and composed.ms_per_sssp is not None:
                return composed.ms_per_sssp, "composed"
        return None

    def best_price(self) -> float:
        """The lowest `price` of any configuration the records measured ok: the graph's best, priced
        as every configuration is."""
        prices = (self.price(r.measurement.config) for r in self.records if r.measurement.ok)
        return min(p[0] for p in prices if p is not None)

    def _stopped(self, measurement: Measurement, stop: StopAsk | None, turn: int = 0) -> Measurement:
        """The measurement as a timer asked to `stop` would have returned it (`measure.asked_along`).
        The `turn`-th answer for a configuration starts at its record's repetition `turn` (mod their
        count), so that shortened answers (re-measurement rounds of one repetition) see every
        recorded repetition, not only the first of each record."""
        if stop is None or not measurement.ok:
            return measurement
        if measurement.times_ms:
            start = turn % len(measurement.times_ms)
            measurement = dataclasses.replace(measurement, times_ms=measurement.times_ms[start:] + measurement.times_ms[:start])
        answer = asked_along(measurement, stop)
        if answer.status is Status.PRUNED:
            self._pruned += 1
        return answer

    def _uniforms(self, config: LaunchConfig) -> dict[str, LaunchConfig]:
        """Per kernel of `config`, the uniform run (every kernel at its launch) its composition reads."""
        entry = algorithms.get(config.algorithm)
        return {kernel: entry.uniform(launch.block_size, launch.cache, config.concurrent_kernels, config.lanes,
                                      config.params) for kernel, launch in config.kernels.items()}

    def _first_ok(self, config: LaunchConfig) -> Measurement | None:
        for measurement in self._by_key.get(config.key(), ()):
            if measurement.ok and measurement.times_ms:
                return measurement
        return None

    def _composed_measurement(self, config: LaunchConfig) -> tuple[Measurement | None, str]:
        parts: dict[str, Measurement] = {}
        for kernel, uniform in self._uniforms(config).items():
            found = self._first_ok(uniform)
            if found is None or kernel not in found.kernel_ms:
                launch = config.kernels[kernel]
                return None, (f"no ok uniform run {launch.block_size}:{launch.cache.value} at CK "
                              f"{config.concurrent_kernels}, L {config.lanes}")
            parts[kernel] = found
        kernels = algorithms.get(config.algorithm).kernels
        kernel_ms = {k: parts[k].kernel_ms[k] for k in kernels}
        others = []
        for part in {id(m): m for m in parts.values()}.values():
            others.append(part.ms_per_sssp - sum(part.kernel_ms.get(k, 0.0) for k in kernels))
        other_ms = statistics.median(others)
        total_ms = sum(kernel_ms.values()) + other_ms
        first = parts[kernels[0]]
        scale = total_ms / first.ms_per_sssp if first.ms_per_sssp else 1.0
        if "other" in first.kernel_ms:
            kernel_ms["other"] = statistics.median(p.kernel_ms.get("other", 0.0) for p in parts.values())
        return Measurement(
            config,
            Status.OK,
            times_ms=tuple(t * scale for t in first.times_ms),
            kernel_ms=kernel_ms,
            iterations=first.iterations,
            edges=first.edges,
            launch_share=first.launch_share,
        ), ""


class DelayedReplay:
    """A replay timer that takes `delay_s` per measurement, plus `pace` times the wall time the
    answering record took (a fleet's workers then really overlap, and `pace` keeps the recorded
    proportions between measurements: an estimate of a fleet's scaling on a CPU)."""

    def __init__(self, timer: ReplayTimer, delay_s: float, pace: float = 0.0) -> None:
        self.timer = timer
        self.delay_s = delay_s
        self.pace = pace

    @property
    def stats(self) -> Any:
        return self.timer.stats

    def measure(self, config: Any, stop: Any = None, **options: Any) -> Any:
        measurement = self.timer.measure(config, stop, **options)
        time.sleep(self.delay_s + self.pace * self.timer.last_wall_s)
        return measurement


def replay_timer(records: Sequence[Record], delay_s: float = 0.0, pace: float = 0.0) -> Timer:
    """A `ReplayTimer` of one graph's and algorithm's records, `delay_s` plus `pace` x the
    recorded wall time per measurement (`DelayedReplay`)."""
    timer = ReplayTimer(list(records))
    return DelayedReplay(timer, delay_s, pace) if delay_s or pace else timer
