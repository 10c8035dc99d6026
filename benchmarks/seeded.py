"""Suite `seeded` (one GPU): issue 28's seeded sweep. Does a short Bayesian sweep that starts from
the model's prediction reach the long sweep's best?

Per real graph of the shipped table (default) and end of the curve (`--seeded-ends`: latency,
throughput): the algorithm `predict --algorithm auto` picks for K = 1 or 1,024 (the choice model,
`autotune.predict.choice`) is swept with `autotune sweep --algorithm A --objective END --trials 15
--budget none --records R` in a process of its own, timed whole; the prediction is its first
trial (for Delta-stepping's one query, its one-query rules lead: `search.specials.one_query`).
Two of its configurations are then timed against the table's best for that K (the default sweep's,
55 s of search) in this process, on the same 32 sources (`answers.timed_together`, every distance
checked): the fastest of its first 15 evaluations by the sweep's own timings (references left out),
what the target judges, and the sweep's best after its refine step and re-measures. Evaluations:
every configuration the short sweep measured (references, search, refine, re-measures), and where
each of the two was first measured.

Target (issue 28): within 3% of the long sweep's best in at most 15 evaluations on at least 80% of
the real graphs.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from autotune.arguments import positive_int
from autotune.table import Table
from benchmarks import data
from benchmarks.answers import ms_text, slowdown, timed_together
from benchmarks.results import (Results, command_line, commit, earlier_rows, graph_by_graph, graph_of, host,
                                kept_rows, now)

SAMPLE = 32
TRIALS = 15
WITHIN = 0.03
ENDS = {"latency": 1, "throughput": 1024}


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeded-graphs", default="", help="suite seeded: its graphs (default: the table's real ones)")
    parser.add_argument("--seeded-ends", default="latency,throughput", help="suite seeded: the curve's ends")
    parser.add_argument("--seeded-table", default=None, help="suite seeded: the table (default tables/<gpu>.json)")
    parser.add_argument("--seeded-rounds", type=positive_int, default=3, help="suite seeded: alternated timings (default 3)")


def short_sweep(spec: str, algorithm: str, end: str, scratch: Path) -> tuple[int, float, Path, Path, str]:
    """The seeded sweep in a process of its own (`answers.sweep_process`), timed whole: its exit
    status, wall time, table, records and the end of its stderr."""
    from benchmarks import answers

    table, records = scratch / f"{end}.json", scratch / f"{end}.jsonl"
    argv = ["sweep", "--graph", spec, "-o", str(table), "--records", str(records), "-q", "--budget", "none",
            "--algorithm", algorithm, "--objective", end, "--trials", str(TRIALS)]
    start = time.perf_counter()
    status, err = answers.sweep_process(argv)
    return status, time.perf_counter() - start, table, records, err


def graph_rows(name: str, table: Any, gpu: dict[str, Any], ends: Sequence[str], rounds: int) -> list[dict[str, Any]]:
    from autotune.search.results.records import read_records
    from autotune.predict.auto import servable
    from autotune.predict.choice import measured_features, shipped_choice
    from benchmarks.classout import profile_of

    chooser = shipped_choice(profile_of(str(gpu["name"])))
    rows = []
    for _, graph, sources, expected in data.suite_graphs([name], SAMPLE):
        tree_features, _ = measured_features(graph)  # as predict measures them
        for end in ends:
            k = ENDS[end]
            algorithm = servable(chooser.predict(tree_features, k)[0], k, graph.max_degree)
            row: dict[str, Any] = {"graph": name, "end": end, "queries": k, "algorithm": algorithm, "commit": commit()}
            with tempfile.TemporaryDirectory() as scratch:
                status, wall, out, records, err = short_sweep(data.spec(name), algorithm, end, Path(scratch))
                if status != 0 or not out.exists():
                    rows.append({**row, "error": f"exit {status}: {err}", "wall_s": wall})
                    continue
                measured = read_records(records)
                best = Table.load(out).entries[0].best.config
            position = next((i for i, r in enumerate(measured, 1) if r.measurement.config == best), None)
            early, early_at = early_best(measured)
            reference = table.lookup(graph, device=gpu, allow_other_device=False, queries=k).config
            timed = timed_together(graph, [c for c in (early, best, reference) if c is not None], sources, expected,
                                   rounds)
            against = timed[reference]
            early_timing = timed[early] if early is not None else None
            rows.append({**row, "wall_s": wall, "evaluations": len(measured), "best_found_at": position,
                         "prediction_first": bool(measured) and "prediction" in measured[0].roles,
                         "best": best.to_json(), "reference": reference.to_json(), "best_timing": timed[best],
                         "reference_timing": against, "slowdown": slowdown(timed[best], against),
                         "early": None if early is None else early.to_json(), "early_at": early_at,
                         "early_timing": early_timing,
                         "early_slowdown": None if early_timing is None else slowdown(early_timing, against)})
            print(f"seeded: {name} {end} ({algorithm}): best of the first {TRIALS} evaluations "
                  f"{ms_text(early_timing)} ms/SSSP (at {early_at}), the sweep's {ms_text(timed[best])} (at {position} "
                  f"of {len(measured)}), the table's {ms_text(against)}; {wall:.1f} s", flush=True)
    return rows


def early_best(measured: Sequence[Any], trials: int = TRIALS) -> tuple[Any, int | None]:
    """The fastest verified configuration of the first `trials` evaluations of a sweep's records
    (by the sweep's own medians; a reference, the default or a baseline candidate that is not
    also the prediction, left out) and the evaluation that first measured it; (None, None) if none."""
    fastest: dict[Any, tuple[float, int]] = {}
    for at, record in enumerate(measured[:trials], 1):
        roles = set(record.roles)
        if not record.measurement.ok or (roles & {"default", "baseline_candidate"} and "prediction" not in roles):
            continue
        config = record.measurement.config
        ms, first = fastest.get(config, (record.measurement.ms_per_sssp, at))
        fastest[config] = (min(ms, record.measurement.ms_per_sssp), first)
    if not fastest:
        return None, None
    config = min(fastest, key=lambda c: (fastest[c][0], fastest[c][1]))
    return config, fastest[config][1]


def run(args: argparse.Namespace) -> Results:
    """Graph by graph; the results file is written after each."""
    from autotune.gpu import device_description, gpu_session

    ends = [e for e in args.seeded_ends.split(",") if e]
    with gpu_session(0) as device:
        gpu = device_description(device)
        path, table = data.load_shipped_table(gpu, args.seeded_table)
        names = [g for g in (args.seeded_graphs.split(",") if args.seeded_graphs else
                             [e.name for e in table.entries if data.is_real(e.name)])
                 if g]
        return graph_by_graph(names, lambda name: graph_rows(name, table, gpu, ends, args.seeded_rounds),
                              lambda rows: results_of(rows, gpu, path, args), args.results)


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    summary: dict[str, Any] = {"target": f"within {100 * WITHIN:.0f}% in at most {TRIALS} evaluations on 80% of the "
                                         "real graphs"}
    for end in ENDS:
        mine = [r for r in rows if r["end"] == end]
        reached = [r for r in mine if (early_gap(r) if early_gap(r) is not None else 1.0) <= WITHIN]
        summary[end] = {"graphs": len(mine), "reached": len(reached), "met": bool(mine) and len(reached) >= 0.8 * len(mine)}
    return summary


def early_gap(row: dict[str, Any]) -> float | None:
    """The slowdown of the best of the first evaluations; a row of the suite's first version (no
    such timing) counts its sweep's best where it was first measured within them."""
    if "early_slowdown" in row:
        return row["early_slowdown"]
    return row.get("slowdown") if (row.get("best_found_at") or 10**9) <= TRIALS else None


