"""Suite `answers` (one GPU): what the shipped table hands a program that solves K sources at once
(`autotune sssp --table T --sources K`, whose configuration is `config_from_table`'s
`Table.lookup(graph, queries=K)`), against the best of a sweep dedicated to that K alone, for
K = 1, 16 and 1,024 (issue 27).

Per graph (default: every graph of the table; `--answer-graphs` names some) and K:
- the dedicated sweep, in a process of its own: `autotune sweep --graph G --objective latency`
  for K = 1, `--objective throughput --ck K` otherwise, each with the wall-time budget the default
  sweep has for the whole curve (`--answer-budget auto`: 55 s up to about 4M edges, 110 s above;
  most end sooner, their trials done); its best configuration and wall time.
- the table's answer: the configuration `sssp --table` launches for K sources, where it comes from
  (the match's `source`: a measured curve point, or derived) and whether it is the algorithm's
  default (a reference, which a lookup must never hand out).
- both timed in this process as the sweep times them: the sweep's `CudaEventTimer`, ms per SSSP
  over the same 32 sources in batches of each configuration's CK (a batch larger than the sample
  cycles through it), alternated for `--answer-rounds` rounds where both are of one algorithm (else
  one algorithm's rounds after the other's), each a warm-up and the protocol's repetitions; every
  solve's distances are checked against scipy's. The answer's slowdown is its median over the
  rounds against the dedicated best's, minus one.

Target: within 15% of the dedicated best for every graph and K, and never the default.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from autotune.arguments import positive_int
from autotune.table import Table
from benchmarks import data
from benchmarks.results import (Results, command_line, commit, earlier_rows, graph_by_graph, graph_of, host,
                                kept_rows, now)

WITHIN = 0.15
SAMPLE = 32
UNANSWERED = "unanswered"  # --answer-graphs: the table's graphs and K without a timed row yet


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--answer-graphs", default="",
                        help="suite answers: its graphs (comma-separated; default: every graph of the table; "
                        "unanswered: the table's graphs and K without a timed row in the results yet)")
    parser.add_argument("--answer-queries", default="1,16,1024",
                        help="suite answers: the numbers of sources at once (default 1,16,1024)")
    parser.add_argument("--answer-table", type=Path, default=None,
                        help="suite answers: the tuned table (default tables/<gpu>.json)")
    parser.add_argument("--answer-budget", default="auto",
                        help="suite answers: seconds each dedicated sweep may take (default auto: the default "
                        "sweep's budget for the graph, by its size: 55 s to 285 s)")
    parser.add_argument("--answer-rounds", type=positive_int, default=3,
                        help="suite answers: alternated timings of the two configurations (default 3)")


def dedicated_options(queries: int, budget_s: float) -> list[str]:
    """The sweep of one number of sources at once: one query's latency, else CK fixed at K."""
    end = ["--objective", "latency"] if queries == 1 else ["--objective", "throughput", "--ck", str(queries)]
    return ["--budget", f"{budget_s:g}", *end]


def budget_s(given: str, vertices: int, edges: int) -> float:
    """`--answer-budget`: seconds, or auto (the default sweep's budget for a graph of that size)."""
    from autotune.search.run.plan import default_budget_s

    return default_budget_s(vertices, edges) if given == "auto" else float(given)


def sweep_process(argv: list[str]) -> tuple[int, str]:
    """`autotune ARGV` in a process of its own: its exit status and the end of its stderr."""
    done = subprocess.run([sys.executable, "-m", "autotune", *argv], capture_output=True, text=True)
    return done.returncode, done.stderr.strip()[-500:]


