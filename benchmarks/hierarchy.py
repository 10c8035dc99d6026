"""Suite `hierarchy` (one GPU; issue 64): contraction hierarchies built by the tool on one core of the
GPU's host, the graphs it refuses, and what PHAST makes of the hierarchies it builds.

* Build: `autotune graph hierarchy G` of each graph of `--hierarchy-graphs`, a process pinned to one
  core (`taskset -c 0` where the host has it), in a cache directory of its own whose graph is already
  cached: the command's own build time ("built in", the contraction, layout and write), its wall
  time, levels and arcs.
* Refusal: the same for `--hierarchy-refused` (a 3D mesh of 54^3 vertices written by the suite as a
  DIMACS file, and random98k-d2): the wall time to the refusal, and the reason printed.
* PHAST: on each built graph, `autotune sssp --table T` with that hierarchy: one query (the table's
  configuration for one source, timed on the 32-source sample: warm-up, repetitions, CUDA events,
  every solve checked) and `--sources 1024` (milliseconds per SSSP, the sample checked). Where
  `--hierarchy-baseline DIR` holds the graph's hierarchy from an earlier contraction (a kept file,
  `<sha256>.npz`), the same two runs on it follow, the same configuration and sources: the two
  hierarchies in one run on one GPU.

Targets (issue 64, one core of the GPU host): usa-roads built in at most 3 s, road-FLA (1.07M
vertices) 20 s, road-NE (1.5M) 30 s, grid24 (the large suite's 2^24 grid) 5 minutes; PHAST's times no
worse than the earlier hierarchies give; an unsuited graph refused within 30 s, with why.

The results are written after each build and each graph's PHAST runs, and a run keeps the rows of
the graphs it does not measure again (`grid24`'s build is a call of its own on a lent machine).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from benchmarks import data
from benchmarks.results import (Results, command_line, commit, earlier_rows, graph_of, host, kept_rows, kept_section,
                                now, write)

TARGETS_S = {"usa-roads.gr.gz": 3.0, "road-FLA": 20.0, "road-NE": 30.0, "grid24": 300.0}
REFUSAL_TARGET_S = 30.0
MESH = "mesh3d54"  # the refused list's name for the 3D mesh the suite writes
STOPPED = 124  # a build's exit where `--hierarchy-limit` stopped it (as `timeout` says)


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hierarchy-graphs", default="usa-roads.gr.gz,road-FLA,road-NE",
                        help="graphs whose hierarchy is built and timed, PHAST run on it (default usa-roads.gr.gz, road-FLA, "
                             "road-NE: the targets' graphs, within one 10-minute call of a lent machine; grid20 "
                             "takes 90 s a build there)")
    parser.add_argument("--hierarchy-refused", default=f"{MESH},random98k-d2",
                        help=f"graphs the contraction should refuse ({MESH}: a 54^3 3D mesh the suite writes)")
    parser.add_argument("--hierarchy-table", default="tables/h200.json",
                        help="the table PHAST's configurations come from")
    parser.add_argument("--hierarchy-repeats", type=int, default=3,
                        help="builds of each graph, each in an empty hierarchy directory (the median reported)")
    parser.add_argument("--hierarchy-limit", type=float, default=None,
                        help="seconds a build may take: one still running then is stopped, its last progress line "
                             "kept (grid24 on one core of the H200's host within one 10-minute call)")
    parser.add_argument("--hierarchy-baseline", type=Path, default=None,
                        help="a directory of kept hierarchies (<sha256>.npz) from an earlier contraction, timed "
                             "against this one's")


def mesh3d(k: int, path: Path) -> Path:
    """A k^3 mesh, each vertex joined both ways to its six neighbours, weights 1..100 (seed 0), as DIMACS."""
    index = np.arange(k**3).reshape(k, k, k)
    tails = np.concatenate([np.take(index, range(k - 1), axis=a).ravel() for a in range(3)]) + 1
    heads = np.concatenate([np.take(index, range(1, k), axis=a).ravel() for a in range(3)]) + 1
    weights = np.random.default_rng(0).integers(1, 101, len(tails))
    lines = [f"p sp {k**3} {2 * len(tails)}"]
    lines += [f"a {u} {v} {w}\na {v} {u} {w}" for u, v, w in zip(tails.tolist(), heads.tolist(), weights.tolist())]
    path.write_text("\n".join(lines) + "\n")
    return path


def one_core() -> list[str]:
    """The prefix that pins a command to one core, where `taskset` is there."""
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache)}


def build(name: str, spec: str, cache: Path, repeats: int, limit_s: float | None = None) -> dict[str, Any]:
    """`graph hierarchy` on one core, `repeats` times, each in an empty hierarchy directory, with the
    graph cached and the contraction compiled first (the graph's load and the compiler's one run a
    machine apart): the median build and wall times, every run's, and the last run's hierarchy. A
    build still running after `limit_s` is stopped (exit `STOPPED`), its last progress line kept as
    the reason, and no other is made."""
    from autotune.graphs import load_graph
    from autotune.hierarchy.compiled import load

    graph = load_graph(spec, cache_dir=cache)
    load(cache / "build")
    row: dict[str, Any] = {"graph": name, "vertices": graph.n_vertices, "arcs": graph.n_edges, "sha256": graph.sha256,
                           "pinned": bool(one_core()), "walls_s": [], "builds_s": []}
    for _ in range(max(1, repeats)):
        shutil.rmtree(cache / "hierarchies", ignore_errors=True)
        start = time.perf_counter()
        quiet = ["--quiet"] if limit_s is None else []  # progress lines say how far a stopped build got
        try:
            done = subprocess.run([*one_core(), sys.executable, "-m", "autotune", "graph", "hierarchy", *quiet, spec],
                                  capture_output=True, text=True, env=environment(cache), timeout=limit_s)
        except subprocess.TimeoutExpired as stopped:
            row["walls_s"].append(time.perf_counter() - start)
            lines = (stopped.stderr or b"").decode(errors="replace").strip().splitlines()
            row.update(exit=STOPPED, reason=f"stopped after {limit_s:g} s" + (f": {lines[-1]}" if lines else ""))
            break
        row["walls_s"].append(time.perf_counter() - start)
        row["exit"] = done.returncode
        text = (done.stdout + done.stderr).strip()
        if built := re.search(r"(\d+) levels .*?([\d,]+) arcs with shortcuts .*built in ([\d.]+) s", text):
            row.update(levels=int(built.group(1)), hierarchy_arcs=int(built.group(2).replace(",", "")))
            row["builds_s"].append(float(built.group(3)))
        else:
            row["reason"] = text.splitlines()[-1] if text else ""
    row["wall_s"] = float(np.median(row["walls_s"]))
    row["build_s"] = float(np.median(row["builds_s"])) if row["builds_s"] else None
    return row


def sssp(spec: str, cache: Path, *extra: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "autotune", "sssp", "--graph", spec, *extra, "--json"],
                          capture_output=True, text=True, env=environment(cache))
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [""])[-1]}
    return json.loads(done.stdout)


def phast_times(spec: str, cache: Path, table: str, config: str | None) -> dict[str, Any]:
    """One query (the table's configuration for one source, or `config`) timed on the sample, and a
    batch of 1,024 sources, with the hierarchy kept in `cache`."""
    if config is None:
        first = sssp(spec, cache, "--table", table, "--source", "0")
        config = json.dumps(first["config"]) if "config" in first else None
    one = sssp(spec, cache, "--config", config) if config else {"error": "no configuration for one source"}
    batch = sssp(spec, cache, "--table", table, "--sources", "1024")
    return {"config": config, "one_query_ms": one.get("ms_per_sssp"), "one_query_algorithm": one.get("algorithm"),
            "one_query_verified": one.get("verified"), "one_query_error": one.get("error"),
            "batch_ms_per_sssp": batch.get("ms_per_sssp"), "batch_algorithm": (batch.get("config") or {}).get("algorithm"),
            "batch_verified_sources": batch.get("verified_sources"), "batch_error": batch.get("error")}


def with_hierarchy(cache: Path, sha256: str, source: Path) -> Path:
    """A cache directory whose kept hierarchy of the graph is `source`."""
    from autotune.hierarchy.store import VERSION

    kept = cache / "hierarchies" / VERSION
    kept.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, kept / f"{sha256}.npz")
    return cache


def run(args: argparse.Namespace) -> Results:
    """The suite (the module's docstring).

    Raises:
        InputError: `--hierarchy-baseline` is not a directory (refused before anything is built).
    """
    from autotune.errors import InputError
    from autotune.gpu import device_description, device_handle
    from autotune.hierarchy import Hierarchy
    from autotune.hierarchy.store import VERSION

    if args.hierarchy_baseline is not None and not args.hierarchy_baseline.is_dir():
        raise InputError(f"--hierarchy-baseline {args.hierarchy_baseline}: is not a directory of kept hierarchies "
                         "(<sha256>.npz)")
    gpu = device_description(device_handle(0))
    earlier = earlier_rows("hierarchy", args.results, gpu.get("name"))
    rows: list[dict[str, Any]] = []

    def results_of() -> Results:
        every = rows + kept_rows(earlier, rows, key=lambda r: (r.get("kind"), graph_of(r)))
        built = [r for r in every if r["kind"] == "built" and r.get("met") is not None]
        refused = [r for r in every if r["kind"] == "refused"]
        return Results("hierarchy", gpu, command_line(), commit(), now(), host(),
                       {"graphs": args.hierarchy_graphs, "refused": args.hierarchy_refused,
                        "table": args.hierarchy_table, "version": VERSION, "limit_s": args.hierarchy_limit,
                        "baseline": str(args.hierarchy_baseline or ""), "repeats": args.hierarchy_repeats},
                       tuple(every),
                       {"build_met": bool(built) and all(r["met"] for r in built),
                        "refusal_met": bool(refused) and all(r["met"] for r in refused)})

    def save() -> None:  # the rows so far written at once: a call cut short keeps them
        write(results_of(), args.results)

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for name in (n for n in args.hierarchy_refused.split(",") if n):
            spec = str(mesh3d(54, work / f"{MESH}.gr")) if name == MESH else data.spec(name)
            row = build(name, spec, work / f"refused-{name}", args.hierarchy_repeats)
            rows.append({"kind": "refused", **row, "met": row["exit"] == 2 and row["wall_s"] <= REFUSAL_TARGET_S,
                         "command": command_line()})
            save()
            print(f"hierarchy: {name} refused in {row['wall_s']:.1f} s: {row.get('reason', 'built')}", flush=True)
        for name in (n for n in args.hierarchy_graphs.split(",") if n):
            spec, cache = data.spec(name), work / f"built-{name}"
            row = build(name, spec, cache, args.hierarchy_repeats, args.hierarchy_limit)
            target = TARGETS_S.get(name)
            row.update(kind="built", target_s=target, command=command_line(),
                       met=None if target is None else row.get("build_s") is not None and row["build_s"] <= target)
            rows.append(row)
            save()
            print(f"hierarchy: {name} built in {row.get('build_s')} s ({row['wall_s']:.1f} s wall)", flush=True)
            if row.get("build_s") is None:
                continue
            row["phast"] = phast_times(spec, cache, args.hierarchy_table, None)
            baseline = args.hierarchy_baseline / f"{row['sha256']}.npz" if args.hierarchy_baseline else None
            if baseline is not None and not baseline.is_file():
                print(f"hierarchy: {name}: no earlier hierarchy in {args.hierarchy_baseline}", flush=True)
            elif baseline is not None:
                earlier_cache = with_hierarchy(work / f"baseline-{name}", row["sha256"], baseline)
                row["baseline"] = phast_times(spec, earlier_cache, args.hierarchy_table, row["phast"]["config"])
                row["baseline_levels"] = Hierarchy.from_file(baseline, row["vertices"]).levels
            save()
            print(f"hierarchy: {name} PHAST {row['phast']['one_query_ms']} ms one query, "
                  f"{row['phast']['batch_ms_per_sssp']} ms per SSSP in a batch", flush=True)
    return results_of()


def _range(values: list[float] | None) -> str:
    return f" [{min(values):.1f}-{max(values):.1f}]" if values and len(values) > 1 else ""


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        repeats = results.parameters.get("repeats", 1)
        lines.append(f"{results.gpu_name}'s host, one core (`{results.command}`, {results.date[:10]}, commit "
                     f"{results.commit}; hierarchies {results.parameters['version']}"
                     + (f"; the median of {repeats} builds, the range in brackets" if repeats > 1 else "") + "):")
        lines.append("")
        lines.append("| graph | vertices | built in (s) | wall (s) | target (s) | levels | arcs with shortcuts | PHAST one "
                     "query (ms) | PHAST batch (ms per SSSP) | earlier hierarchy: levels, one query, batch |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in results.measurements:
            if r["kind"] != "built":
                continue
            p, b = r.get("phast") or {}, r.get("baseline")
            earlier = "-" if not b else (f"{r['baseline_levels']}, {_ms(b['one_query_ms'])}, "
                                         f"{_ms(b['batch_ms_per_sssp'])}")
            target = "-" if r.get("target_s") is None else f"{r['target_s']:g} ({'met' if r['met'] else 'not met'})"
            build_s = "-" if r.get("build_s") is None else f"{r['build_s']:.1f}" + _range(r.get("builds_s"))
            lines.append(f"| {r['graph']} | {r['vertices']:,} | {build_s} | {r['wall_s']:.1f} | {target} | "
                         f"{r.get('levels', '-')} | {_count(r.get('hierarchy_arcs'))} | {_ms(p.get('one_query_ms'))} | "
                         f"{_ms(p.get('batch_ms_per_sssp'))} | {earlier} |")
        lines.append("")
        for r in results.measurements:
            if r["kind"] == "built" and r.get("build_s") is None:
                lines.append(f"- {r['graph']} ({r['vertices']:,} vertices): not built, {r.get('reason', '')}")
        for r in results.measurements:
            if r["kind"] == "refused":
                lines.append(f"- {r['graph']} ({r['vertices']:,} vertices): {'refused' if r['exit'] == 2 else 'NOT refused'}"
                             f" in {r['wall_s']:.1f} s of wall{_range(r.get('walls_s'))} ({'within' if r['met'] else 'past'} the "
                             f"{REFUSAL_TARGET_S:g} s target): {r.get('reason', '')}")
        lines.extend(kept_section(results))
    return lines
