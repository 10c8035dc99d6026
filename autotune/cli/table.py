"""`autotune table merge|show`: one table per GPU from several sweeps, and what a table holds.

    autotune table merge sweeps/*.json --graph-features -o tables/h100.json
    autotune table show tables/h100.json
    autotune table export tables/h100.json --format c-header -o tuned_sssp.h
"""
from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from autotune.table.entry import Entry
from autotune.table.merge import PREFERENCES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("table", help="merge tables of one GPU, show a table",
                                   description="Work on tuned tables (format: docs/tables.md).")
    commands = parser.add_subparsers(dest="table_command", metavar="ACTION", required=True)

    merge = commands.add_parser(
        "merge", help="merge tables of one GPU into one",
        description="Merge tables of one GPU, of one algorithm or several (then the merged table is auto, each "
        "entry keeping each algorithm's best). A graph held by several tables keeps one entry: "
        "the faster measured best (--prefer faster, the default) or the newer table's (--prefer newer); the merge "
        "prints which and why. Per CK, the merged latency curve keeps the fastest verified point of any of them.")
    merge.add_argument("tables", nargs="+", metavar="TABLE.json")
    merge.add_argument("--output", "-o", metavar="FILE.json", required=True, help="the merged table")
    merge.add_argument("--prefer", choices=PREFERENCES, default="faster",
                       help="which entry of a graph held by several tables wins (default: faster)")
    merge.add_argument("--graph-features", action="store_true",
                       help="add the degree skew and weight figures to entries written before they were recorded, "
                       "loading each graph by its name (a generator spec or a file; its sha256 is checked)")
    merge.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    merge.set_defaults(run=run_merge)

    export = commands.add_parser(
        "export", help="a table for programs without Python: a C/C++ header, or flat JSON",
        description="Write a table as a self-contained C/C++ header (the entries as constant data, "
        "autotune_lookup(), which answers as Table.lookup does, and autotune_model(), the table's model in C for a "
        "graph of every figure it reads; docs/tables.md) or as flat JSON (per entry, the "
        "configuration Table.lookup gives its graph for 1, 2, 4, ..., 1024 queries at once).")
    export.add_argument("table", metavar="TABLE.json")
    export.add_argument("--format", choices=("c-header", "json"), default="c-header",
                        help="c-header (default) or json")
    export.add_argument("--output", "-o", metavar="FILE", required=True, help="the file to write")
    export.set_defaults(run=run_export)

    show = commands.add_parser("show", help="a summary of a table: its GPU, and per graph the best and its curve",
                               description="Print a table's GPU and, per graph, its features, the best configuration, "
                               "its time per SSSP and the latency curve (the best per CK).")
    show.add_argument("table", metavar="TABLE.json")
    show.set_defaults(run=run_show)


def run_merge(args: argparse.Namespace) -> int:
    from autotune.cli.options import load_spec
    from autotune.files import check_outputs, check_replaceable, is_json_with
    from autotune.table.merge import fill_graph_features, merge_tables
    from autotune.table.format import read_table, write_table

    check_outputs({"--output": args.output}, [("an input table", path) for path in args.tables])
    check_replaceable(args.output, lambda path: is_json_with(path, "schema", "autotune.table/"), "an autotune table")
    tables = [read_table(path) for path in args.tables]
    command = "autotune table " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["table"] else sys.argv[1:])
    merged = merge_tables(tables, list(args.tables), args.prefer, command=command if sys.argv[1:] else None)
    missed = []
    if args.graph_features:
        missed = fill_graph_features(merged.table, lambda graph: load_spec(graph["name"], graph.get("seed"),
                                                                           graph.get("weights")))
    write_table(args.output, merged.table)
    for line in missed:
        print(f"autotune: no graph features for {line}", file=sys.stderr)
    if not args.quiet:
        for line in merged.decisions:
            print(line)
        print(f"wrote {args.output}: {merged.graphs} graph(s) from {len(tables)} table(s)")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from autotune.files import atomic_write, check_outputs, check_replaceable, is_json_with, starts_with
    from autotune.table.export import HEADER_START, JSON_FORMAT, export
    from autotune.table.lookup import Table

    check_outputs({"--output": args.output}, {"the table": args.table})
    if args.format == "c-header":
        check_replaceable(args.output, lambda path: starts_with(path, HEADER_START), "a header autotune exported")
    else:
        check_replaceable(args.output, lambda path: is_json_with(path, "format", JSON_FORMAT), "a JSON export of a table")
    table = Table.load(args.table)
    atomic_write(args.output, export(table, args.format, source=str(args.table)), "the export")
    print(f"wrote {args.output}: {len(table.entries)} entries of {args.table} as {args.format}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table as RichTable

    from autotune.table.lookup import Table

    table = Table.load(args.table)
    device = table.device
    console = Console(width=None if sys.stdout.isatty() else 160, highlight=False)
    console.print(f"[bold]{escape(args.table)}[/]: {table.data['schema']}, {table.data['algorithm']}, "
                  f"{escape(str(device.get('name')))} (CC {device.get('compute_capability')}, "
                  f"{device.get('sm_count')} SMs), created {table.data.get('created')}")
    grid = RichTable(show_lines=True, expand=True)
    for column, justify in (("graph", "left"), ("vertices", "right"), ("mean degree", "right"),
                            ("degree cv", "right"), ("best", "left"), ("ms/SSSP", "right"),
                            ("curve (CK: ms/SSSP)", "left"), ("search", "left")):
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    for entry in table.entries:
        shown = entry.best or entry.predicted
        ms = entry.best.ms_per_sssp if entry.best is not None else None
        grid.add_row(escape(entry.name), f"{entry.graph.vertices:,}", f"{entry.graph.mean_degree:.1f}",
                     _number(entry.graph.get("degree_cv")),
                     escape(_config_line(shown.config) if shown else "-") + ("" if entry.best or not shown
                                                                             else "\n(predicted)"),
                     f"{ms:.4g}" if ms is not None else "-", _curve(entry), _search(entry, table.partial_entry(entry)))
    console.print(grid)
    return 0


def _number(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def _curve(entry: Entry) -> str:
    return ", ".join(f"{p.ck}: {p.ms_per_sssp:.3g}" for p in entry.curve) or "-"


def _config_line(config: Any) -> str:
    """A configuration in one short line: algorithm, CK, lanes, block size/cache per kernel, parameters."""
    head = f"{config.algorithm} CK {config.concurrent_kernels}" + (f" L {config.lanes}" if config.lanes != 1 else "")
    kernels = ", ".join(f"{name} {launch.block_size}/{launch.cache.value}" for name, launch in config.kernels.items())
    params = " ".join(f"{name}={value}" for name, value in config.params.items())
    return f"{head}: {kernels}" + (f"; {params}" if params else "")


def _search(entry: Entry, partial: bool) -> str:
    parts = [str(entry.get("strategy", "-"))]
    if entry.evaluations is not None:
        parts.append(f"{entry.evaluations} evaluations")
    if partial:
        parts.append("partial")
    return "\n".join(parts)
