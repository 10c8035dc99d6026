"""The model against the measurement, pure computations: per graph, kernel and tuned value, the
model's value against the kernel best's (thesis Study II, 4.6.5), which rule chose it, and what
following it costs; and thesis Study I (4.6.4): whether the best block size and L1 state at CK 1
stay the best at the kernel's best CK.

- *Hit*: the predicted value equals the kernel best's value.
- *Cost* of a predicted value: the kernel's lowest pooled time over the configurations measured
  with that value and the kernel best's solve-wide values (its CK, unless CK is the value
  checked; for relax also its L, unless L is), over the kernel's best time, minus 1: the price of
  that value other things equal, not of a CK that came with it. None when no such configuration
  was measured (the value was not searched there).
- *Held*: a hit, or a cost within `NEAR` (2 %). The thesis counts unmatched values within 1 % as
  proper (4.6.5); GPU timing noise on a shared host is about 1-2 %, hence 2 %.
- The predicted CK per kernel is the kernel's own preference (4.6.4, from its memory-accesses
  class); the solve runs the smallest of the three.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from autotune.report.analysis import KernelGain, KernelPoint, Measured, SolveGain
from autotune.report.load import Run
from autotune.search.results import ConfigResult
from autotune.launch import LaunchConfig

NEAR = 0.02
PARAMETERS = ("block_size", "cache", "concurrent_kernels", "lanes")
PARAMETER_TITLES = {"block_size": "block size", "cache": "L1 state", "concurrent_kernels": "CK", "lanes": "L"}


def parameter_value(config: LaunchConfig, kernel: str, parameter: str) -> int | str:
    """The value of `parameter` for `kernel` in `config` (CK and L are the solve's)."""
    if parameter == "concurrent_kernels":
        return config.concurrent_kernels
    if parameter == "lanes":
        return config.lanes
    launch = config.kernels[kernel]
    return launch.block_size if parameter == "block_size" else launch.cache.value


def parameters_of(kernel: str) -> tuple[str, ...]:
    """The tuned values of a kernel: lanes only for relax."""
    return PARAMETERS if kernel == "relax" else PARAMETERS[:3]


@dataclass(frozen=True)
class ParameterCheck:
    """One predicted value of one kernel on one graph, against the measurement.

    Args:
        graph: the graph's name.
        kernel: relax, minimum or update.
        parameter: block_size, cache, concurrent_kernels or lanes.
        predicted: the model's value.
        best: the kernel best's value.
        rule: the rule that chose the predicted value ("4.6.5 (1)ii", ...), when known.
        cost: see the module docstring.
        stress_class, degree_class: the graph's classes, when known.
    """

    graph: str
    kernel: str
    parameter: str
    predicted: int | str
    best: int | str
    rule: str | None = None
    cost: float | None = None
    stress_class: str | None = None
    degree_class: str | None = None

    @property
    def hit(self) -> bool:
        return self.predicted == self.best

    @property
    def searched(self) -> bool:
        return self.hit or self.cost is not None

    @property
    def held(self) -> bool:
        return self.hit or (self.cost is not None and self.cost <= NEAR)

    @property
    def direction(self) -> str:
        """Where the best lies from the prediction: `hit`, `larger`, `smaller`, or the best's value."""
        if self.hit:
            return "hit"
        if isinstance(self.best, int) and isinstance(self.predicted, int):
            return "larger" if self.best > self.predicted else "smaller"
        return str(self.best)

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "kernel": self.kernel, "parameter": self.parameter,
                "predicted": self.predicted, "best": self.best, "rule": self.rule, "cost": self.cost,
                "hit": self.hit, "held": self.held, "searched": self.searched}


@dataclass(frozen=True)
class ModelCheck:
    """One graph's prediction against the measurement.

    Args:
        graph: the graph's name.
        predicted: the predicted configuration.
        checks: per kernel and value.
        kernel_gaps: per kernel, the predicted configuration's kernel time over the kernel best's,
            minus 1 (None where the prediction was not measured).
        solve_gap: the predicted configuration's ms per SSSP over the tuned best's, minus 1.
    """

    graph: str
    predicted: LaunchConfig
    checks: tuple[ParameterCheck, ...]
    kernel_gaps: Mapping[str, float | None]
    solve_gap: float | None

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "predicted": self.predicted.to_json(),
                "checks": [c.to_json() for c in self.checks], "kernel_gaps": dict(self.kernel_gaps),
                "solve_gap": self.solve_gap}


