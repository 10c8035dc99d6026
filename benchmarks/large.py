"""Suite `large` (one GPU): issue 68's graphs, 4-100x the suite's, swept as a user would sweep them.

The graphs (`LARGE`): Graph500-style R-MAT (rmat22-24), GAP's uniform random graphs (urand22 and
urand24: 16 edges a vertex, both ways), the PACE 2016 road networks NE and NW (the manifest's
`suite = "large"`, same repository and commit as the real-graph suite's roads) and the DIMACS
square family's road-like grids (grid22, grid24). Generated graphs are cached
(`AUTOTUNE_CACHE_DIR`), the road networks converted once (`python3 -m benchmarks graphs --only
road-NE,road-NW`).

Per graph, first the graph generated or read and cached (`autotune graph info G`, timed on its own:
a user's sweeps after the first start from the cache, and the issue's targets are for those); then,
each in a process of its own and timed whole (start-up, loading the cached graph, the references and
the hierarchy included): the default sweep (`autotune sweep --graph G`, the queries curve), with its
records (`--records`) counted for the verified configurations it measured at CK 1 and at the batch
end's CK (the curve's best per SSSP) and read for when its first measurement ended (the issue's 15 s
from the start) and its stderr for the time of its CPU references (`reference.cache.Computation`)
and of the GPU's share of them (`ReferenceCache.ensure`), its GPU memory per CK (`x-memory`) and the
one query's and the batch end's bests; with `--large-dedicated S`, also the sweeps dedicated to each
end (`--objective latency` and `--objective throughput`, `--budget S`: the issue's 10 minutes is
600, more than a lent machine's 10-minute call holds with the graph's start-up, so 500-560 there; a
dedicated sweep may converge and stop sooner, as rmat22's did at 225 and 280 s), against which the
default sweep's ends are compared;
`--large-sweeps latency` (or throughput) runs that one alone, a call of a lent machine, the rows of
the others kept from earlier runs. `--large-keep DIR` keeps each sweep's table, records and stderr, to
read where its time went; `--large-limit S` stops a sweep still running after S seconds (SIGTERM: it
writes what it measured), so that a call's own limit does not lose its row (urand24's default sweep
had not ended when its call ran out, at 6ce4af0: no row).

Targets (issue 68): the default sweep within 180 s for a graph of up to 300M arcs (300 s above),
at least 30 verified configurations at CK 1 and 30 at the batch end, and each end within 15% of
the sweep dedicated to it; no out-of-memory error (`--large-option=--max-memory=80G` for the
80 GB bound).
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from autotune.table.entry import Entry, entries_of
from benchmarks import data, tables
from benchmarks.results import Results, command_line, commit, earlier_rows, graph_by_graph, host, kept_rows, now

LARGE = ("rmat22", "rmat23", "rmat24", "urand22", "urand24", "road-NE", "road-NW", "grid22", "grid24")
OBJECTIVES = ("curve", "latency", "throughput")  # the default sweep, and the sweeps dedicated to each end
ENOUGH = 30  # the verified configurations at each end of a default sweep
WITHIN = 0.15
LARGE_ARCS = 300_000_000
REFERENCES_SAID = re.compile(r"the CPU references of \d+ sources: ([0-9.]+) s")
GPU_REFERENCES_SAID = re.compile(r"the references of (\d+) more sources solved on the GPU in ([0-9.]+) s")
HIERARCHY_SAID = re.compile(r"contraction hierarchy of (\d+) levels built in ([0-9.]+) s")


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--large-graphs", default=",".join(LARGE),
                        help="the graphs (default: the issue's nine; a lent machine's 10-minute call holds one or two)")
    parser.add_argument("--large-dedicated", type=int, default=0, metavar="SECONDS",
                        help="also sweep each end alone with this budget (--objective latency and throughput; "
                             "default 0: the default sweep only)")
    parser.add_argument("--large-option", action="append", default=[], metavar="OPTION",
                        help="an option passed to every sweep (repeatable, e.g. --large-option=--max-memory=80G)")
    parser.add_argument("--large-sweeps", default="", metavar="LIST",
                        help="which of curve, latency, throughput to run (default: curve, and the two dedicated "
                             "ones with --large-dedicated); one dedicated 10-minute sweep fills a lent machine's call, "
                             "and a later run keeps the rows of the others")
    parser.add_argument("--large-keep", type=Path, default=None, metavar="DIR",
                        help="also keep each sweep's table, records (gzip) and stderr in DIR, as <graph>-<sweep>.json, "
                             ".records.jsonl.gz and .stderr.txt: where its time went, for a lent machine's run that "
                             "cannot be repeated")
    parser.add_argument("--large-limit", type=float, default=0.0, metavar="SECONDS",
                        help="stop a sweep still running after this many seconds (SIGTERM: it writes what it measured; "
                             "its row's status 124), so that a call's own time limit does not lose the row "
                             "(default 0: none)")


def target_s(arcs: int) -> float:
    """The default sweep's wall-time target: 180 s up to 300M arcs, 300 s above."""
    return 180.0 if arcs <= LARGE_ARCS else 300.0


