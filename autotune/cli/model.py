"""`autotune model fit`: fit the model for today's GPUs on sweep records (autotune/algorithms/thesis/fitted.py).

    autotune model fit benchmarks/data/h100/crauser.records.jsonl.gz --features benchmarks/data/h100/crauser-table.json.gz \
        -o characterizations/fitted-h100-crauser.toml
"""
from __future__ import annotations

import argparse
import math
from collections import defaultdict
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("model", help="fit the model for today's GPUs on sweep records",
                                   description="Work on the fitted model (autotune/algorithms/thesis/fitted.py).")
    commands = parser.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    fit = commands.add_parser(
        "fit", help="fit its constants on sweep records and write them, with the records they came from",
        description="Fit the fitted model's constants (per kernel block size and L1 state, the lanes rule, the "
        "vertices in flight per resident thread that set CK) on the records of sweeps of one algorithm on one GPU, "
        "and write them as TOML with the digests of the records. `autotune predict --model FILE` predicts with them, "
        "`autotune sweep --model FILE` starts from that prediction.")
    fit.add_argument("records", nargs="+", metavar="RECORDS", help="records files (.jsonl) or directories of them")
    fit.add_argument("--features", metavar="TABLE.json", required=True,
                     help="a table holding the graphs' features (vertices, mean degree, degree skew): "
                     "autotune table merge --graph-features")
    fit.add_argument("--output", "-o", metavar="FILE.toml", required=True)
    fit.set_defaults(run=run_fit)
    choice = commands.add_parser(
        "fit-choice", help="fit which algorithm predict --algorithm auto picks, on a tuned table",
        description="Fit the choice model (autotune/predict/choice.py): a small decision tree over the graph's features "
        "and the number of sources at once, on the winners of every curve point of a table of default sweeps "
        "(tables/h100.json); `autotune predict --algorithm auto` reads it. With --shapes, also Delta-stepping's "
        "one-query rules (autotune/algorithms/delta/latency.py: a grid or one block, Delta, block size, bins) on the "
        "table's one-query winners.")
    choice.add_argument("table", metavar="TABLE.json", help="a table of `autotune sweep`'s queries curve")
    choice.add_argument("--shapes", metavar="SHAPES.json", default=None,
                        help="the table's graphs' shapes (python3 -m benchmarks shapes: benchmarks/data/shapes.json)")
    choice.add_argument("--latency-rows", metavar="ROWS.jsonl", nargs="+", default=[],
                        help="with --shapes: the one-query probes' rows (scripts/probe_latency_grid.py: the prediction "
                        "at every Delta; probe_latency_bins.py: the grid's at every block size and threshold), on which "
                        "those values are fitted by their price rather than as the winners' medians")
    choice.add_argument("--latency-from", metavar="CHOICE.toml", default=None,
                        help="take Delta-stepping's one-query rules from this choice model (one fitted on the probes of a "
                        "GPU of the same kind: the H100's for the H200) instead of fitting them; with --shapes, the "
                        "tree still reads the graphs' depths")
    choice.add_argument("--spread-rows", metavar="ROWS.jsonl", nargs="+", default=[],
                        help="with --shapes: the probe's rows at a few sources at once (scripts/probe_latency_grid.py "
                        "OUT GRAPHS K: the shared-out grid at every Delta and two block sizes), on which the Delta and "
                        "block size of one query's grid shared out over K are fitted (delta.spread)")
    choice.add_argument("--bins-rows", metavar="ROWS.jsonl", nargs="+", default=[],
                        help="with --shapes: the batch end's block sizes priced on the table's GPU "
                        "(scripts/probe_batch_bins.py), on which Delta-stepping's ladder of block sizes by level width "
                        "is fitted for that GPU (delta rule 5; without it, the characterization's)")
    choice.add_argument("--output", "-o", metavar="FILE.toml", required=True)
    choice.set_defaults(run=run_fit_choice)


def record_files(inputs: list[str]) -> list[Path]:
    files = []
    for item in map(Path, inputs):
        files += sorted(item.glob("*.jsonl")) if item.is_dir() else [item]
    return files


