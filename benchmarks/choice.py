"""Suite `choice` (no GPU): the choice model of `autotune predict --algorithm auto` checked leaving
each class of graphs out, on a shipped table (`--choice-table`, default `tables/h100.json`; its results
go with the table's GPU).

For every class of the table's graphs (`data.graph_class`: road, mesh, geometric, social, rmat,
random, and the real-graph suite's classes once swept), the model is fitted on the other classes'
curve winners (`autotune.predict.choice.fit_admitted`: the conditional algorithms that won wherever
measured, PHAST, and the tree on the other entries, the graphs' depths from
`benchmarks/data/shapes.json`) and picks, for each graph of the class (admitting what its entry
measured: PHAST where its hierarchy was kept) and
K = 1, 16 and 1,024 sources at once, the algorithm to run; that is compared with the algorithm of
the point `Table.lookup(queries=K)` hands out (the fastest curve point with CK <= K). A wrong pick
is priced at the batch end only (K = 1,024: the table's best of each algorithm, `by_algorithm`; an
algorithm the sweep abandoned as hopeless has no price there and counts as far behind); below it a
table holds the winner's time alone, so a wrong pick is counted, not priced.

Target (issue 28): the predicted algorithm is the winner or within 15% of it on every graph.
"""
from __future__ import annotations

import argparse
from typing import Any, Sequence

from autotune.table.entry import Entry
from benchmarks import data
from benchmarks.shapes import SHAPES_FILE
from benchmarks.results import Results, command_line, commit, host, now

WITHIN = 0.15
QUERIES = (1, 16, 1024)


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--choice-table", default="tables/h100.json", help="suite choice: the table (default "
                        "tables/h100.json)")


def admitted_by(entry: Entry) -> frozenset[str]:
    """The algorithms the entry's graph admitted when it was swept: those it measured (PHAST was
    swept where the graph's hierarchy was kept)."""
    return frozenset(entry.by_algorithm)


def class_rows(entries: Sequence[Entry], left_out: str, depths: dict[str, float]) -> list[dict[str, Any]]:
    from autotune.predict.auto import servable
    from autotune.predict.choice import entry_features, fit_admitted

    model = fit_admitted([e for e in entries if data.graph_class(e.name) != left_out], depths)
    rows = []
    for entry in entries:
        if data.graph_class(entry.name) != left_out:
            continue
        features = entry_features(entry, depths)
        for k in QUERIES:
            best = entry.fastest_within(k)  # what `Table.lookup(queries=K)` hands out
            if best is None:
                continue
            chosen = servable(model.predict(features, k, admitted_by(entry))[0], k, entry.graph.get("max_degree"))
            measured = best.algorithm
            slowdown = 0.0 if chosen == measured else None
            if chosen != measured and k == max(QUERIES):
                theirs = entry.by_algorithm.get(chosen)
                slowdown = theirs.ms_per_sssp / best.ms_per_sssp - 1 if theirs else float("inf")
            rows.append({"graph": entry.name, "class": left_out, "queries": k, "winner": measured,
                         "winner_ms": best.ms_per_sssp, "predicted": chosen,
                         "slowdown": None if slowdown is None else (slowdown if slowdown != float("inf") else "abandoned")})
    return rows


def run(args: argparse.Namespace) -> Results:
    from autotune.predict.choice import shape_depths
    from autotune.table import Table

    path = getattr(args, "choice_table", None) or "tables/h100.json"
    table = Table.load(data.ROOT / path)
    entries = [e for e in table.entries if e.curve]
    classes = sorted({data.graph_class(e.name) for e in entries})
    depths = shape_depths(SHAPES_FILE)
    rows = [row for left_out in classes for row in class_rows(entries, left_out, depths)]
    by_k = {}
    for k in QUERIES:
        mine = [r for r in rows if r["queries"] == k]
        by_k[str(k)] = {"pairs": len(mine), "right": sum(r["predicted"] == r["winner"] for r in mine),
                        "priced_within_15": sum(map(within, mine))}
    real = [r for r in rows if data.is_real(r["graph"])]
    gpu = {"name": str(table.device.get("name") or data.RECORDS_GPU["name"])}  # the table's GPU: its results
    return Results("choice", gpu, command_line(), commit(), now(), host(), {"table": path}, tuple(rows),
                   {"classes": classes, "by_queries": by_k, "met": all(map(within, rows)),
                    "real": {"pairs": len(real), "within_15": sum(map(within, real)), "met": all(map(within, real))},
                    "target": "the predicted algorithm the winner or within 15% of it on every graph"})


def within(row: dict[str, Any]) -> bool:
    """The pick is the winner, or priced within `WITHIN` of it."""
    return isinstance(row["slowdown"], float) and row["slowdown"] <= WITHIN


def _slowdown(row: dict[str, Any]) -> str:
    value = row["slowdown"]
    if value is None:
        return "not priced"
    return "abandoned (far behind)" if value == "abandoned" else f"{100 * value:+.0f}%"


def _on_real(summary: dict[str, Any]) -> str:
    """The target on the real graphs alone, where the results hold it (those of 2026-11-28 on)."""
    real = summary.get("real")
    if not real:
        return ""
    return (f"; on the real graphs alone (generated classes, R-MAT and random, aside) {real['within_15']} of "
            f"{real['pairs']} pairs, **{'met' if real['met'] else 'not met'}**")


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = results.summary
        counts = "; ".join(f"K = {k}: {v['right']} of {v['pairs']}" for k, v in s["by_queries"].items())
        lines += [f"{results.gpu_name}, `{results.parameters['table']}` (`{results.command}`, {results.date[:10]}, "
                  f"commit {results.commit}): each class of {', '.join(s['classes'])} left out of the fit in turn. "
                  f"The winner picked: {counts}. Target (the winner or within 15% on every graph): "
                  f"**{'met' if s['met'] else 'not met'}**{_on_real(s)}.", "",
                  "| graph | class | K | winner | picked | its slowdown |", "|---|---|---:|---|---|---:|"]
        for r in results.measurements:
            if r["predicted"] != r["winner"]:
                lines.append(f"| {r['graph']} | {r['class']} | {r['queries']} | {r['winner']} | {r['predicted']} | "
                             f"{_slowdown(r)} |")
        lines += ["", "(Rows where the pick is the winner are in the results file.)", ""]
    return lines
