"""Gains, pure computations: the tuned solve against the baseline and the default, and each kernel's
best configuration against them (the form of thesis Table 4.4).

Definitions (the README states them too):

- A configuration's times are its measurements pooled (`ConfigResult.pool`: the median of every
  repetition; per kernel, the median of its measurements' kernel times), over every record of the
  graph in the inputs. Only configurations whose every measurement was ok count.
- *Kernel best* (Table 4.4): for each kernel, the configuration whose pooled time of that kernel
  is the lowest. All kernels of a solve share CK and L, so the three kernel bests may come from
  different configurations, as the thesis's per-kernel tables do.
- *Baseline* per kernel: of the baseline candidates (thesis 4.6.1), the slowest for that kernel
  (the thesis's baseline block size differs per kernel); for the whole solve, the slowest
  candidate (the table's `baseline`).
- *Gain* = 1 - best / reference (the thesis's "percentage of performance gain": 58 % = 2.4x);
  *speedup* = reference / best.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping, Sequence

from autotune.report.load import Run
from autotune.search.results.records import Record
from autotune.search.results import ConfigResult
from autotune.algorithms import get
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig
from autotune.report.thesis import THESIS_KERNELS
from autotune.table.entry import CurvePoint, Entry


def pooled(records: Iterable[Record]) -> dict[LaunchConfig, ConfigResult]:
    """Every configuration measured, its measurements pooled."""
    groups: dict[LaunchConfig, list[Any]] = {}
    for record in records:
        groups.setdefault(record.measurement.config, []).append(record.measurement)
    return {config: ConfigResult.pool(measurements) for config, measurements in groups.items()}


def graph_records(runs: Sequence[Run]) -> list[Record]:
    """Every record of a graph's runs."""
    return [record for run in runs for record in run.records]


@dataclass(frozen=True)
class Measured:
    """Every record of one graph's runs, and each configuration's measurements pooled (computed
    once per graph and shared by every section).

    Args:
        records: the records, run after run.
        configs: configuration -> its pooled result.
    """

    records: tuple[Record, ...]
    configs: Mapping[LaunchConfig, ConfigResult]

    @classmethod
    def of(cls, runs: Sequence[Run]) -> Measured:
        records = tuple(graph_records(runs))
        return cls(records, pooled(records))

    @cached_property
    def ok(self) -> list[ConfigResult]:
        """The pooled results whose every measurement was ok, in a stable order."""
        return sorted((r for r in self.configs.values() if r.ok), key=lambda r: r.config)

    def ok_result(self, config: LaunchConfig | None) -> ConfigResult | None:
        """The pooled result of `config` when it was measured ok."""
        found = self.configs.get(config) if config is not None else None
        return found if found is not None and found.ok else None


def role_configs(records: Iterable[Record], role: str) -> list[LaunchConfig]:
    """The configurations the records were measured as `role` (default, baseline_candidate, prediction)."""
    return list(dict.fromkeys(r.measurement.config for r in records if role in r.roles))


def kernel_label(config: LaunchConfig, kernel: str) -> str:
    """Thesis Table 4.4's `block-CK-L1` for one kernel of a configuration, with `-L<lanes>` for relax."""
    launch = config.kernels[kernel]
    lanes = f"-L{launch.lanes}" if kernel == "relax" else ""
    return f"{launch.block_size}-{config.concurrent_kernels}-{launch.cache.value}{lanes}"


def gain(best: float | None, reference: float | None) -> float | None:
    """1 - best / reference (None when either is missing)."""
    if best is None or reference is None or reference <= 0:
        return None
    return 1.0 - best / reference


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


@dataclass(frozen=True)
class KernelPoint:
    """One kernel's time in one configuration."""

    config: LaunchConfig
    kernel: str
    kernel_ms: float

    @property
    def label(self) -> str:
        return kernel_label(self.config, self.kernel)

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.to_json(), "label": self.label, "kernel_ms": self.kernel_ms}


