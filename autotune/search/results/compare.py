"""Compare two strategies' tables of the same graphs and GPU: did the cheaper one (Bayesian) land
close to the exhaustive optimum, and with what share of its evaluations?

The issue's target: with at most 15 % of the exhaustive evaluations, within 3 % of the exhaustive
optimum on at least 80 % of the graphs.

Example:
    >>> from autotune.table.format import read_table
    >>> rows = compare_tables(read_table("exhaustive.json"), read_table("bayes.json"))  # doctest: +SKIP
    >>> verdict(rows)["met"]                                                            # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from autotune.errors import InputError
from autotune.table.entry import Entry, entries_of

GAP_TOLERANCE = 0.03
BUDGET_SHARE = 0.15
GRAPH_SHARE = 0.80


@dataclass(frozen=True)
class Comparison:
    """One graph, reference (exhaustive) against candidate (Bayesian).

    Args:
        graph: its name.
        reference_ms, candidate_ms: each table's best ms per SSSP.
        reference_evaluations, candidate_evaluations: each table's GPU measurements.
    """

    graph: str
    reference_ms: float
    candidate_ms: float
    reference_evaluations: int
    candidate_evaluations: int

    @property
    def gap(self) -> float:
        """How much slower the candidate's best is: 0.02 = 2 % slower (negative: faster)."""
        return self.candidate_ms / self.reference_ms - 1.0

    @property
    def budget_share(self) -> float:
        """The candidate's evaluations as a share of the reference's."""
        return self.candidate_evaluations / self.reference_evaluations if self.reference_evaluations else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "reference_ms": self.reference_ms, "candidate_ms": self.candidate_ms,
                "gap": self.gap, "reference_evaluations": self.reference_evaluations,
                "candidate_evaluations": self.candidate_evaluations, "budget_share": self.budget_share}


def _best_by_graph(table: Mapping[str, Any], where: str) -> dict[str, tuple[str, Entry]]:
    out = {}
    for entry in entries_of(table):
        if entry.best is None:
            continue
        out[entry.graph.get("sha256") or entry.name] = (entry.name, entry)
    if not out:
        raise InputError(f"{where}: no entry has a measured best configuration")
    return out


def compare_tables(reference: Mapping[str, Any], candidate: Mapping[str, Any]) -> list[Comparison]:
    """Pair the two tables' entries by graph (sha256, else name) and compare their bests.

    Raises:
        InputError: the tables are of different GPUs or algorithms, or share no graph.
    """
    for key in ("algorithm",):
        if reference.get(key) != candidate.get(key):
            raise InputError(f"the tables differ in {key}: {reference.get(key)!r} and {candidate.get(key)!r}")
    if reference["device"].get("name") != candidate["device"].get("name"):
        raise InputError(f"the tables are of different GPUs: {reference['device'].get('name')!r} and "
                         f"{candidate['device'].get('name')!r}")
    ref, cand = _best_by_graph(reference, "reference table"), _best_by_graph(candidate, "candidate table")
    shared = [key for key in ref if key in cand]
    if not shared:
        raise InputError("the tables share no graph")
    return [
        Comparison(ref[key][0], ref[key][1].best.ms_per_sssp, cand[key][1].best.ms_per_sssp,
                   ref[key][1].evaluations or 0, cand[key][1].evaluations or 0)
        for key in shared
    ]


def verdict(rows: Sequence[Comparison], tolerance: float = GAP_TOLERANCE, budget: float = BUDGET_SHARE,
            graph_share: float = GRAPH_SHARE) -> dict[str, Any]:
    """Whether the candidate met the target on these graphs (see the module docstring)."""
    within = [r for r in rows if r.gap <= tolerance and r.budget_share <= budget]
    share = len(within) / len(rows) if rows else 0.0
    return {"graphs": len(rows), "within": len(within), "share_within": share,
            "max_budget_share": max((r.budget_share for r in rows), default=0.0),
            "tolerance": tolerance, "budget": budget, "met": bool(rows) and share >= graph_share}