def prepare(spec: str) -> tuple[int, float, str]:
    """The graph generated (or read) and cached before its sweeps, in a process of its own
    (`autotune graph info`, which also keeps its shape): (exit status, wall s, stderr's tail). A
    user's sweeps after the first start from the cache; the issue's targets are for those."""
    return tables.timed_autotune(["graph", "info", spec])


def sweep(spec: str, objective: str, budget: int | None, options: Sequence[str], scratch: Path,
          limit_s: float | None = None) -> tuple[int, float, str, Path, Path, float]:
    """One sweep in a process of its own, timed whole and stopped after `limit_s` where given
    (`tables.timed_autotune`), its stderr kept in `scratch` (`stderr_of`): (exit status, wall s,
    stderr's tail, its table, its records, the epoch second it started)."""
    out, records = scratch / f"{objective}.json", scratch / f"{objective}.records.jsonl"
    dedicated = [] if objective == "curve" else ["--objective", objective, "--budget", str(budget)]
    started = time.time()
    status, wall, err = tables.sweep(spec, out, [*options, "--records", str(records), *dedicated], limit_s,
                                     stderr_of(out))
    return status, wall, err, out, records, started


def stderr_of(table: Path) -> Path:
    """Where a sweep's whole stderr is kept beside its table."""
    return table.with_suffix(".stderr.txt")


def record_lines(records: Path) -> Iterator[dict[str, Any]]:
    """A sweep's records as JSON objects (its header comments, if any, left out)."""
    from autotune.files import note_torn_tail, read_json_lines

    if records.is_file():  # a sweep killed while appending leaves a last line cut short: skipped, said
        yield from (data for _, data in read_json_lines(records, torn_tail=note_torn_tail))


def first_measured_s(records: Path, started: float) -> float | None:
    """Seconds from a sweep's start to the end of its first measurement (None: it measured nothing)."""
    ends = [datetime.datetime.fromisoformat(r["timestamp"]).timestamp() for r in record_lines(records)
            if r.get("timestamp")]
    return min(ends) - started if ends else None


def verified_by_ck(records: Path) -> dict[int, int]:
    """The distinct configurations a sweep's records verified, by CK."""
    found: dict[int, set[str]] = {}
    for record in record_lines(records):
        measured = record.get("measurement") or {}
        if measured.get("status") == "ok" and measured.get("verified"):
            config = measured["config"]
            found.setdefault(int(config["concurrent_kernels"]), set()).add(json.dumps(config, sort_keys=True))
    return {ck: len(configs) for ck, configs in sorted(found.items())}


def swept_row(name: str, objective: str, status: int, wall: float, err: str, table: Path, records: Path,
              started: float | None = None) -> dict[str, Any]:
    """A sweep's row: its wall time, when its first measurement ended, what it verified at each CK,
    its ends' bests, its memory, the hierarchy it built (PHAST's: absent where none was built, or
    one was kept already)."""
    row: dict[str, Any] = {"graph": name, "objective": objective, "status": status, "wall_s": wall,
                           "commit": commit(), "date": now()}
    if started is not None:
        row["first_measured_s"] = first_measured_s(records, started)
    if (said := REFERENCES_SAID.search(err)) is not None:  # `reference.cache.Computation`'s note
        row["references_s"] = float(said.group(1))
    if (said := GPU_REFERENCES_SAID.search(err)) is not None:  # `ReferenceCache.ensure`'s, of the GPU's share
        row["gpu_references"] = {"sources": int(said.group(1)), "s": float(said.group(2))}
    if (said := HIERARCHY_SAID.search(err)) is not None:  # `hierarchy.build.build_kept`'s (none: kept already)
        row["hierarchy"] = {"levels": int(said.group(1)), "built_s": float(said.group(2))}
    counts = verified_by_ck(records)
    row["verified_by_ck"] = {str(ck): n for ck, n in counts.items()}
    if not table.is_file():
        return {**row, "error": err}
    entry: Entry = entries_of(json.loads(table.read_text()))[0]
    one, best = entry.point_at(1), entry.best
    row |= {"vertices": entry.graph.vertices, "arcs": entry.graph.edges, "evaluations": entry.evaluations,
            "one_query": None if one is None else {"algorithm": one.algorithm, "ms": one.ms_per_sssp},
            "batch": None if best is None else {"algorithm": best.algorithm, "ck": best.ck,
                                                "ms_per_sssp": best.ms_per_sssp},
            "memory_by_ck": {str(p.ck): entry.memory_at(p.ck) for p in entry.timed_curve()},
            "at_one": counts.get(1, 0), "at_batch_end": 0 if best is None else counts.get(best.ck, 0)}
    if objective == "curve":
        row["target_s"] = target_s(entry.graph.edges)
    return {**row, **({"error": err} if status else {})}