@dataclass(frozen=True)
class KernelGain:
    """One graph's row of one kernel's Table 4.4.

    Args:
        graph: the graph's name.
        kernel: relax, minimum or update.
        best: the kernel's best configuration and time.
        baseline: the slowest baseline candidate for this kernel.
        default: the default configuration.
        solve: the kernel in the tuned solve's best configuration.
    """

    graph: str
    kernel: str
    best: KernelPoint
    baseline: KernelPoint | None = None
    default: KernelPoint | None = None
    solve: KernelPoint | None = None

    @property
    def gain_over_baseline(self) -> float | None:
        return gain(self.best.kernel_ms, self.baseline.kernel_ms if self.baseline else None)

    @property
    def gain_over_default(self) -> float | None:
        return gain(self.best.kernel_ms, self.default.kernel_ms if self.default else None)

    @property
    def solve_gain_over_baseline(self) -> float | None:
        return gain(self.solve.kernel_ms if self.solve else None, self.baseline.kernel_ms if self.baseline else None)

    def to_json(self) -> dict[str, Any]:
        def part(point: KernelPoint | None) -> dict[str, Any] | None:
            return None if point is None else point.to_json()

        return {"graph": self.graph, "kernel": self.kernel, "best": part(self.best), "baseline": part(self.baseline),
                "default": part(self.default), "solve": part(self.solve),
                "gain_over_baseline": self.gain_over_baseline, "gain_over_default": self.gain_over_default}


@dataclass(frozen=True)
class SolveGain:
    """One graph's whole solve: the tuned best against the baseline, the default and the model.

    Args:
        graph: the graph's name.
        strategy: the strategy whose best is fastest.
        best_config, best_ms: that best configuration and its ms per SSSP.
        baseline_config, baseline_ms: the baseline (slowest candidate) and its time.
        default_ms: the default configuration's time.
        model_config, model_ms: the model's prediction and its measured time (None if not measured).
        by_strategy: every strategy's best ms per SSSP.
    """

    graph: str
    strategy: str
    best_config: LaunchConfig
    best_ms: float
    baseline_config: LaunchConfig | None = None
    baseline_ms: float | None = None
    default_ms: float | None = None
    model_config: LaunchConfig | None = None
    model_ms: float | None = None
    by_strategy: Mapping[str, float] | None = None

    @property
    def speedup_over_baseline(self) -> float | None:
        return ratio(self.baseline_ms, self.best_ms)

    @property
    def speedup_over_default(self) -> float | None:
        return ratio(self.default_ms, self.best_ms)

    @property
    def gain_over_baseline(self) -> float | None:
        return gain(self.best_ms, self.baseline_ms)

    @property
    def model_gap(self) -> float | None:
        """How much slower the predicted configuration ran than the best: 0.05 = 5 % slower."""
        value = ratio(self.model_ms, self.best_ms)
        return None if value is None else value - 1.0

    def to_json(self) -> dict[str, Any]:
        def config(value: LaunchConfig | None) -> dict[str, Any] | None:
            return None if value is None else value.to_json()

        return {"graph": self.graph, "strategy": self.strategy, "best_config": config(self.best_config),
                "best_ms": self.best_ms, "baseline_config": config(self.baseline_config),
                "baseline_ms": self.baseline_ms, "default_ms": self.default_ms,
                "model_config": config(self.model_config), "model_ms": self.model_ms,
                "speedup_over_baseline": self.speedup_over_baseline,
                "speedup_over_default": self.speedup_over_default, "gain_over_baseline": self.gain_over_baseline,
                "model_gap": self.model_gap, "by_strategy": dict(self.by_strategy or {})}


def _part(entry: Entry | None, key: str) -> CurvePoint | None:
    part = entry.parts.get(key) if entry else None
    return part if part is not None and part.ms_per_sssp is not None else None


def _config(part: CurvePoint | None) -> LaunchConfig | None:
    return None if part is None else LaunchConfig.from_json(part.config_json, "table entry")


