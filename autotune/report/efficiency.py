"""Search efficiency, pure computations: each strategy's best-so-far against its evaluations, and
the evaluations it needed to come within 5 % and 2 % of the exhaustive optimum.

- An *evaluation* is one GPU measurement, in the order the records keep (the special
  configurations, the search, the composed candidates, the finalists' re-measurements).
- *Best so far* after n evaluations: the lowest ms per SSSP of the ok measurements among the
  first n (one measurement's median; the table's best pools the finalists' re-measurements).
- The *reference* is the exhaustive table's best ms per SSSP; without an exhaustive run, the
  fastest best of any run (the README says which).

Example:
    >>> curve = Curve("rmat17", "bayes-tpe", (None, 3.0, 2.1, 2.1), 2.0, "exhaustive")
    >>> curve.evaluations_within(0.05), curve.evaluations_within(0.02)
    (3, None)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from autotune.report.load import Run
from autotune.search.results.compare import Comparison, verdict

TOLERANCES = (0.05, 0.02)


@dataclass(frozen=True)
class Curve:
    """One strategy's search on one graph.

    Args:
        graph: the graph's name.
        strategy: the strategy label.
        best_so_far_ms: after each evaluation, the best ms per SSSP so far (None before any ok one).
        reference_ms: the optimum the curve is judged against.
        reference: what the optimum is (`exhaustive`, or `fastest of all runs`).
        table_best_ms: the run's table best (None without a table).
    """

    graph: str
    strategy: str
    best_so_far_ms: tuple[float | None, ...]
    reference_ms: float
    reference: str
    table_best_ms: float | None = None

    @property
    def evaluations(self) -> int:
        return len(self.best_so_far_ms)

    @property
    def final_ms(self) -> float | None:
        return self.best_so_far_ms[-1] if self.best_so_far_ms else None

    @property
    def final_gap(self) -> float | None:
        """The best found over the reference, minus 1 (negative: faster than the reference)."""
        final = self.table_best_ms if self.table_best_ms is not None else self.final_ms
        return None if final is None else final / self.reference_ms - 1.0

    def evaluations_within(self, tolerance: float) -> int | None:
        """The first evaluation count whose best so far is within `tolerance` of the reference."""
        limit = self.reference_ms * (1.0 + tolerance)
        for index, value in enumerate(self.best_so_far_ms, start=1):
            if value is not None and value <= limit:
                return index
        return None

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "strategy": self.strategy, "evaluations": self.evaluations,
                "reference_ms": self.reference_ms, "reference": self.reference, "final_ms": self.final_ms,
                "final_gap": self.final_gap,
                "within": {f"{round(100 * t)}%": self.evaluations_within(t) for t in TOLERANCES},
                "best_so_far_ms": list(self.best_so_far_ms)}


def best_so_far(run: Run) -> tuple[float | None, ...]:
    """The best ms per SSSP after each of the run's recorded evaluations."""
    out: list[float | None] = []
    best: float | None = None
    for record in run.records:
        ms = record.measurement.ms_per_sssp
        if ms is not None and (best is None or ms < best):
            best = ms
        out.append(best)
    return tuple(out)


def _table_best(run: Run) -> float | None:
    best = run.entry.best if run.entry else None
    return best.ms_per_sssp if best is not None else None


def reference_of(runs: Sequence[Run]) -> tuple[float, str] | None:
    """The exhaustive optimum of one graph, else the fastest best of its runs."""
    exhaustive = [r for r in runs if r.strategy == "exhaustive"]
    for run in exhaustive:
        value = _table_best(run)
        if value is None and run.records:
            value = next((v for v in reversed(best_so_far(run)) if v is not None), None)
        if value is not None:
            return value, "exhaustive"
    values = [v for v in (_table_best(r) for r in runs) if v is not None]
    values += [v for r in runs for v in best_so_far(r)[-1:] if v is not None]
    return (min(values), "fastest of all runs") if values else None


def curves(runs: Sequence[Run]) -> list[Curve]:
    """One curve per run with records of one graph (none without a reference)."""
    reference = reference_of(runs)
    if reference is None:
        return []
    return [Curve(run.graph.name, run.strategy, best_so_far(run), reference[0], reference[1], _table_best(run))
            for run in runs if run.records]


def budget_comparisons(runs: Sequence[Run]) -> list[tuple[str, Comparison]]:
    """Each non-exhaustive run with a table against the exhaustive table of the same graph
    (`autotune.search.results.compare`: the gap and the share of the exhaustive evaluations)."""
    exhaustive = next((r for r in runs if r.strategy == "exhaustive" and _table_best(r) is not None), None)
    if exhaustive is None:
        return []
    return [(run.strategy, Comparison(run.graph.name, _table_best(exhaustive), _table_best(run),
                                      exhaustive.evaluations, run.evaluations))
            for run in runs if run is not exhaustive and _table_best(run) is not None]


def budget_verdict(rows: Sequence[Comparison]) -> dict[str, Any]:
    """`compare.verdict` (within 3 % with at most 15 % of the exhaustive evaluations on 80 % of graphs)."""
    return verdict(rows)