def dedicated_sweep(spec: str, queries: int, budget_s: float, scratch: Path) -> dict[str, Any]:
    """The dedicated sweep's best (its configuration and the sweep's ms per SSSP) and wall time."""
    out = scratch / f"dedicated-{queries}.json"
    start = time.perf_counter()
    status, err = sweep_process(["sweep", "--graph", spec, "-o", str(out), "-q", *dedicated_options(queries, budget_s)])
    found: dict[str, Any] = {"options": dedicated_options(queries, budget_s), "status": status,
                             "wall_s": time.perf_counter() - start}
    if not out.exists():
        return {**found, "error": err}
    best = Table.load(out).entries[0].best  # an entry without a verified point has none
    if best is None:
        return {**found, "error": f"no configuration verified within the budget: {err}"}
    return {**found, "config": best.config_json, "sweep_ms": best.ms_per_sssp}


def table_answer(table: Any, graph: Any, gpu: dict[str, Any], queries: int) -> Any:
    """The match `sssp --table T --sources K` launches (`config_from_table`'s lookup: this GPU's
    entries only, K at once; for a graph the table does not hold, PHAST admitted where the graph's
    hierarchy is kept or can be built)."""
    from autotune.predict.auto import admitted_on

    admits = None if table.holds(graph) else sorted(admitted_on(graph, prepare=True))
    return table.lookup(graph, device=gpu, allow_other_device=False, queries=queries, admits=admits)


def paired_ms(solver: Any, configs: Sequence[Any], sources: Sequence[int], expected: dict, rounds: int) -> list[dict]:
    """Each configuration's median ms per SSSP over `rounds` alternated measurements (None: it failed)."""
    from autotune.gpu import CudaEventTimer
    from autotune.measure import Protocol

    timer = CudaEventTimer(solver, sources, Protocol(len(sources), min_repetitions=3, max_repetitions=5),
                           expected=expected)
    times: list[list[float]] = [[] for _ in configs]
    failures: list[str | None] = [None for _ in configs]
    for _ in range(rounds):
        for i, config in enumerate(configs):
            if failures[i] is None:
                measured = timer.measure(config)
                if measured.ok:
                    times[i].append(measured.ms_per_sssp)
                else:
                    failures[i] = f"{measured.status}: {measured.reason}"
    return [{"ms_per_sssp": statistics.median(t) if t and f is None else None, "rounds": t, "failure": f}
            for t, f in zip(times, failures)]


def timed_together(graph: Any, configs: Sequence[Any], sources: Sequence[int], expected: dict,
                   rounds: int) -> dict[Any, dict]:
    """Configurations timed in this process (`paired_ms`, each algorithm's solver opened once),
    by configuration."""
    from autotune.algorithms import open_solver

    measured: dict[Any, dict] = {}
    for algorithm in dict.fromkeys(c.algorithm for c in configs):
        chosen = list(dict.fromkeys(c for c in configs if c.algorithm == algorithm))
        with open_solver(graph, algorithm) as solver:
            measured |= dict(zip(chosen, paired_ms(solver, chosen, sources, expected, rounds)))
    return measured


def slowdown(timing: dict, against: dict) -> float | None:
    """How much slower one timing is than another (None if either failed)."""
    a, d = timing["ms_per_sssp"], against["ms_per_sssp"]
    return None if a is None or d is None else a / d - 1.0


def timed_against(graph: Any, config: Any, reference: Any, sources: Sequence[int], expected: dict,
                  rounds: int) -> tuple[dict, dict, float | None]:
    """`config` and `reference` timed in this process (`timed_together`): their timings, and the
    slowdown of `config` against `reference` (None if one failed)."""
    measured = timed_together(graph, (config, reference), sources, expected, rounds)
    return measured[config], measured[reference], slowdown(measured[config], measured[reference])


