"""The report's "every algorithm, value by value" part of section 2 (`model_values`' checks):
rendering only."""
from __future__ import annotations

import statistics
from typing import Mapping

from autotune.report.data import Report
from autotune.report.model_check import NEAR
from autotune.report.text import figure, pct, share, table


def _gap(g) -> float | None:
    solve = g.solve
    if solve is None or solve.model_ms is None or not solve.best_ms:
        return None
    return solve.model_ms / solve.best_ms - 1.0


def _missed(check) -> str:
    cost = f" ({pct(check.cost, True)})" if check.cost is not None else " (not searched)"
    return f"{check.value} {check.predicted} → {check.best}{cost}" + (" ≈" if check.held else "")


def render_values(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    graphs = [g for g in report.graphs if g.values]
    lines = ["### Every algorithm, value by value", "",
             "For each graph, each value of the model's configuration (CK, each kernel's block size and L1 state, "
             "each of the algorithm's parameters) against the same value of the best configuration measured "
             "(`autotune.report.model_values`): the algorithm's sweep of the winning algorithm, whichever it is. A "
             "value missed costs the fastest measured configuration with the model's value (at the best's CK) over "
             f"the best; `≈`: within {100 * NEAR:.0f}% (held). Where the model picked another algorithm, the "
             "algorithm is the one value checked.", ""]
    if not graphs:
        return lines + ["No graph has both a prediction and a measured best.", ""]
    algorithms = sorted({c.algorithm for g in graphs for c in g.values})
    rows = []
    for name in algorithms:
        mine = [g for g in graphs if g.values[0].algorithm == name]
        checks = [c for g in mine for c in g.values]
        searched = [c for c in checks if c.hit or c.cost is not None]
        gaps = [gap for g in mine if (gap := _gap(g)) is not None]
        rows.append([name, str(len(mine)), str(len(checks)), share(sum(c.hit for c in checks), len(checks)),
                     share(sum(c.held for c in searched), len(searched)),
                     f"{pct(statistics.median(gaps), True)} (worst {pct(max(gaps), True)})" if gaps else "–"])
    lines += table(["algorithm", "graphs", "values", "hits", "held (of searched)",
                    "model gap: median (worst)"], rows, right=(1, 2))
    rows = [[g.graph.name, g.values[0].algorithm, share(sum(c.hit for c in g.values), len(g.values)),
             "; ".join(_missed(c) for c in g.values if not c.hit) or "–", pct(_gap(g), True)] for g in graphs]
    lines += table(["graph", "algorithm", "values hit", "missed: model → best (cost)", "model gap"], rows)
    return lines + figure(figures, "model-values", "the model's values against the best's, per algorithm", skipped)


__all__ = ["render_values"]
