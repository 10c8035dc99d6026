"""Suite `agreement` (no GPU): `Table.lookup` and `autotune predict --algorithm auto --table T` give
one configuration for a graph the table does not hold, at every K (issue 67: they answered two
ways, the nearest entries and the choice model).

For each shipped table (default `tables/h100.json` and `tables/h200.json`) and each of its graphs
whose source is on this machine (the files of tests/data and the generated graphs; the real-graph
suite's where `python3 -m benchmarks graphs` kept them), the graph is left out of the table (so
that neither answers it from its entry: the table less it is written to a file) and, for K = 1, 2,
4, ..., 1,024, the configuration of `Table.lookup(graph, queries=K)` is compared with the one
`autotune predict --algorithm auto --table T-less-G --queries K --no-hierarchy` writes (the command
in a process of its own; PHAST admitted, by both, where the graph's hierarchy is kept; the graph's
shape kept in the cache directory, as a user's second run finds it).

Target (issue 67): the same configuration for every graph of the suite and every K.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from benchmarks import data
from benchmarks.results import Results, command_line, commit, host, now

QUERIES = tuple(2**i for i in range(11))  # 1 .. 1,024
TABLES = ("tables/h100.json", "tables/h200.json")


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agreement-tables", default=",".join(TABLES),
                        help="suite agreement: the tables (default the shipped ones)")
    parser.add_argument("--agreement-graphs", default="",
                        help="suite agreement: its graphs (default: every graph of each table whose source is here)")


def predicted(table_file: Path, graph_spec: str, queries: int) -> Any:
    """The configuration (a `LaunchConfig`) `autotune predict --algorithm auto --table` writes for
    one graph and K: the command in a process of its own, as a user runs it."""
    from autotune.table import Table

    out = table_file.with_name(f"predicted-{queries}.json")
    subprocess.run([sys.executable, "-m", "autotune", "predict", "--algorithm", "auto", "--table", str(table_file),
                    "--graph", graph_spec, "--queries", str(queries), "--no-hierarchy", "-o", str(out)],
                   check=True, capture_output=True)
    (entry,) = Table.load(out).entries
    return entry.predicted.config


def graph_rows(table_path: Path, table: Any, name: str) -> list[dict[str, Any]]:
    """Every K's two configurations for one graph left out of one table (`table`, read from
    `table_path`): the lookup's as text, and predict's where it differs."""
    from autotune.table import Table

    try:
        graph_spec = data.spec(name)
        graph = data.load_spec(graph_spec)
    except Exception as error:  # a real graph whose source is not kept here
        return [{"table": data.shown(table_path), "graph": name, "skipped": f"{type(error).__name__}: {error}"}]
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        reduced = Path(directory) / "table.json"
        held = [e.name for e in table.entries if data.suite_name(e.name) == data.suite_name(name)]  # NAME.csr.npz
        reduced.write_text(json.dumps(table.without(held or [name]).data))
        left = Table.load(reduced)  # read as predict reads it; its model fitted once, for every K
        for k in QUERIES:
            looked_up = left.lookup(graph, queries=k, device=None)
            by_predict = predicted(reduced, graph_spec, k)
            same = looked_up.config.to_json() == by_predict.to_json()  # compared as JSON, kept as text
            rows.append({"table": data.shown(table_path), "graph": name, "queries": k, "source": looked_up.source,
                         "lookup": str(looked_up.config), "same": same, **({} if same else {"predict": str(by_predict)})})
    print(f"agreement: {data.shown(table_path)}: {name}: "
          f"{sum(r['same'] for r in rows)} of {len(rows)} Ks the same", flush=True)
    return rows


def run(args: argparse.Namespace) -> Results:
    from autotune.table import Table

    tables = [data.ROOT / t if not Path(t).is_absolute() else Path(t)
              for t in getattr(args, "agreement_tables", ",".join(TABLES)).split(",") if t]
    chosen = [g for g in getattr(args, "agreement_graphs", "").split(",") if g]
    rows = []
    for path in tables:
        table = Table.load(path)
        for name in chosen or sorted(e.name for e in table.entries):
            rows += graph_rows(path, table, name)
    checked = [r for r in rows if "skipped" not in r]
    graphs = {(r["table"], r["graph"]) for r in checked}
    return Results("agreement", {"name": "no GPU"}, command_line(), commit(), now(), host(),
                   {"tables": [data.shown(t) for t in tables], "queries": list(QUERIES)}, tuple(rows),
                   {"graphs": len(graphs), "checks": len(checked), "same": sum(r["same"] for r in checked),
                    "skipped": sorted({f"{r['table']}: {r['graph']}" for r in rows if "skipped" in r}),
                    "met": bool(checked) and all(r["same"] for r in checked)})


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = results.summary
        differ = [r for r in results.measurements if "skipped" not in r and not r["same"]]
        lines += [f"`Table.lookup` against `autotune predict --algorithm auto --table`, each graph left out of "
                  f"{', '.join(f'`{t}`' for t in results.parameters['tables'])}, K = 1 to 1,024 "
                  f"(`{results.command}`, {results.date[:10]}, commit {results.commit}): the same configuration in "
                  f"{s['same']} of {s['checks']} (graph, K) over {s['graphs']} (table, graph); target (all) "
                  f"**{'met' if s['met'] else 'not met'}**. Not checked here (the real-graph suite's sources not kept "
                  f"on the machine that ran it): {len(s['skipped'])} (table, graph).", ""]
        if differ:
            lines += ["| table | graph | K | lookup | predict |", "|---|---|---:|---|---|"]
            lines += [f"| {r['table']} | {r['graph']} | {r['queries']} | {r['lookup']} | {r['predict']} |" for r in differ]
            lines.append("")
    return lines