def solve_gain(runs: Sequence[Run], measured: Measured | None = None) -> SolveGain | None:
    """The whole solve's gains of one graph (None when nothing was measured ok).

    The best is the fastest of the runs' bests (a table's `best`, else the fastest pooled
    configuration of a run's records); baseline, default and model come from that run's table
    entry, else from the pooled records of every run (by their roles).
    """
    measured = measured or Measured.of(runs)
    records = measured.records
    bests: dict[str, tuple[float, LaunchConfig, Run]] = {}
    for run in runs:
        part = _part(run.entry, "best")
        if part is not None:
            bests[run.strategy] = (float(part.ms_per_sssp), _config(part), run)
            continue
        ok = [r for r in pooled(run.records).values() if r.ok]
        if ok:
            fastest = min(ok, key=lambda r: (r.ms_per_sssp, r.config))
            bests[run.strategy] = (fastest.ms_per_sssp, fastest.config, run)
    if not bests:
        return None
    strategy, (best_ms, best_config, run) = min(bests.items(), key=lambda item: (item[1][0], item[0]))
    entries = [run.entry] + [r.entry for r in runs if r.entry is not None and r is not run]

    def from_entries(key: str) -> CurvePoint | None:
        return next((p for p in (_part(e, key) for e in entries) if p is not None), None)

    baseline_part, default_part, model_part = from_entries("baseline"), from_entries("default"), from_entries("model")
    baseline_config, baseline_ms = _config(baseline_part), baseline_part.ms_per_sssp if baseline_part else None
    if baseline_part is None:
        candidates = [c for c in map(measured.ok_result, role_configs(records, "baseline_candidate")) if c]
        if candidates:
            slowest = max(candidates, key=lambda r: (r.ms_per_sssp, r.config))
            baseline_config, baseline_ms = slowest.config, slowest.ms_per_sssp
    default_ms = default_part.ms_per_sssp if default_part else None
    if default_ms is None:
        found = measured.ok_result(get(DEFAULT_ALGORITHM).default_config())
        default_ms = found.ms_per_sssp if found else None
    model_config = next((_config(e.predicted) for e in entries if e and e.predicted), None)
    if model_config is None:
        model_config = next(iter(role_configs(records, "prediction")), None)
    model_ms = model_part.ms_per_sssp if model_part else None
    if model_ms is None:
        found = measured.ok_result(model_config)
        model_ms = found.ms_per_sssp if found else None
    return SolveGain(graph=runs[0].graph.name, strategy=strategy, best_config=best_config, best_ms=best_ms,
                     baseline_config=baseline_config, baseline_ms=baseline_ms, default_ms=default_ms,
                     model_config=model_config, model_ms=model_ms,
                     by_strategy={name: value[0] for name, value in sorted(bests.items())})


def _entry_kernel_point(entry: Entry | None, key: str, kernel: str) -> KernelPoint | None:
    part = _part(entry, key)
    if part is None or kernel not in part.get("kernel_ms", {}):
        return None
    return KernelPoint(_config(part), kernel, float(part.get("kernel_ms")[kernel]))


def kernel_gains(runs: Sequence[Run], solve: SolveGain | None = None,
                 measured: Measured | None = None) -> list[KernelGain]:
    """One graph's rows of Table 4.4, one per kernel (see the module docstring).

    Without records the kernel best is the kernel in the table's best configuration.
    """
    measured = measured or Measured.of(runs)
    pool = measured.ok
    candidates = [r for r in map(measured.ok_result, role_configs(measured.records, "baseline_candidate")) if r]
    default = measured.ok_result(get(DEFAULT_ALGORITHM).default_config())
    entries = [r.entry for r in runs if r.entry is not None]
    solve_result = measured.ok_result(solve.best_config) if solve else None
    rows = []
    for kernel in THESIS_KERNELS:
        timed = [r for r in pool if kernel in r.kernel_ms]
        best: KernelPoint | None = None
        if timed:
            fastest = min(timed, key=lambda r: (r.kernel_ms[kernel], r.config))
            best = KernelPoint(fastest.config, kernel, fastest.kernel_ms[kernel])
        solve_point = (KernelPoint(solve_result.config, kernel, solve_result.kernel_ms[kernel])
                       if solve_result is not None and kernel in solve_result.kernel_ms else None)
        if solve_point is None and solve is not None:
            solve_point = next((p for p in (_entry_kernel_point(e, "best", kernel) for e in entries)
                                if p is not None and p.config == solve.best_config), None)
        best = best or solve_point
        if best is None:
            continue
        timed_candidates = [r for r in candidates if kernel in r.kernel_ms]
        if timed_candidates:
            slowest = max(timed_candidates, key=lambda r: (r.kernel_ms[kernel], r.config))
            baseline = KernelPoint(slowest.config, kernel, slowest.kernel_ms[kernel])
        else:
            baseline = next((p for p in (_entry_kernel_point(e, "baseline", kernel) for e in entries) if p), None)
        if default is not None and kernel in default.kernel_ms:
            default_point = KernelPoint(default.config, kernel, default.kernel_ms[kernel])
        else:
            default_point = next((p for p in (_entry_kernel_point(e, "default", kernel) for e in entries) if p), None)
        rows.append(KernelGain(runs[0].graph.name, kernel, best, baseline, default_point, solve_point))
    return rows