def results_of(rows: list[dict[str, Any]], gpu: dict[str, Any], path: Any, args: argparse.Namespace) -> Results:
    """The rows measured, and those of an earlier run for the other graphs and ends (a suite run
    an end at a time keeps both)."""
    kept = kept_rows(earlier_rows("seeded", args.results, gpu.get("name")), rows, lambda r: (graph_of(r), r["end"]))
    rows = [*kept, *rows]
    return Results("seeded", gpu, command_line(), commit(), now(), host(),
                   {"table": data.shown(path), "trials": TRIALS, "ends": args.seeded_ends, "rounds": args.seeded_rounds},
                   tuple(rows), summarize(rows))


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = summarize(results.measurements)
        counts = "; ".join(f"{end}: {s[end]['reached']} of {s[end]['graphs']} ({'met' if s[end]['met'] else 'not met'})"
                           for end in ENDS if s[end]["graphs"])
        commits = ", ".join(dict.fromkeys(r.get("commit", results.commit) for r in results.measurements))
        first = [r for r in results.measurements if "error" not in r and "early_slowdown" not in r]
        older = (f" {len(first)} rows of the suite's first version (commit "
                 f"{', '.join(dict.fromkeys(r.get('commit', '?') for r in first))}) count their sweep's best where it "
                 f"was first measured within {TRIALS} evaluations." if first else "")
        lines += [f"{results.gpu_name}, against `{results.parameters['table']}` (the last run: `{results.command}`, "
                  f"{results.date[:10]}; an end run alone keeps the other end's rows; commits {commits}): the "
                  f"best of the first {TRIALS} evaluations within 3% of the long sweep's best: {counts}.{older}", "",
                  f"| graph | end | algorithm | evaluations | wall (s) | best of the first {TRIALS} (ms per SSSP) | "
                  "at | slowdown | the sweep's best | at | slowdown | table's best |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in results.measurements:
            if "error" in r:
                lines.append(f"| {r['graph']} | {r['end']} | {r['algorithm']} | | {r['wall_s']:.1f} | "
                             f"{r['error'][:60]} | | | | | | |")
                continue
            lines.append(f"| {r['graph']} | {r['end']} | {r['algorithm']} | {r['evaluations']} | {r['wall_s']:.1f} | "
                         f"{ms_text(r.get('early_timing'))} | {r.get('early_at') or '-'} | {percent(r.get('early_slowdown'))} | "
                         f"{ms_text(r['best_timing'])} | {r['best_found_at'] or '-'} | {percent(r['slowdown'])} | "
                         f"{ms_text(r['reference_timing'])} |")
        lines.append("")
    return lines


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}%"