def _kernel_ck_preferences(classes: Mapping[str, Any] | None) -> dict[str, int]:
    from autotune.model.characterization import Level
    from autotune.algorithms.thesis.rules import CONCURRENT_KERNELS_BY_MEMORY_ACCESSES

    out = {}
    for kernel, values in (classes or {}).items():
        try:
            out[kernel] = CONCURRENT_KERNELS_BY_MEMORY_ACCESSES[Level(values["memory_accesses"])]
        except (KeyError, ValueError, TypeError):
            continue
    return out


def _same_solve_values(config: LaunchConfig, best: LaunchConfig, kernel: str, parameter: str) -> bool:
    """Whether `config` has the best's CK (and, for relax, L), leaving out the value checked."""
    held = [p for p in ("concurrent_kernels", "lanes") if p != parameter and p in parameters_of(kernel)]
    return all(parameter_value(config, kernel, p) == parameter_value(best, kernel, p) for p in held)


def _cost(pool: Sequence[ConfigResult], kernel: str, parameter: str, value: int | str, best: KernelPoint
          ) -> float | None:
    best_ms = best.kernel_ms
    times = [r.kernel_ms[kernel] for r in pool if kernel in r.kernel_ms
             and parameter_value(r.config, kernel, parameter) == value
             and _same_solve_values(r.config, best.config, kernel, parameter)]
    return min(times) / best_ms - 1.0 if times and best_ms > 0 else None


def check_model(runs: Sequence[Run], solve: SolveGain | None, kernels: Sequence[KernelGain],
                measured: Measured | None = None) -> ModelCheck | None:
    """Check one graph's prediction (None when the inputs hold no prediction)."""
    if solve is None or solve.model_config is None:
        return None
    predicted = solve.model_config
    details = next((r.entry.predicted.to_json() for r in runs if r.entry and r.entry.predicted), {})
    rules: Mapping[str, str] = details.get("rules", {})
    ck_preferences = _kernel_ck_preferences(details.get("classes"))
    measured = measured or Measured.of(runs)
    pool = measured.ok
    result = measured.configs.get(predicted)
    graph = runs[0].graph
    checks, gaps = [], {}
    for row in kernels:
        kernel = row.kernel
        for parameter in parameters_of(kernel):
            value = parameter_value(predicted, kernel, parameter)
            rule = rules.get(f"{kernel}.{parameter}") or rules.get(parameter)
            if parameter == "concurrent_kernels" and kernel in ck_preferences:
                value = ck_preferences[kernel]
            checks.append(ParameterCheck(
                graph=graph.name, kernel=kernel, parameter=parameter, predicted=value,
                best=parameter_value(row.best.config, kernel, parameter), rule=rule,
                cost=_cost(pool, kernel, parameter, value, row.best),
                stress_class=graph.stress_class, degree_class=graph.degree_class))
        model_ms = result.kernel_ms.get(kernel) if result is not None and result.ok else None
        if model_ms is None:
            model_part = next((r.entry.model for r in runs if r.entry and r.entry.model), None)
            model_ms = (model_part.get("kernel_ms", {}) if model_part else {}).get(kernel)
        gaps[kernel] = model_ms / row.best.kernel_ms - 1.0 if model_ms is not None and row.best.kernel_ms > 0 else None
    return ModelCheck(graph.name, predicted, tuple(checks), gaps, solve.model_gap)


@dataclass(frozen=True)
class Rate:
    """How often a group of checks hit and held."""

    label: str
    total: int
    hits: int
    held: int
    searched: int

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "total": self.total, "hits": self.hits, "held": self.held,
                "searched": self.searched}


def rate(label: str, checks: Sequence[ParameterCheck]) -> Rate:
    return Rate(label, len(checks), sum(c.hit for c in checks), sum(c.held for c in checks),
                sum(c.searched for c in checks))


def rates_by_parameter(checks: Sequence[ParameterCheck]) -> list[Rate]:
    """Hit rates per tuned value over every graph and kernel, then all values together."""
    out = [rate(PARAMETER_TITLES[p], [c for c in checks if c.parameter == p]) for p in PARAMETERS]
    return [r for r in out if r.total] + [rate("all values", checks)]


@dataclass(frozen=True)
class GuidelineRow:
    """One rule as the data judged it: where it applied, where it held."""

    rule: str
    parameter: str
    kernels: tuple[str, ...]
    checks: tuple[ParameterCheck, ...]

    @property
    def rate(self) -> Rate:
        return rate(self.rule, self.checks)

    @property
    def failed(self) -> tuple[ParameterCheck, ...]:
        return tuple(c for c in self.checks if not c.held)