def graph_rows(name: str, table: Any, queries: Sequence[int], args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """A graph's rows, one K after the other (its dedicated sweep, then both timed), each handed
    on as soon as it is measured."""
    from autotune import algorithms
    from autotune.gpu import device_description, gpu_session

    for _, graph, sources, expected in data.suite_graphs([name], SAMPLE):
        seconds = budget_s(str(args.answer_budget), graph.n_vertices, graph.n_edges)
        for k in queries:
            with tempfile.TemporaryDirectory() as scratch:
                sweep = dedicated_sweep(data.spec(name), k, seconds, Path(scratch))
            with gpu_session(0) as device:
                match = table_answer(table, graph, device_description(device), k)
                answer, source = match.config, match.source
                row: dict[str, Any] = {"graph": name, "queries": k, "answer": answer.to_json(), "source": source,
                                       "default": answer == algorithms.get(answer.algorithm).default_config(),
                                       "dedicated": sweep}
                if "config" in sweep:
                    best = algorithms.config_from_json(sweep["config"], "dedicated sweep")
                    timed, against, slowdown = timed_against(graph, answer, best, sources, expected, args.answer_rounds)
                    row |= {"answer_timing": timed, "dedicated_timing": against, "slowdown": slowdown}
            print(f"answers: {name} K={k}: table {ms_text(row.get('answer_timing'))} ms/SSSP ({source}), dedicated "
                  f"{ms_text(row.get('dedicated_timing'))} (sweep {sweep['wall_s']:.1f} s), slowdown {row.get('slowdown')}"
                  + (f" ({sweep['error']})" if "error" in sweep else ""), flush=True)
            yield row


def run(args: argparse.Namespace) -> Results:
    """Graph by graph, K by K; the results file is written after each row, so a run cut short
    keeps what it measured, and the graphs and K measured by an earlier run keep their rows."""
    from autotune.gpu import device_description, gpu_session

    with gpu_session(0) as device:
        gpu = device_description(device)
    table_path, table = data.load_shipped_table(gpu, args.answer_table)
    queries = [int(k) for k in args.answer_queries.split(",") if k]
    in_table = [e.name for e in table.entries]
    left = {name: queries for name in in_table}
    if args.answer_graphs == UNANSWERED:  # where an earlier run stopped: the table's graphs and K it left
        left = missing(in_table, queries, earlier_rows("answers", args.results, gpu.get("name")))
    elif args.answer_graphs:
        left = {table_name(name, in_table): queries for name in args.answer_graphs.split(",") if name}
    return graph_by_graph([g for g in left if left[g]],
                          lambda name: graph_rows(name, table, left[name], args),
                          lambda rows: results_of(args, rows, gpu, table_path, in_table, queries), args.results)


def table_name(name: str, in_table: Sequence[str]) -> str:
    """The table's name of the graph `name` names (`road-BAY` for the table's `road-BAY.csr.npz`),
    so that a row says which entry it answers for."""
    bare = name.removesuffix(data.CONVERTED)
    return next((g for g in in_table if g.removesuffix(data.CONVERTED) == bare), name)


def missing(in_table: Sequence[str], queries: Sequence[int], rows: Sequence[dict[str, Any]]) -> dict[str, list[int]]:
    """Per graph of the table, the K of `queries` that no row answers yet (a row whose dedicated
    sweep or timing failed answers nothing: a later run measures it again)."""
    answered = {(row["graph"], row["queries"]) for row in rows if row.get("slowdown") is not None}
    return {g: [k for k in queries if (g, k) not in answered] for g in in_table}


def results_of(args: argparse.Namespace, rows: list[dict[str, Any]], gpu: dict[str, Any], table_path: Path,
               table_graphs: Sequence[str], queries: Sequence[int]) -> Results:
    kept = kept_rows(earlier_rows("answers", args.results, gpu.get("name")), rows, lambda r: (graph_of(r), r["queries"]))
    for row in rows:
        row.setdefault("commit", commit())
        row.setdefault("date", now())
    rows = sorted([*rows, *kept], key=lambda r: (r["graph"], r["queries"]))
    summary = summarize(rows, table_graphs, queries)
    return Results("answers", {**gpu, "table": data.shown(table_path)}, command_line(), commit(), now(), host(),
                   {"graphs": args.answer_graphs or "the table's", "queries": args.answer_queries,
                    "rounds": args.answer_rounds, "budget": str(args.answer_budget)},
                   tuple(rows), summary)


def summarize(rows: Sequence[dict[str, Any]], table_graphs: Sequence[str], queries: Sequence[int]) -> dict[str, Any]:
    """The pairs within 15%, the defaults handed out, and the table's graphs with a K of `queries`
    that no timed row answers yet: the target is met only when every graph of the table is
    answered for every K, each within 15%."""
    timed = [r for r in rows if r.get("slowdown") is not None]
    unanswered = sorted(g for g, left in missing(table_graphs, queries, rows).items() if left)
    return {"pairs": len(rows), "timed": len(timed), "within_15": sum(r["slowdown"] <= WITHIN for r in timed),
            "worst": max((r["slowdown"] for r in timed), default=None),
            "defaults": sum(bool(r["default"]) for r in rows),
            "graphs": len({r["graph"] for r in rows} & set(table_graphs)), "table_graphs": len(set(table_graphs)),
            "unanswered": unanswered, "unseen": sorted({r["graph"] for r in rows} - set(table_graphs)),
            "met": not unanswered and len(timed) == len(rows)
            and all(r["slowdown"] <= WITHIN and not r["default"] for r in timed),
            "target": "every graph of the table and K within 15% of the dedicated sweep's best, never the default"}


def ms_text(timing: dict | None) -> str:
    if not timing:
        return "-"
    return f"{timing['ms_per_sssp']:.4g}" if timing.get("ms_per_sssp") is not None else f"failed ({timing['failure']})"


def _unanswered(summary: dict) -> str:
    left = summary.get("unanswered")
    if left is None:
        return ""
    unseen = summary.get("unseen") or []
    held = f" Graphs of the table answered: {summary['graphs']} of its {summary['table_graphs']}"
    if left:
        held += f" (not yet: {', '.join(left)})" if len(left) <= 8 else f" ({len(left)} not yet)"
    return (held + (f"; graphs it does not hold, answered by its model: {', '.join(unseen)}" if unseen else "") +
            f"; target {'met' if summary['met'] else 'not met'}.")


def dedicated_text(row: dict) -> str:
    """The dedicated best's ms per SSSP, or why there is none (its sweep's exit status)."""
    if "error" in row["dedicated"]:
        return f"none (sweep exit {row['dedicated'].get('status')})"
    return ms_text(row.get("dedicated_timing"))


def _budget(dedicated: dict) -> str:
    options = dedicated.get("options", [])
    return options[options.index("--budget") + 1] if "--budget" in options else "-"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        s = results.summary
        lines += [f"{results.gpu_name}: the configuration `autotune sssp --table {results.gpu.get('table')} --sources K` "
                  "launches against the best of a sweep for K alone (`python3 -m benchmarks run answers`; each row "
                  f"names its commit, the last {results.date[:10]}), both timed in one process on the same {SAMPLE} "
                  f"sources in batches of each one's CK, {results.parameters['rounds']} alternated rounds, every "
                  f"distance checked. Within 15%: **{s['within_15']} of {s['pairs']}**; the default handed out: "
                  f"{s['defaults']}." + _unanswered(s), "",
                  "| graph | K | table (ms per SSSP) | from | dedicated (ms per SSSP) | slowdown | dedicated sweep (s, of its budget) "
                  "| commit |",
                  "|---|---:|---:|---|---:|---:|---:|---|"]
        for r in results.measurements:
            slow = "-" if r.get("slowdown") is None else f"{100 * r['slowdown']:+.0f}%"
            lines.append(f"| {r['graph']} | {r['queries']} | {ms_text(r.get('answer_timing'))} | "
                         f"{r['source']}{' (default!)' if r['default'] else ''} | {dedicated_text(r)} | "
                         f"{slow} | {r['dedicated']['wall_s']:.1f} of {_budget(r['dedicated'])} | {r['commit']} |")
        lines.append("")
    return lines
