"""Suite `tables` (one GPU): the default sweep (`autotune sweep --graph G`: auto, the queries curve)
of every suite graph, each in a process of its own and timed whole (start-up included), and the
shipped table they make, `tables/<gpu>.json` (`autotune table merge`).

Per graph: the sweep's wall time against its target (issue 27: at most 60 s for a graph of up to
about 250k vertices and 4M edges, 120 s for rmat20), its evaluations, the winner, and its queries
curve (the best per number of SSSPs at once).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from autotune.table.entry import entries_of
from benchmarks import data
from benchmarks.results import ROOT, Results, command_line, commit, earlier_rows, host, kept_rows, now, write


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sweep-graphs", default=",".join(data.REAL + data.GENERATED),
                        help="the graphs to sweep (default: the whole suite)")
    parser.add_argument("--sweep-option", action="append", default=[], metavar="OPTION",
                        help="an option passed to every sweep (repeatable; default: none, the default sweep)")
    parser.add_argument("--table-out", type=Path, default=None, help="the merged table (default tables/<gpu>.json)")


def target_s(vertices: int, edges: int) -> float | None:
    if vertices <= 262_144 and edges <= 4_300_000:
        return 60.0
    if vertices <= 1_048_576 and edges <= 34_000_000:
        return 120.0
    return None


OVER_LIMIT = 124  # the exit status of a process stopped at its time limit (as `timeout` reports it)
GRACE_S = 30.0  # after SIGTERM at its limit, how long a process has to write what it measured before it is killed


def timed_autotune(arguments: Sequence[str], limit_s: float | None = None, stderr_to: Path | None = None
                   ) -> tuple[int, float, str]:
    """`autotune ARGUMENTS` in a process of its own, timed whole: (exit status, wall s, stderr's tail).
    With `limit_s`, a process still running after that many seconds is sent SIGTERM (a sweep then
    writes what it measured) and killed `GRACE_S` later: status `OVER_LIMIT`, so that a suite's call
    keeps a row and the process's own account of where its time went. `stderr_to`: its whole stderr
    kept in that file."""
    start = time.perf_counter()
    with subprocess.Popen([sys.executable, "-m", "autotune", *arguments], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            _, err = process.communicate(timeout=limit_s)
            status = process.returncode
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                _, err = process.communicate(timeout=GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                _, err = process.communicate()
            status = OVER_LIMIT
    if stderr_to is not None:
        stderr_to.write_text(err)
    return status, time.perf_counter() - start, err.strip()[-500:]


def sweep(spec: str, out: Path, options: Sequence[str], limit_s: float | None = None,
          stderr_to: Path | None = None) -> tuple[int, float, str]:
    return timed_autotune(["sweep", "--graph", spec, "-o", str(out), "-q", *options], limit_s, stderr_to)


def swept_row(name: str, out: Path, status: int, wall: float, err: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A graph's row, and its table's GPU (empty when the sweep wrote no table)."""
    row: dict[str, Any] = {"graph": name, "status": status, "wall_s": wall, "commit": commit(), "date": now()}
    if not out.exists():
        return {**row, "error": err}, {}
    table = json.loads(out.read_text())
    entry = entries_of(table)[0]
    graph = entry.graph
    row |= {"vertices": graph.vertices, "edges": graph.edges, "target_s": target_s(graph.vertices, graph.edges),
            "evaluations": entry.evaluations, "algorithm": entry.algorithm,
            "best_ms": entry.best.ms_per_sssp, "best_ck": entry.best.ck,
            "curve": {str(p.ck): [p.algorithm, p.ms_per_sssp] for p in entry.curve},
            "by_algorithm": {a: p.ms_per_sssp for a, p in entry.by_algorithm.items()}}
    return row, {k: table["device"].get(k) for k in ("name", "compute_capability", "sm_count", "cuda_version")}


def run(args: argparse.Namespace) -> Results:
    """Sweep the graphs one by one; after each, its entry goes into the shipped table and the
    results file is written, so that a run cut short keeps what it measured."""
    rows: list[dict[str, Any]] = []
    gpu: dict[str, Any] = {}
    found = None
    with tempfile.TemporaryDirectory() as scratch:
        for name in [g for g in args.sweep_graphs.split(",") if g]:
            out = Path(scratch) / f"{name}.json"
            status, wall, err = sweep(data.spec(name), out, args.sweep_option)
            row, device = swept_row(name, out, status, wall, err)
            rows.append({**row, "options": list(args.sweep_option)})
            gpu = device or gpu
            print(f"tables: {name}: exit {status} in {wall:.1f} s", flush=True)
            if not device:
                continue
            merged = args.table_out or ROOT / "tables" / f"{data.gpu_file(str(gpu['name']))}.json"
            earlier = [str(merged)] if merged.exists() else []  # its other graphs' entries stay
            subprocess.run([sys.executable, "-m", "autotune", "table", "merge", *earlier, str(out), "--prefer", "newer",
                            "-q", "-o", f"{scratch}/merged.json"], check=True)
            merged.parent.mkdir(parents=True, exist_ok=True)
            Path(f"{scratch}/merged.json").replace(merged)
            found = results_of(args, rows, gpu, merged)
            write(found, args.results)
    return found or results_of(args, rows, gpu or {"name": "unknown"}, None)


def results_of(args: argparse.Namespace, rows: list[dict[str, Any]], gpu: dict[str, Any], merged: Path | None) -> Results:
    kept = kept_rows(earlier_rows("tables", args.results, gpu.get("name")), rows)  # graphs of an earlier run keep theirs
    rows = sorted([*rows, *kept], key=lambda r: r["graph"])
    targeted = [r for r in rows if r.get("target_s")]
    table = None if merged is None else str(merged.relative_to(ROOT)) if merged.is_relative_to(ROOT) else str(merged)
    summary = {"graphs": len(rows), "swept": sum(r["status"] == 0 for r in rows),
               "within_target": sum(r["wall_s"] <= r["target_s"] for r in targeted), "with_target": len(targeted),
               "table": table, "sweep_options": list(args.sweep_option)}
    return Results("tables", gpu, command_line(), commit(), now(), host(),
                   {"graphs": args.sweep_graphs, "sweep_options": list(args.sweep_option)}, tuple(rows), summary)


def row_options(row: dict[str, Any], results: Results) -> list[str]:
    """The options a row's sweep had: its own, or for a row written before rows kept them, the
    run's where the row is of the run's commit (none otherwise)."""
    if "options" in row:
        return list(row["options"])
    return list(results.summary.get("sweep_options", [])) if row.get("commit") == results.commit else []


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = results.summary
        optioned = [f"{r['graph']} (`{' '.join(o)}`)" for r in results.measurements if (o := row_options(r, results))]
        more = f" (with more options: {', '.join(optioned)})" if optioned else ""
        lines += [f"{results.gpu_name}: `autotune sweep --graph G` per graph{more}, "
                  f"each timed whole in a process of its own (`python3 -m benchmarks run tables "
                  f"--sweep-graphs ...`; each row names the commit its run measured, the last {results.date[:10]}); "
                  f"merged into `{s['table']}`. Within the wall-time target: **{s['within_target']} of "
                  f"{s['with_target']}**.", "",
                  "| graph | wall (s) | target (s) | evaluations | winner | best (ms per SSSP) | at CK | one query (ms) | commit |",
                  "|---|---:|---:|---:|---|---:|---:|---:|---|"]
        for r in results.measurements:
            if "error" in r:
                lines.append(f"| {r['graph']} | {r['wall_s']:.1f} | | | exit {r['status']} | | | | {r['commit']} |")
                continue
            one = r["curve"].get("1")
            lines.append(f"| {r['graph']} | {r['wall_s']:.1f} | {r['target_s'] or '-'} | {r['evaluations']} | "
                         f"{r['algorithm']} | {r['best_ms']:.4g} | {r['best_ck']} | "
                         f"{f'{one[1]:.4g} ({one[0]})' if one else '-'} | {r['commit']} |")
        lines.append("")
    return lines