def run_fit(args: argparse.Namespace) -> int:
    from autotune.algorithms.thesis.fitted import FORMAT, file_digest, fit
    from autotune.errors import InputError
    from autotune.files import atomic_write, check_outputs, check_replaceable, is_toml_with
    from autotune.search.results.records import read_records
    from autotune.search.timers.replay import ReplayTimer
    from autotune.table.lookup import Table

    check_outputs({"--output": args.output}, [*(("a records input", path) for path in args.records),
                                              ("--features", args.features)])
    check_replaceable(args.output, lambda path: is_toml_with(path, "format", FORMAT.rpartition("/")[0]),
                      "a fitted model")
    files = record_files(args.records)
    if not files:
        raise InputError(f"{', '.join(args.records)}: no records files (.jsonl)")
    by_graph: dict[str, list] = defaultdict(list)
    sources = []
    for path in files:
        records = read_records(path)
        for record in records:
            by_graph[record.graph.name].append(record)
        names = sorted({r.graph.name for r in records})
        sources.append({"graph": ", ".join(names), "records": str(path), "sha256": file_digest(path)})
    algorithms_ = {r.algorithm for records in by_graph.values() for r in records}
    devices = {r.device.get("name", "") for records in by_graph.values() for r in records}
    device = next(iter(by_graph.values()))[0].device
    if len(algorithms_) != 1 or len(devices) != 1:
        raise InputError(f"the records hold {len(algorithms_)} algorithm(s) and {len(devices)} GPU(s); fit on one of each")
    features = {e.name: e.graph.to_json() for e in Table.load(args.features).entries}
    missing = sorted(set(by_graph) - set(features))
    if missing:
        raise InputError(f"{args.features}: no features of {', '.join(missing)}")
    timers = {name: ReplayTimer(records) for name, records in sorted(by_graph.items())}
    model = fit(timers, features, algorithms_.pop(), device, sources)
    atomic_write(args.output, model.to_toml(), "the fitted model")
    worst = max(model.fit_slowdown.values())
    print(f"wrote {args.output}: {model.algorithm} on {model.device.get('name')}, {len(timers)} graphs; on its own graphs "
          f"within {100 * worst:.1f}% of each best (python3 -m benchmarks run model checks it leaving each graph out)")
    return 0


def run_fit_choice(args: argparse.Namespace) -> int:
    from autotune.errors import InputError
    from autotune.files import atomic_write, check_outputs, check_replaceable, is_toml_with
    from autotune.predict.choice import FORMAT
    from autotune.table.fit import fit_table

    if args.latency_rows and not args.shapes:
        raise InputError("fit-choice: --latency-rows prices the one-query rules, which need --shapes")
    if args.spread_rows and not args.shapes:
        raise InputError("fit-choice: --spread-rows prices the rules of a few queries at once, which need --shapes")
    if args.bins_rows and not args.shapes:
        raise InputError("fit-choice: --bins-rows prices the block sizes by level width, which need --shapes")
    if args.latency_from and args.latency_rows:
        raise InputError("fit-choice: --latency-from takes the one-query rules as they are; --latency-rows fits them: "
                         "give one")
    inputs = [("a table", args.table)] + ([("--shapes", args.shapes)] if args.shapes else [])
    inputs += [("--latency-from", args.latency_from)] if args.latency_from else []
    check_outputs({"--output": args.output}, inputs + [("--latency-rows", row) for row in args.latency_rows]
                  + [("--spread-rows", row) for row in args.spread_rows] + [("--bins-rows", row) for row in args.bins_rows])
    check_replaceable(args.output, lambda path: is_toml_with(path, "format", FORMAT.rpartition("/")[0]),
                      "a choice model")
    model = fit_table(args.table, args.shapes, args.latency_rows, args.latency_from, args.spread_rows, args.bins_rows)
    atomic_write(args.output, model.to_toml(), "the choice model")
    on = model.fitted_on
    print(f"wrote {args.output}: {len(model.nodes)} nodes, fitted on {on['graphs']} graphs of {args.table} "
          f"({on['device']}); it names the winner of {on['agreeing']} of its {on['samples']} curve points")
    if model.latency is not None:
        rules = model.latency
        print(f"  delta one query: one block below a level width of {rules.width_threshold:,.0f}, else "
              f"{rules.grid_blocks} blocks; the shape of {rules.placed} of its {rules.samples} winners")
        for shape, priced in rules.delta_priced.items():
            print(f"  {shape} Delta: {rules.delta_ratio[shape]} x unit / mean degree^{rules.degree_exponent[shape]}, "
                  + (f"the least slowdown on {priced} graphs' prices" if priced else "the winners' median ratio"))
        if rules.grid_bins:
            split = rules.grid_bins
            sides = (f"{split['low']} below a level width of {split['cut']:,.0f}, else {split['high']}"
                     if split["cut"] else str(split["low"]))
            print(f"  grid block size and threshold: {sides}, the least slowdown on {split['graphs']} graphs' bins prices")
        print("  grid deferral: none (no grid winner defers)" if math.isinf(rules.defer_degree) else
              f"  grid deferral: from a mean degree of {rules.defer_degree:.1f}, W = {rules.defer_weights:g} x the "
              "largest weight (the deferring grid winners' median)")
        if rules.spread:
            spread = rules.spread
            print(f"  {spread['queries']} at once: blocks of {spread['block_size']}, Delta {spread['delta_ratio']} x unit / "
                  f"mean degree^{spread['degree_exponent']} / (vertices / 2^16)^{spread['vertices_exponent']}, the "
                  f"least slowdown on {spread['graphs']} graphs' prices")
        if rules.batch_ladder:
            steps = ", ".join(f"{size} from {start:,.0f}" for size, start in rules.batch_ladder.items())
            print(f"  delta batch block size by level width: {steps}")
    return 0
