"""Leave-one-graph-out check of `Table.lookup`, and the choice of its distance weights.

For each graph G of a merged table: look G up in the table without G's entry (`lookup(exclude=G)`,
G's own features), price the configuration found from G's measurement records, and report the
slowdown against G's own best priced the same way. Pricing (`ReplayTimer.price`): the median time
per SSSP of the configuration's verified records, else its composition from the recorded uniform
runs (autotune/search/replay.py); a configuration with neither is "not priced" and counts as a miss.

The lookup's settings are chosen here, not by hand: every weight vector of a small grid, with 1, 2
or 3 neighbours (1: the nearest entry's configuration; more: the consensus of the nearest entries'
fastest configurations, see autotune/lookup.py), is scored by the check (graphs within 10%, then
the worst slowdown, then the mean), ties going to fewer neighbours and the weights nearest all-ones. Choosing the weights on the same graphs flatters them, so the
script also reports the nested check: for each G, the weights chosen on the other graphs alone,
then G looked up with them.

    python3 scripts/lookup_check.py reports/h100/table.json reports/h100/sweeps > reports/h100/lookup-check.md
"""
from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
from pathlib import Path
from typing import Mapping, Sequence

from autotune.lookup import DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS, Table
from autotune.search.records import records_by_graph
from autotune.search.replay import ReplayTimer

# Scaling every weight alike changes no lookup, so the vertices' weight is the unit.
GRID = {"vertices": (1.0,), "mean_degree": (0.0, 1 / 16, 0.25, 1.0, 4.0, 16.0),
        "degree_cv": (0.0, 1 / 16, 0.25, 1.0, 4.0, 16.0)}
WITHIN, WORST = 0.10, 0.25


NEIGHBOURS = (1, 2, 3)


def settings_grid() -> list[tuple[int, dict[str, float]]]:
    """(neighbours, weights) pairs, fewer neighbours first."""
    weights = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    return [(k, w) for k in NEIGHBOURS for w in weights]


def timers(records_dir: Path) -> dict[str, ReplayTimer]:
    return {name: ReplayTimer(records) for name, records in records_by_graph(records_dir).items()}


class Check:
    """The leave-one-graph-out slowdowns of one table against its graphs' records."""

    def __init__(self, table: Table, timers: Mapping[str, ReplayTimer], queries: int | None = None) -> None:
        self.table, self.timers, self.queries = table, timers, queries
        self.entries = {e["graph"]["name"]: e for e in table.entries if e["graph"]["name"] in timers}
        self.own = {name: self._own_best(name) for name in self.entries}

    def _own_best(self, name: str) -> float:
        chosen = self.table.choice(self.entries[name], self.queries)
        assert chosen is not None, name
        price = self.timers[name].price(chosen[0])
        assert price is not None, f"{name}: its own best is not in its records"
        return price[0]

    def slowdown(self, name: str, setting: tuple[int, Mapping[str, float]],
                 leave_out: Sequence[str] = ()) -> tuple[float, str, str]:
        """(slowdown, the entry used, how it was priced) of graph `name` looked up without itself
        (and without `leave_out`); slowdown is inf when the configuration cannot be priced."""
        table = self.table if not leave_out else Table({**self.table.data, "entries": [
            e for e in self.table.entries if e["graph"]["name"] not in leave_out]}, self.table.path)
        neighbours, weights = setting
        found = table.lookup(self.entries[name]["graph"], queries=self.queries, device=None, weights=weights,
                             exclude=name, neighbours=neighbours)
        used = "+".join(found.neighbours) if found.neighbours else found.graph_name
        price = self.timers[name].price(found.config)
        if price is None:
            return math.inf, used, "not priced"
        return price[0] / self.own[name] - 1.0, used, price[1]

    def score(self, setting: tuple[int, Mapping[str, float]], names: Sequence[str],
              leave_out: Sequence[str] = ()) -> tuple:
        slow = [self.slowdown(n, setting, leave_out)[0] for n in names]
        finite = [s for s in slow if math.isfinite(s)]
        near_ones = sum(math.log2((w or 1 / 64) / 1.0) ** 2 for w in setting[1].values())
        return (-sum(s <= WITHIN for s in slow), max(slow), statistics.mean(finite) if finite else math.inf,
                setting[0], near_ones)

    def choose(self, names: Sequence[str], leave_out: Sequence[str] = ()) -> tuple[int, dict[str, float]]:
        return min(settings_grid(), key=lambda setting: self.score(setting, names, leave_out))


def describe(setting: tuple[int, Mapping[str, float]]) -> str:
    neighbours, weights = setting
    return f"{neighbours} neighbour(s), weights " + ", ".join(f"{k} {v:g}" for k, v in weights.items())


def percent(value: float) -> str:
    return f"{100 * value:+.1f}%" if math.isfinite(value) else "not priced"


def report(check: Check, title: str) -> list[str]:
    names = sorted(check.entries)
    chosen = check.choose(names)
    lines = [f"## {title}", "", f"Chosen on all {len(names)} graphs: {describe(chosen)} (autotune/lookup.py's "
             f"defaults: {describe((DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS))})", "",
             "| graph | own best (ms/SSSP) | entries used | priced | slowdown | nested: chosen without it | nested slowdown |",
             "|---|---:|---|---|---:|---|---:|"]
    plain, nested = [], []
    for name in names:
        slow, used, how = check.slowdown(name, chosen)
        others = [n for n in names if n != name]
        inner = check.choose(others, leave_out=[name])
        nested_slow, nested_used, _ = check.slowdown(name, inner)
        plain.append(slow)
        nested.append(nested_slow)
        lines.append(f"| {name} | {check.own[name]:.4g} | {used} | {how} | {percent(slow)} | "
                     f"{describe(inner)} ({nested_used}) | {percent(nested_slow)} |")
    defaults = [check.slowdown(name, (DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS))[0] for name in names]
    for label, values in (("chosen on all the graphs", plain), ("nested (chosen without the graph looked up)", nested),
                          ("autotune's defaults", defaults)):
        within = sum(v <= WITHIN for v in values)
        lines.append("")
        lines.append(f"- {label}: within 10% on **{within} of {len(values)}** graphs (target: at least 11 of 13), "
                     f"worst {percent(max(values))} (target: none worse than 25%), median {percent(statistics.median(values))}")
    lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", type=Path, help="a merged table (autotune table merge)")
    parser.add_argument("records", type=Path, help="a directory of the graphs' measurement records (*.jsonl)")
    args = parser.parse_args(argv)
    table, replay = Table.load(args.table), timers(args.records)
    lines = ["# Leave-one-graph-out check of Table.lookup", "",
             f"    python3 scripts/lookup_check.py {args.table} {args.records}", "",
             f"Table: {args.table} ({len(table.entries)} entries, {table.device.get('name')}); records: "
             f"{args.records}/*.jsonl. Slowdown: the looked-up configuration against the graph's own best, "
             "both priced from the graph's records (median of its verified records, else composed from "
             "uniform runs).", ""]
    lines += report(Check(table, replay), "Throughput: `lookup(graph)` (the best at any CK)")
    lines += report(Check(table, replay, queries=1), "Latency: `lookup(graph, queries=1)` (the curve at CK 1)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
