"""What a sweep found for one graph: frozen records that tables, reports and `--json` share."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from autotune.launch import LaunchConfig
from autotune.measure import Measurement, Status
from autotune.table.top import top_of


def fastest_configurations(ranked: Sequence[ConfigResult]) -> list[ConfigResult]:
    """Of configurations ranked fastest first: the `TOP_CONFIGURATIONS` fastest and the
    `TOP_PER_CK` fastest of each CK, fastest first (an entry's `x-top`)."""
    chosen = top_of(ranked, lambda result: result.config.concurrent_kernels)
    return sorted(chosen, key=lambda r: (r.ms_per_sssp, r.config.key()))


@dataclass(frozen=True)
class ConfigResult:
    """All measurements of one configuration, pooled.

    Args:
        config: the configuration.
        status: ok when every measurement was ok; otherwise the first failure's status.
        times_ms: every repetition's ms per SSSP over all its measurements.
        kernel_ms: per kernel, the median over its measurements of the kernel's ms per SSSP.
        measurements: how many times it was measured.
        edges: arcs of the graph (for GTEPS).
        iterations: mean outer-loop iterations per SSSP.
        reason: why it failed, when it did.
    """

    config: LaunchConfig
    status: Status
    times_ms: tuple[float, ...] = ()
    kernel_ms: Mapping[str, float] = field(default_factory=dict)
    measurements: int = 1
    edges: int = 0
    iterations: float = 0.0
    reason: str | None = None

    @classmethod
    def pool(cls, measurements: Sequence[Measurement]) -> ConfigResult:
        """Pool the measurements of one configuration (a failure in any fails the whole)."""
        if not measurements:
            raise ValueError("no measurements to pool")
        first = measurements[0]
        failed = next((m for m in measurements if not m.ok), None)
        if failed is not None:
            return cls(first.config, failed.status, measurements=len(measurements), edges=failed.edges,
                       reason=failed.reason)
        names = sorted({name for m in measurements for name in m.kernel_ms})
        kernel_ms = {name: statistics.median(m.kernel_ms[name] for m in measurements if name in m.kernel_ms)
                     for name in names}
        return cls(
            first.config,
            Status.OK,
            times_ms=tuple(t for m in measurements for t in m.times_ms),
            kernel_ms=kernel_ms,
            measurements=len(measurements),
            edges=first.edges,
            iterations=statistics.fmean(m.iterations for m in measurements),
        )

    @property
    def ok(self) -> bool:
        return self.status is Status.OK and bool(self.times_ms)

    @property
    def ms_per_sssp(self) -> float | None:
        """Median of every repetition of every measurement; None unless ok."""
        return statistics.median(self.times_ms) if self.ok else None

    @property
    def gteps(self) -> float | None:
        ms = self.ms_per_sssp
        return self.edges / ms / 1e6 if ms else None

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config.to_json(),
            "status": self.status.value,
            "verified": self.ok,
            "ms_per_sssp": self.ms_per_sssp,
            "times_ms": list(self.times_ms),
            "kernel_ms": dict(self.kernel_ms),
            "gteps": self.gteps,
            "iterations": self.iterations,
            "measurements": self.measurements,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class GraphInfo:
    """The graph a sweep tuned for.

    Args:
        name: the spec or file name.
        sha256: `CSRGraph.sha256`.
        n_vertices, n_edges: its size.
        max_degree: its largest out-degree, when known.
        seed, weights: the options a generated graph was made with, when known.
        classes: the model's view of it on the GPU (`GraphClasses.to_json()`: stress ratio and
            classes), when a device profile is known.
        degree_cv: the coefficient of variation of its out-degrees (skew), when known.
        min_positive_weight, max_weight, mean_weight: its arc weights, when known.
        lightest_weight: the mean of its vertices' lightest out-arc weights, when known (not
            written into tables: their format has no such key; the model reads it from the loaded
            graph).
        distance_bits: the width of its distances on the GPU (`distance_range.width_for`: 64
            where a shortest path may pass 32 bits); a table entry says 64 as `x-distance_bits`.
        hub_ordered: whether `graphs.order.hub_order` renumbers it (an engine that relaxes the
            renumbered copy holds it beside the graph: `Algorithm.memory_bytes`); written into
            records (`to_record_json`), not into tables.
    """

    name: str
    sha256: str
    n_vertices: int
    n_edges: int
    max_degree: int | None = None
    seed: int | None = None
    weights: str | None = None
    classes: Mapping[str, Any] | None = None
    degree_cv: float | None = None
    min_positive_weight: int | None = None
    max_weight: int | None = None
    mean_weight: float | None = None
    lightest_weight: float | None = None
    distance_bits: int = 32
    hub_ordered: bool = False

    @property
    def key(self) -> str:
        """What tells graphs apart: the sha256 of the CSR arrays, else the name."""
        return self.sha256 or self.name

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GraphInfo:
        return cls(name=str(data["name"]), sha256=str(data.get("sha256", "")),
                   n_vertices=int(data.get("vertices", 0)), n_edges=int(data.get("edges", 0)),
                   max_degree=data.get("max_degree"), seed=data.get("seed"), weights=data.get("weights"),
                   degree_cv=data.get("degree_cv"), min_positive_weight=data.get("min_positive_weight"),
                   max_weight=data.get("max_weight"), mean_weight=data.get("mean_weight"),
                   distance_bits=int(data.get("distance_bits", 32)), hub_ordered=bool(data.get("hub_ordered", False)))

    def to_json(self) -> dict[str, Any]:
        """The graph object of a table entry (and of records, without the classes)."""
        data: dict[str, Any] = {"name": self.name, "vertices": self.n_vertices, "edges": self.n_edges}
        for key, value in (("max_degree", self.max_degree), ("sha256", self.sha256 or None),
                           ("seed", self.seed), ("weights", self.weights), ("degree_cv", self.degree_cv),
                           ("min_positive_weight", self.min_positive_weight), ("max_weight", self.max_weight),
                           ("mean_weight", self.mean_weight)):
            if value is not None:
                data[key] = value
        if self.classes:
            data.update({k: v for k, v in self.classes.items() if k in ("mean_degree", "stress_ratio",
                                                                         "stress_class", "degree_class")})
        return data

    def to_record_json(self) -> dict[str, Any]:
        """The graph object of a record: `to_json`'s, with the distances' width where it is 64 and
        `hub_ordered` where true, which a table says otherwise (`x-distance_bits`) or not at all, so
        that a sweep replayed from records writes the width and counts the memory (`x-memory`) as
        the measured one did.

        Example:
            >>> graph = GraphInfo("g", "", 4, 8, distance_bits=64, hub_ordered=True)
            >>> graph.to_record_json()
            {'name': 'g', 'vertices': 4, 'edges': 8, 'distance_bits': 64, 'hub_ordered': True}
            >>> GraphInfo.from_json(graph.to_record_json()) == graph
            True
        """
        data = self.to_json()
        if self.distance_bits != 32:
            data["distance_bits"] = self.distance_bits
        if self.hub_ordered:
            data["hub_ordered"] = True
        return data


def _ratio(numerator: ConfigResult | None, denominator: ConfigResult | None) -> float | None:
    if numerator is None or denominator is None or not numerator.ok or not denominator.ok:
        return None
    return numerator.ms_per_sssp / denominator.ms_per_sssp


@dataclass(frozen=True)
class GraphResult:
    """One graph's sweep.

    Args:
        graph: the graph.
        algorithm: the registered algorithm tuned.
        device: the GPU's description (name, compute capability, ...).
        strategy: the strategy label (exhaustive, bayes-tpe, model).
        strategy_parameters: its settings (trials, sampler, seed, ...).
        space: `SearchSpace.to_json()`.
        best: the winner: the fastest finalist by the median of all its measurements.
        predicted: the model's prediction as measured (None without a model).
        default: the default configuration as measured.
        baseline: the slowest of the baseline candidates (thesis 4.6.1) as measured.
        baseline_candidates: every baseline candidate as measured.
        prediction: the model's account of its prediction (`Prediction.to_json()`), if any.
        finalists: the candidates measured again, interleaved, before the winner was chosen.
        evaluations: calls of the timer (GPU measurements), re-measurements included.
        trials: Optuna trials finished (including those answered from earlier measurements).
        configurations: distinct configurations measured.
        failed: distinct configurations that were invalid or wrong.
        tuning_seconds: wall time of the sweep, over all resumed sessions.
        measure_seconds: time spent inside the timer's `measure` calls.
        partial: the sweep was interrupted; `best` is the best measured so far.
        study: where the trials are kept (storage URL, study name, resumed).
        replay: for a replay, what it answered from records, composed, or could not answer.
        curve: per CK measured, the fastest configuration inside the space (ascending CK).
        top: the fastest configurations inside the space (`fastest_configurations`): what
            `Table.lookup` weighs across the nearest graphs.
        protocol: how each configuration was measured (`measure.Protocol` and the timer).
        log: every `trials.Evaluation` in order (for records and T4 output; not in `to_json`).
    """

    graph: GraphInfo
    algorithm: str
    device: Mapping[str, Any]
    strategy: str
    strategy_parameters: Mapping[str, Any]
    space: Mapping[str, Any]
    best: ConfigResult | None
    predicted: ConfigResult | None
    default: ConfigResult | None
    baseline: ConfigResult | None
    baseline_candidates: tuple[ConfigResult, ...] = ()
    prediction: Mapping[str, Any] | None = None
    finalists: tuple[ConfigResult, ...] = ()
    evaluations: int = 0
    trials: int = 0
    configurations: int = 0
    failed: int = 0
    tuning_seconds: float = 0.0
    measure_seconds: float = 0.0
    partial: bool = False
    study: Mapping[str, Any] = field(default_factory=dict)
    replay: Mapping[str, Any] | None = None
    curve: tuple[ConfigResult, ...] = ()
    top: tuple[ConfigResult, ...] = ()
    protocol: Mapping[str, Any] = field(default_factory=dict)
    log: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def speedup_over_default(self) -> float | None:
        """Default's ms per SSSP / best's: 1.5 means the best is 1.5x as fast."""
        return _ratio(self.default, self.best)

    @property
    def speedup_over_baseline(self) -> float | None:
        return _ratio(self.baseline, self.best)

    @property
    def model_gap(self) -> float | None:
        """How much slower the predicted configuration is than the best: 0.05 = 5 % slower."""
        ratio = _ratio(self.predicted, self.best)
        return None if ratio is None else ratio - 1.0

    @property
    def host_share(self) -> float | None:
        """Share of the sweep's wall time spent outside the timer's measure calls."""
        if self.tuning_seconds <= 0:
            return None
        return max(0.0, 1.0 - self.measure_seconds / self.tuning_seconds)

    def to_json(self) -> dict[str, Any]:
        def config_json(result: ConfigResult | None) -> dict[str, Any] | None:
            return None if result is None else result.to_json()

        return {
            "graph": self.graph.to_json(),
            "algorithm": self.algorithm,
            "device": dict(self.device),
            "strategy": self.strategy,
            "strategy_parameters": dict(self.strategy_parameters),
            "space": dict(self.space),
            "best": config_json(self.best),
            "predicted": config_json(self.predicted),
            "default": config_json(self.default),
            "baseline": config_json(self.baseline),
            "baseline_candidates": [c.to_json() for c in self.baseline_candidates],
            "prediction": None if self.prediction is None else dict(self.prediction),
            "finalists": [c.to_json() for c in self.finalists],
            "speedup_over_default": self.speedup_over_default,
            "speedup_over_baseline": self.speedup_over_baseline,
            "model_gap": self.model_gap,
            "evaluations": self.evaluations,
            "trials": self.trials,
            "configurations": self.configurations,
            "failed": self.failed,
            "tuning_seconds": self.tuning_seconds,
            "measure_seconds": self.measure_seconds,
            "host_share": self.host_share,
            "partial": self.partial,
            "study": dict(self.study),
            "replay": None if self.replay is None else dict(self.replay),
        }


def pooled(measurements: Mapping[str, Sequence[Measurement]]) -> dict[str, ConfigResult]:
    """Every measured configuration, its measurements pooled."""
    return {key: ConfigResult.pool(ms) for key, ms in measurements.items()}


def ranked(results: Mapping[str, ConfigResult], space: Any = None) -> list[ConfigResult]:
    """The ok configurations (inside `space`, a `SearchSpace`, when given), fastest first."""
    ok = [r for r in results.values() if r.ok and (space is None or space.contains(r.config))]
    return sorted(ok, key=lambda r: (r.ms_per_sssp, r.config.key()))
