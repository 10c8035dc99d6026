"""Suite `lookup`: `Table.nearest` (the nearest entries' answer, which the C header gives a graph
its table does not hold) checked leaving each graph out, and the choice of its settings, priced
from the committed H100 records (no GPU). `Table.lookup` answers such a graph with the table's
model since issue 67; the class-out suite `classout` checks the model.

For each graph G of the merged H100 table: G is looked up in the table without G's entry (its own
features), the configuration found is priced from G's records (`ReplayTimer.price`: the median of
its verified records, else composed from uniform runs; neither is "not priced", a miss) and
compared with G's own best priced the same way; for one query (`queries=1`) and at any CK.

`Table.nearest`'s defaults (weights and neighbours, `autotune/table/lookup.py`) are chosen here: every weight vector of
a small grid, with 1, 2 or 3 neighbours, is scored (graphs within 10%, then the worst slowdown,
then the mean; ties to fewer neighbours and weights nearest all-ones). Choosing on the same graphs
flatters the choice, so the nested check is reported too: for each G, the setting chosen on the
other graphs alone. Targets (issue 13): within 10% on at least 11 of 13, none worse than 25%.
"""
from __future__ import annotations

import argparse
import itertools
import math
import statistics
from typing import Any, Mapping, Sequence

from benchmarks import data
from benchmarks.results import Results, command_line, commit, host, now

# Scaling every weight alike changes no lookup, so the vertices' weight is the unit.
GRID = {"vertices": (1.0,), "mean_degree": (0.0, 1 / 16, 0.25, 1.0, 4.0, 16.0),
        "degree_cv": (0.0, 1 / 16, 0.25, 1.0, 4.0, 16.0)}
NEIGHBOURS = (1, 2, 3)
WITHIN, WORST = 0.10, 0.25
Setting = tuple[int, Mapping[str, float]]


def settings_grid() -> list[Setting]:
    weights = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    return [(k, w) for k in NEIGHBOURS for w in weights]


class Check:
    """The leave-one-graph-out slowdowns of one table against its graphs' records."""

    def __init__(self, table: Any, timers: Mapping[str, Any], queries: int | None = None) -> None:
        self.table, self.timers, self.queries = table, timers, queries
        self.entries = {e.name: e for e in table.entries if e.name in timers}
        self.own = {name: self.timers[name].price(self.table.choice(entry, queries)[0])[0]
                    for name, entry in self.entries.items()}

    def slowdown(self, name: str, setting: Setting, leave_out: Sequence[str] = ()) -> tuple[float, str]:
        table = self.table.without(leave_out) if leave_out else self.table
        neighbours, weights = setting
        found = table.nearest(self.entries[name].graph.to_json(), queries=self.queries, weights=weights,
                              exclude=name, neighbours=neighbours)
        price = self.timers[name].price(found.config)
        used = "+".join(found.neighbours) if found.neighbours else found.graph_name
        return (math.inf if price is None else price[0] / self.own[name] - 1.0), used

    def score(self, setting: Setting, names: Sequence[str], leave_out: Sequence[str] = ()) -> tuple:
        slow = [self.slowdown(n, setting, leave_out)[0] for n in names]
        finite = [s for s in slow if math.isfinite(s)]
        near_ones = sum(math.log2((w or 1 / 64) / 1.0) ** 2 for w in setting[1].values())
        return (-sum(s <= WITHIN for s in slow), max(slow), statistics.mean(finite) if finite else math.inf,
                setting[0], near_ones)

    def choose(self, names: Sequence[str], leave_out: Sequence[str] = ()) -> Setting:
        return min(settings_grid(), key=lambda setting: self.score(setting, names, leave_out))


def describe(setting: Setting) -> str:
    neighbours, weights = setting
    return f"{neighbours} neighbour(s), weights " + ", ".join(f"{k} {v:g}" for k, v in weights.items())


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-nested", action="store_true", help="skip the nested choice (the slow part)")


def check_rows(check: Check, objective: str, nested: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from autotune.table.distance import DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS

    names = sorted(check.entries)
    chosen = check.choose(names)
    rows, columns = [], {"chosen on all": [], "nested": [], "defaults": []}
    for name in names:
        slow, used = check.slowdown(name, chosen)
        row = {"objective": objective, "graph": name, "own_ms": check.own[name], "used": used, "slowdown": slow}
        default_slow, _ = check.slowdown(name, (DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS))
        row["default_slowdown"] = default_slow
        columns["chosen on all"].append(slow)
        columns["defaults"].append(default_slow)
        if nested:
            inner = check.choose([n for n in names if n != name], leave_out=[name])
            row["nested_setting"] = describe(inner)
            row["nested_slowdown"] = check.slowdown(name, inner)[0]
            columns["nested"].append(row["nested_slowdown"])
        rows.append(row)
    summary: dict[str, Any] = {"chosen_setting": describe(chosen),
                               "default_setting": describe((DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS))}
    for label, values in columns.items():
        if values:
            summary[label] = {"graphs": len(values), "within_10": sum(v <= WITHIN for v in values),
                              "worst": max(values), "median": statistics.median(values),
                              "met": sum(v <= WITHIN for v in values) >= 11 / 13 * len(values)
                              and max(values) <= WORST}
    return rows, summary


def run(args: argparse.Namespace) -> Results:
    from autotune.table.lookup import Table
    from autotune.search.timers.replay import ReplayTimer

    table = Table.load(data.path("h100", "crauser-table.json.gz"))
    timers = {name: ReplayTimer(records) for name, records in data.records_by_graph("h100", "crauser").items()}
    rows, summary = [], {}
    for objective, queries in (("throughput", None), ("one query", 1)):
        found, summary[objective] = check_rows(Check(table, timers, queries), objective, not args.no_nested)
        rows += found
    return Results("lookup", data.RECORDS_GPU, command_line(), commit(), now(), host(), {"nested": not args.no_nested},
                   tuple(rows), summary)


def percent(value: float) -> str:
    return f"{100 * value:+.1f}%" if value is not None and math.isfinite(value) else "not priced"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"Leave one graph out on the {results.gpu_name}'s GPU Crauser sweeps (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}); the defaults: "
                  f"{next(iter(results.summary.values()))['default_setting']}.", "",
                  "| lookup | setting | graphs within 10% | worst | median | target met |", "|---|---|---:|---:|---:|---|"]
        for objective, summary in results.summary.items():
            for label in ("defaults", "chosen on all", "nested"):
                if label in summary:
                    setting = {"defaults": "", "chosen on all": f" ({summary['chosen_setting']})"}.get(label, "")
                    v = summary[label]
                    lines.append(f"| {objective} | {label}{setting} | {v['within_10']} of {v['graphs']} | {percent(v['worst'])} "
                                 f"| {percent(v['median'])} | {'yes' if v['met'] else 'no'} |")
        lines.append("")
    return lines