def guideline_rows(checks: Sequence[ParameterCheck]) -> list[GuidelineRow]:
    """The checks grouped by the rule and value they judge, in rule order."""
    groups: dict[tuple[str, str], list[ParameterCheck]] = {}
    for check in checks:
        groups.setdefault((check.rule or "(no rule recorded)", check.parameter), []).append(check)
    return [GuidelineRow(rule, parameter, tuple(dict.fromkeys(c.kernel for c in group)), tuple(group))
            for (rule, parameter), group in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1]))]


@dataclass(frozen=True)
class CkIndependence:
    """Thesis Study I (4.6.4) for one graph and kernel: the best (block size, L1 state) at CK 1
    against the best at the kernel's best CK (L, which the thesis did not have, is free at both).

    Args:
        graph, kernel: which.
        best_ck: the CK of the kernel's best.
        at_ck1: the best block size and L1 state at CK 1 (`block:cache`).
        at_best_ck: the best block size and L1 state at the best CK.
        cost: the CK 1 choice run at the best CK (its best L), over the best there, minus 1 (None if
            not measured).
    """

    graph: str
    kernel: str
    best_ck: int
    at_ck1: str
    at_best_ck: str
    cost: float | None

    @property
    def holds(self) -> bool:
        return self.at_ck1 == self.at_best_ck or (self.cost is not None and self.cost <= NEAR)

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "kernel": self.kernel, "best_ck": self.best_ck, "at_ck1": self.at_ck1,
                "at_best_ck": self.at_best_ck, "cost": self.cost, "holds": self.holds}


def ck_independence(measured: Measured, kernels: Sequence[KernelGain]) -> list[CkIndependence]:
    """Study I per kernel of one graph, where both CK 1 and the best CK (> 1) were measured."""
    pool = measured.ok
    out = []
    for row in kernels:
        kernel, best_ck = row.kernel, row.best.config.concurrent_kernels
        if best_ck == 1:
            continue

        def fastest(ck: int, launch: str | None = None) -> ConfigResult | None:
            timed = [r for r in pool if kernel in r.kernel_ms and r.config.concurrent_kernels == ck
                     and (launch is None or _launch(r.config, kernel) == launch)]
            return min(timed, key=lambda r: (r.kernel_ms[kernel], r.config)) if timed else None

        at_ck1, at_best = fastest(1), fastest(best_ck)
        if at_ck1 is None or at_best is None:
            continue
        same = fastest(best_ck, _launch(at_ck1.config, kernel))
        cost = same.kernel_ms[kernel] / at_best.kernel_ms[kernel] - 1.0 if same is not None else None
        out.append(CkIndependence(row.graph, kernel, best_ck, _launch(at_ck1.config, kernel),
                                  _launch(at_best.config, kernel), cost))
    return out


def _launch(config: LaunchConfig, kernel: str) -> str:
    launch = config.kernels[kernel]
    return f"{launch.block_size}:{launch.cache.value}"


@dataclass(frozen=True)
class Sensitivity:
    """How much one tuned value matters to one kernel on one graph: the kernel's best time with the
    worst value of the parameter (the other values free, but CK, and L for relax, those of the
    kernel's best unless they are the parameter: as for `ParameterCheck.cost`), over its best,
    minus 1."""

    graph: str
    kernel: str
    parameter: str
    worst_value: int | str
    cost: float
    values: int  # values of the parameter measured

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "kernel": self.kernel, "parameter": self.parameter,
                "worst_value": self.worst_value, "cost": self.cost, "values": self.values}


def sensitivity(measured: Measured, kernels: Sequence[KernelGain]) -> list[Sensitivity]:
    """Per kernel and tuned value with at least two values measured, the cost of its worst value."""
    pool = measured.ok
    out = []
    for row in kernels:
        for parameter in parameters_of(row.kernel):
            best_by_value: dict[int | str, float] = {}
            for result in pool:
                if row.kernel not in result.kernel_ms or not _same_solve_values(
                        result.config, row.best.config, row.kernel, parameter):
                    continue
                value = parameter_value(result.config, row.kernel, parameter)
                ms = result.kernel_ms[row.kernel]
                best_by_value[value] = min(ms, best_by_value.get(value, ms))
            if len(best_by_value) < 2 or row.best.kernel_ms <= 0:
                continue
            worst = max(best_by_value, key=lambda v: (best_by_value[v], str(v)))
            out.append(Sensitivity(row.graph, row.kernel, parameter, worst,
                                   best_by_value[worst] / row.best.kernel_ms - 1.0, len(best_by_value)))
    return out
