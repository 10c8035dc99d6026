"""Leave-one-graph-out validation of the fitted model (autotune/model/fitted.py) on sweep records.

For each graph G of the records: fit the model on the other graphs' records, predict G's
configuration from G's features, price it from G's records (`ReplayTimer.price`: recorded, else
composed from uniform runs) and report the slowdown against G's best priced configuration. The
thesis model's prediction, which every sweep measured (role `prediction`), is priced alongside.
Issue 14's targets: within 15% of the best on at least 80% of the graphs, within 30% on all.

    python3 scripts/model_check.py reports/h100/table.json reports/h100/sweeps > reports/h100/model-check.md
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from autotune.model.fitted import fit
from autotune.search.records import records_by_graph
from autotune.search.replay import ReplayTimer
from autotune.tables import read_table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", type=Path, help="a table of the graphs (their features: autotune table merge --graph-features)")
    parser.add_argument("records", type=Path, help="a directory of the graphs' records (*.jsonl)")
    args = parser.parse_args(argv)
    by_graph = records_by_graph(args.records)
    features = {e["graph"]["name"]: e["graph"] for e in read_table(args.table)["entries"]}
    timers = {name: ReplayTimer(records) for name, records in sorted(by_graph.items()) if name in features}
    algorithm = next(iter(by_graph.values()))[0].algorithm
    lines = ["# Leave-one-graph-out validation of the fitted model", "",
             f"    python3 scripts/model_check.py {args.table} {args.records}", "",
             f"Algorithm {algorithm}; {len(timers)} graphs. Slowdown: the predicted configuration against the "
             "graph's best, both priced from the graph's records (median of its verified records, else composed "
             "from uniform runs). Fitted without the graph: its constants come from the other graphs' records only.",
             "", "| graph | best (ms/SSSP) | fitted model, without the graph | slowdown | thesis model | slowdown |",
             "|---|---:|---|---:|---|---:|"]
    fitted, thesis = [], []
    for name, timer in timers.items():
        others = {g: t for g, t in timers.items() if g != name}
        model = fit(others, features, algorithm)
        config, _ = model.predict(features[name])
        best = timer.best_price()
        price = timer.price(config)
        slow = price[0] / best - 1 if price else float("inf")
        predicted = next((r.measurement.config for r in timer.records if "prediction" in r.roles), None)
        thesis_price = timer.price(predicted) if predicted is not None else None
        thesis_slow = thesis_price[0] / best - 1 if thesis_price else float("inf")
        fitted.append(slow)
        thesis.append(thesis_slow)
        lines.append(f"| {name} | {best:.4g} | `{config}` | {100 * slow:+.1f}% | `{predicted}` | {100 * thesis_slow:+.1f}% |")
    for label, values in (("fitted model", fitted), ("thesis model", thesis)):
        lines += ["", f"- {label}: within 15% on **{sum(v <= 0.15 for v in values)} of {len(values)}** graphs "
                  f"(target: at least 80%, {-(-4 * len(values) // 5)}), within 30% on {sum(v <= 0.30 for v in values)} "
                  f"(target: all), worst {100 * max(values):+.1f}%, median {100 * statistics.median(values):+.1f}%"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