def chosen_sweeps(args: argparse.Namespace) -> tuple[str, ...]:
    """The sweeps of each graph to run (`--large-sweeps`, else the default one, and the dedicated
    ones where `--large-dedicated` gives their budget).

    Raises:
        InputError: an unknown sweep, or a dedicated one without its budget.
    """
    from autotune.errors import InputError

    given = [name for name in getattr(args, "large_sweeps", "").split(",") if name]
    if not given:
        return OBJECTIVES if args.large_dedicated else OBJECTIVES[:1]
    unknown = [name for name in given if name not in OBJECTIVES]
    if unknown:
        raise InputError(f"--large-sweeps {unknown[0]}: one of {', '.join(OBJECTIVES)}")
    if any(name != "curve" for name in given) and not args.large_dedicated:
        raise InputError("--large-sweeps latency/throughput: give their budget with --large-dedicated SECONDS")
    return tuple(name for name in OBJECTIVES if name in given)


def keep(directory: Path, stem: str, table: Path, records: Path) -> None:
    """A sweep's table, its records (gzip) and its stderr kept as `stem`.json, `stem`.records.jsonl.gz
    and `stem`.stderr.txt."""
    directory.mkdir(parents=True, exist_ok=True)
    if table.is_file():
        shutil.copyfile(table, directory / f"{stem}.json")
    if records.is_file():
        with open(records, "rb") as source, gzip.open(directory / f"{stem}.records.jsonl.gz", "wb") as kept:
            shutil.copyfileobj(source, kept)
    if stderr_of(table).is_file():
        shutil.copyfile(stderr_of(table), directory / f"{stem}.stderr.txt")


