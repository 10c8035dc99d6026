"""The data of a report: per graph (`GraphReport`) and whole (`Report`); what `--json` prints,
`markdown` writes and `figures` draw."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from autotune.report.analysis import KernelGain, SolveGain
from autotune.report.cpu import CpuTiming, SourcePool
from autotune.report.efficiency import Curve
from autotune.report.grid import GridSeries
from autotune.report.load import GraphSummary, ReportInputs, Run
from autotune.report.model_check import CkIndependence, ModelCheck, Sensitivity
from autotune.report.model_values import ValueCheck
from autotune.search.results.compare import Comparison


@dataclass(frozen=True)
class GraphReport:
    """Everything the report says about one graph."""

    graph: GraphSummary
    runs: tuple[Run, ...]
    solve: SolveGain | None
    kernels: tuple[KernelGain, ...]
    model: ModelCheck | None
    ck_study: tuple[CkIndependence, ...]
    curves: tuple[Curve, ...]
    grid: Mapping[str, Sequence[GridSeries]]
    cpu: tuple[CpuTiming, ...]
    sensitivity: tuple[Sensitivity, ...] = ()
    pools: Mapping[str, SourcePool] = field(default_factory=dict)
    values: tuple[ValueCheck, ...] = ()  # the model's values against the best's, any algorithm (`model_values`)

    def cpu_pool_matches(self, timing: CpuTiming) -> bool | None:
        """Whether `timing` took its sources from the pool every sweep of this graph drew (None: unknown)."""
        if timing.source_pool is None or not self.pools:
            return None
        return all(pool == timing.source_pool for pool in self.pools.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "graph": {k: v for k, v in vars(self.graph).items()},
            "strategies": [r.strategy for r in self.runs],
            "solve": self.solve.to_json() if self.solve else None,
            "kernels": [k.to_json() for k in self.kernels],
            "model": self.model.to_json() if self.model else None,
            "model_values": [v.to_json() for v in self.values],
            "ck_study": [c.to_json() for c in self.ck_study],
            "curves": [c.to_json() for c in self.curves],
            "grid": {kernel: [s.to_json() for s in series] for kernel, series in self.grid.items()},
            "cpu": [t.to_json() for t in self.cpu],
            "sensitivity": [s.to_json() for s in self.sensitivity],
            "source_pools": {strategy: vars(pool) for strategy, pool in self.pools.items()},
        }


@dataclass(frozen=True)
class Report:
    """A whole report's data (what `--json` prints and `markdown.render` writes)."""

    inputs: ReportInputs
    graphs: tuple[GraphReport, ...]
    comparisons: tuple[tuple[str, Comparison], ...]
    notes: tuple[str, ...]
    command: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "device": dict(self.inputs.device),
            "algorithm": self.inputs.algorithm,
            "files": [vars(f) for f in self.inputs.files],
            "graphs": [g.to_json() for g in self.graphs],
            "comparisons": [{"strategy": s, **c.to_json()} for s, c in self.comparisons],
            "notes": list(self.notes),
            "command": self.command,
        }