def graph_rows(name: str, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    spec = data.spec(name)
    objectives = chosen_sweeps(args)
    status, prepared_s, err = prepare(spec)
    print(f"large: {name}: generated or read and cached in {prepared_s:.1f} s (exit {status})", flush=True)
    for objective in objectives:
        with tempfile.TemporaryDirectory() as scratch:
            status, wall, err, table, records, started = sweep(spec, objective, args.large_dedicated,
                                                               args.large_option, Path(scratch),
                                                               getattr(args, "large_limit", 0.0) or None)
            row = swept_row(name, objective, status, wall, err, table, records, started)
            if getattr(args, "large_keep", None) is not None:
                keep(args.large_keep, f"{name}-{objective}", table, records)
        print(f"large: {name} {objective}: exit {status} in {wall:.1f} s, first measurement at "
              f"{_s(row.get('first_measured_s'))} s, verified at CK 1: {row.get('at_one')}, "
              f"at the batch end: {row.get('at_batch_end')}", flush=True)
        yield {**row, "prepared_s": prepared_s, "options": list(args.large_option)}


def results_of(args: argparse.Namespace, rows: list[dict[str, Any]], gpu: dict[str, Any]) -> Results:
    kept = kept_rows(earlier_rows("large", args.results, gpu.get("name")), rows, key=kept_key)
    rows = [*rows, *kept]
    return Results("large", gpu, command_line(), commit(), now(), host(),
                   {"graphs": args.large_graphs, "dedicated_s": args.large_dedicated,
                    "options": list(args.large_option)},
                   tuple(rows), summary(rows))


def kept_key(row: dict[str, Any]) -> tuple[str, str]:
    """A row is a graph's sweep of one objective: a run of the default sweep alone keeps the dedicated ones."""
    return row["graph"], row.get("objective", "curve")


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per graph with a default sweep: its targets, met or not (an end unmeasured where no dedicated sweep ran)."""
    by_graph: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_graph.setdefault(row["graph"], {})[row.get("objective", "curve")] = row
    graphs = {}
    for name, runs in by_graph.items():
        curve = runs.get("curve")
        if curve is None or "error" in curve and "vertices" not in curve:
            graphs[name] = {"swept": False}
            continue
        gaps = ends_against_dedicated(runs)
        graphs[name] = {"swept": curve["status"] == 0, "within_time": curve["wall_s"] <= curve["target_s"],
                        "enough_configurations": curve["at_one"] >= ENOUGH and curve["at_batch_end"] >= ENOUGH,
                        **{f"{end}_gap": gap for end, gap in gaps.items()},
                        "ends_within": None if len(gaps) < 2 else
                        all(g is not None and g <= WITHIN for g in gaps.values())}
    return {"graphs": graphs, "target": f"default sweep within 180 s up to {LARGE_ARCS:,} arcs (300 s above), "
            f"{ENOUGH} verified configurations at CK 1 and at the batch end, each end within {WITHIN:.0%} of its "
            "dedicated sweep"}


def ends_against_dedicated(runs: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """The default sweep's one query against the latency sweep's, its batch end against the
    throughput sweep's (slowdowns; an end is left out where that sweep did not run)."""
    curve, gaps = runs["curve"], {}
    for end, objective, ours, theirs in (("one_query", "latency", "one_query", "one_query"),
                                         ("batch", "throughput", "batch", "batch")):
        other = runs.get(objective)
        if other is None:
            continue
        mine, best = (curve.get(ours) or {}), (other.get(theirs) or {})
        key = "ms" if end == "one_query" else "ms_per_sssp"
        gaps[end] = mine[key] / best[key] - 1 if mine.get(key) and best.get(key) else None
    return gaps


def run(args: argparse.Namespace) -> Results:
    from autotune.gpu import device_description, device_handle

    chosen_sweeps(args)  # a bad --large-sweeps is refused before the GPU is asked
    gpu = device_description(device_handle(0))
    names = [n for n in args.large_graphs.split(",") if n]
    return graph_by_graph(names, lambda name: graph_rows(name, args), lambda rows: results_of(args, rows, gpu),
                          args.results)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _gap(value: float | None) -> str:
    return "-" if value is None else f"{value:+.0%}"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"{results.gpu_name} (the last run: `{results.command}`, {results.date[:10]}; each row names the "
                  "commit that measured it). Each sweep in a process of its own, timed whole; verified configurations "
                  "counted in its records.", "",
                  "| graph | sweep | vertices | arcs | cached in (s) | wall (s) | first measured (s) | target (s) | "
                  "verified at CK 1 | at the batch end | one query (ms) | batch end (ms per SSSP, CK) | "
                  "peak GPU memory (GiB) | against the dedicated sweep | commit |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
        graphs = results.summary.get("graphs", {})
        for r in results.measurements:
            if "vertices" not in r:
                lines.append(f"| {r['graph']} | {r['objective']} | | | {_s(r.get('prepared_s'))} | {r['wall_s']:.1f} | "
                             f"| | | | exit {r['status']}: {r.get('error', '')[-160:].replace('|', '/')} | | | | "
                             f"{r['commit']} |")
                continue
            one, batch = r.get("one_query") or {}, r.get("batch") or {}
            memory = [m for m in (r.get("memory_by_ck") or {}).values() if m]
            against = "-"
            if r["objective"] == "curve":
                g = graphs.get(r["graph"], {})
                against = f"one query {_gap(g.get('one_query_gap'))}, batch {_gap(g.get('batch_gap'))}"
            if r["status"]:  # the sweep failed after it kept a table: what it measured, and why it stopped
                why = (r.get("error") or "").strip().splitlines()[-1:] or [""]
                against = f"exit {r['status']}: {why[0][-160:].replace('|', '/')}"
            sweep = r["objective"] + (f" ({' '.join(r['options'])})" if r.get("options") else "")  # not the default
            lines.append(f"| {r['graph']} | {sweep} | {r['vertices']:,} | {r['arcs']:,} | "
                         f"{_s(r.get('prepared_s'))} | {r['wall_s']:.1f} | {_s(r.get('first_measured_s'))} | "
                         f"{r.get('target_s') or '-'} | {r['at_one']} | {r['at_batch_end']} | {_ms(one.get('ms'))} | "
                         f"{_ms(batch.get('ms_per_sssp'))} ({batch.get('ck', '-')}) | "
                         f"{f'{max(memory) / 2**30:.1f}' if memory else '-'} | {against} | {r['commit']} |")
        lines.append("")
    return lines
