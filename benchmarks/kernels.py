"""Suite `kernels` (one GPU): one query and batches on the GPU against scipy's Dijkstra on one CPU
core of the same machine, with the configurations a tuned table gives each graph.

Per graph: `Table.lookup(graph, queries=1)` (one query: the table's latency point) and
`Table.lookup(graph)` (a batch: its best time per SSSP), the graph's contraction hierarchy built
first where it qualifies and none is kept, as `autotune sssp --table` does (its build time in the
row; `--kernels-no-hierarchy`: not built), are measured by the sweep's
`CudaEventTimer` (a warm-up, then `--repetitions` timed passes over a sample of 32 sources, CUDA
events around the launches, launches included; every solve's distances compared with scipy's, a
wrong one recorded as such), and scipy's Dijkstra is timed from `--cpu-sources` of the same sources
in this process (one core; its warm-up, `limit=0`, runs scipy's set-up and searches nothing), and over `--cpu-all-sources` sources on every core of the machine (a
forked worker a core, each Dijkstra from its share of the sources: what a user without a GPU would
run for a batch; 0 leaves it out), its wall time per SSSP set against the batch's. Gunrock's SSSP
is measured too where its binary is (`--gunrock`, by default `.peers/gunrock-sssp`, built by
`scripts/build_gunrock.sh`; `benchmarks/peers.py` says how it is run, timed and checked), from the
same sources; the results say where it was not. A run of some
graphs keeps the other graphs' rows of the results it finds (each row names the commit that
measured it); the results file is written after each graph, so a run cut short keeps what it measured.
Each step of a row says what it does and then how long it took (a 2^24-vertex graph's row is minutes).
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from autotune.arguments import positive_int
from benchmarks import data, peers
from benchmarks.results import (Results, command_line, commit, earlier_rows, graph_by_graph, host, kept_rows,
                                kept_section, now)

SAMPLE = 32


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--graphs", default=",".join(data.REAL + ("rmat17", "rmat20")),
                        help="the suite's graphs (comma-separated names of tests/data files or generator specs)")
    parser.add_argument("--table", type=Path, default=None,
                        help="the tuned table to look the configurations up in (default tables/<gpu>.json)")
    parser.add_argument("--repetitions", type=positive_int, default=5, help="timed passes over the sample (default 5)")
    parser.add_argument("--kernels-no-hierarchy", action="store_true",
                        help="suite kernels: do not build a graph's contraction hierarchy (a kept one still counts)")
    parser.add_argument("--cpu-sources", type=positive_int, default=8, help="sources scipy solves per graph (default 8)")
    parser.add_argument("--cpu-all-sources", type=int, default=0, metavar="N",
                        help="sources scipy solves on every core at once, the batch's CPU baseline (default 0: none; "
                             "a few per core, e.g. 4 x the cores)")
    parser.add_argument("--gunrock", type=peers.given_binary, default=None,
                        help="Gunrock's SSSP binary, timed beside the tables' one query (default the repository's "
                             ".peers/gunrock-sssp where scripts/build_gunrock.sh built it; none there: not measured)")


def scipy_ms(graph: Any, sources: Sequence[int]) -> list[float]:
    """scipy's Dijkstra from each source, one at a time, in this process (one core), milliseconds."""
    from scipy.sparse.csgraph import dijkstra

    from autotune.reference.oracle import _scipy_graph

    matrix = _scipy_graph(graph)
    dijkstra(matrix, directed=True, indices=sources[0], limit=0)  # warm-up: scipy's own set-up, no search
    times = []
    for source in sources:
        start = time.perf_counter()
        dijkstra(matrix, directed=True, indices=source)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def _dijkstra_chunk(sources: Sequence[int]) -> int:
    from scipy.sparse.csgraph import dijkstra

    from autotune.reference.cache import worker_graph
    from autotune.reference.oracle import _scipy_graph

    dijkstra(_scipy_graph(worker_graph()), directed=True, indices=list(sources))
    return len(sources)


def scipy_all_cores_ms(graph: Any, sources: Sequence[int]) -> tuple[float, int]:
    """scipy's Dijkstra from `sources` on every core (a forked worker per core, each solving its
    share in one Dijkstra call; the matrix built before the fork, every worker started before the
    clock), wall milliseconds per SSSP, and the cores."""
    from autotune.reference.cache import forked_workers
    from autotune.resources import usable_cores

    cores = usable_cores()
    with forked_workers(graph, cores) as pool:  # the matrix and scipy's Dijkstra loaded before the fork
        list(pool.map(time.sleep, [0.05] * cores))  # every worker started: none idle while the others start
        start = time.perf_counter()
        solved = sum(pool.map(_dijkstra_chunk, [list(sources[i::cores]) for i in range(min(cores, len(sources)))]))
        wall = time.perf_counter() - start
    return wall * 1000.0 / solved, cores


def run(args: argparse.Namespace) -> Results:
    from autotune.gpu import device_description, gpu_session
    from autotune.measure import Protocol

    gunrock = peers.peer_binary(getattr(args, "gunrock", None))
    with gpu_session(0) as device:
        gpu = device_description(device)
        table_path, table = data.load_shipped_table(gpu, args.table)
        protocol = Protocol(sample=SAMPLE, min_repetitions=args.repetitions, max_repetitions=args.repetitions)
        earlier = earlier_rows("kernels", args.results, gpu.get("name"))

        def graph_rows(name: str) -> Iterator[dict[str, Any]]:
            for _, graph, sample, expected in data.suite_graphs([name], SAMPLE):
                yield graph_row(name, graph, sample, expected, args, table, gpu, protocol, gunrock)

        def results_of(rows: list[dict[str, Any]]) -> Results:
            every = rows + kept_rows(earlier, rows)
            ok = [r for r in every if "one_query_vs_scipy" in r]
            summary = {"graphs": len(every),
                       "verified": sum(r["one_query"]["status"] == "ok" and r["batch"]["status"] == "ok" for r in every),
                       "worst_one_query_vs_scipy": min((r["one_query_vs_scipy"] for r in ok), default=None),
                       "peers": peers_summary(every)}
            return Results("kernels", {**gpu, "table": data.shown(table_path)}, command_line(), commit(), now(), host(),
                           {"graphs": args.graphs, "repetitions": args.repetitions, "cpu_sources": args.cpu_sources,
                            "cpu_all_sources": args.cpu_all_sources, "sample": SAMPLE,
                            "hierarchy": not getattr(args, "kernels_no_hierarchy", False)}, tuple(every), summary)

        return graph_by_graph([name for name in args.graphs.split(",") if name], graph_rows, results_of, args.results)


def graph_row(name: str, graph: Any, sample: Sequence[int], expected: dict, args: argparse.Namespace, table: Any,
              gpu: dict[str, Any], protocol: Any, gunrock: Path | None) -> dict[str, Any]:
    """One graph's row: scipy on one core, the table's one query and batch (each checked), Gunrock."""
    from autotune.gpu import CudaEventTimer

    from autotune.algorithms import open_solver
    from autotune.measure import choose_sources
    from autotune.predict.auto import admitted_on

    with step(name, f"scipy's Dijkstra from {min(args.cpu_sources, len(sample))} of the sources on one core"):
        cpu = scipy_ms(graph, list(sample[: args.cpu_sources]))
    row: dict[str, Any] = {"graph": name, "vertices": graph.n_vertices, "edges": graph.n_edges,
                           "scipy_ms": statistics.median(cpu), "scipy_times_ms": cpu, "commit": commit(), "date": now()}
    start = time.perf_counter()
    admits = sorted(admitted_on(graph, prepare=not getattr(args, "kernels_no_hierarchy", False)))  # as `sssp --table`
    row["admits_s"] = time.perf_counter() - start  # the hierarchy's build, where one was built
    for label, queries in (("one_query", 1), ("batch", None)):
        match = table.lookup(graph, queries=queries, device=gpu, admits=admits)
        with step(name, f"the table's {label.replace('_', ' ')} on the GPU ({match.config.algorithm}, CK "
                        f"{match.config.concurrent_kernels})"), open_solver(graph, match.config.algorithm) as solver:
            measured = CudaEventTimer(solver, sample, protocol, expected=expected).measure(match.config)
        row[label] = {"config": match.config.to_json(), "entry": match.graph_name, "source": match.source,
                      "status": str(measured.status), "reason": measured.reason,
                      "ms_per_sssp": measured.ms_per_sssp, "times_ms": list(measured.times_ms)}
        if measured.ok:
            row[f"{label}_vs_scipy"] = row["scipy_ms"] / measured.ms_per_sssp
    if args.cpu_all_sources > 0:
        picked = list(choose_sources(graph, args.cpu_all_sources, 1))  # not the timed sample: other sources
        with step(name, f"scipy's Dijkstra from {len(picked)} sources on every core"):
            row["scipy_all_cores_ms"], row["cores"] = scipy_all_cores_ms(graph, picked)
        row["cpu_all_sources"] = len(picked)
        if row["batch"]["ms_per_sssp"] is not None and row["batch"]["status"] == "ok":
            row["batch_vs_all_cores"] = row["scipy_all_cores_ms"] / row["batch"]["ms_per_sssp"]
    if gunrock is not None:
        with step(name, f"Gunrock from {len(sample)} sources (its input: a text file of {graph.n_edges:,} arcs)"):
            row["gunrock"] = peers.gunrock_row(gunrock, graph, list(sample))
        if row["gunrock"]["status"] == "ok" and "one_query_vs_scipy" in row:
            row["one_query_vs_gunrock"] = row["gunrock"]["ms"] / row["one_query"]["ms_per_sssp"]
    theirs = row.get("gunrock")
    print(f"kernels: {name}: one query {row['one_query']['ms_per_sssp']} ms, batch "
          f"{row['batch']['ms_per_sssp']} ms per SSSP, scipy {row['scipy_ms']:.3f} ms"
          + ((f", gunrock {theirs['ms']:.4f} ms" if theirs["ms"] is not None else f", gunrock {theirs['status']}")
             if theirs else ""),
          flush=True)
    return row


def prepared(algorithm: str | None) -> bool:
    """Whether a row's algorithm runs on something built for the graph first (`Algorithm.conditional`:
    a contraction hierarchy), whose build `admits_s` timed."""
    from autotune import algorithms

    return algorithm is not None and algorithms.get(algorithm).conditional


@contextlib.contextmanager
def step(graph: str, what: str) -> Iterator[None]:
    """Say what a long step of a graph's row does, and then how long it took."""
    print(f"kernels: {graph}: {what} ...", flush=True)
    start = time.perf_counter()
    yield
    print(f"kernels: {graph}: {what}: {time.perf_counter() - start:.1f} s", flush=True)


def peers_summary(rows: Sequence[dict[str, Any]]) -> str:
    """What the rows say of Gunrock: where it was measured, and the one query's least ratio to it."""
    measured = [r for r in rows if "gunrock" in r]
    if not measured:
        return "Gunrock: not measured (no binary on the machine: scripts/build_gunrock.sh builds one)"
    ratios = [r["one_query_vs_gunrock"] for r in measured if "one_query_vs_gunrock" in r]
    failed = len(measured) - len(ratios)
    return (f"Gunrock (its own timer and check, benchmarks/peers.py) on {len(measured)} of {len(rows)} graphs"
            + (f"; the one query {min(ratios):.1f}x to {max(ratios):.1f}x faster" if ratios else "")
            + (f"; {failed} failed or wrong" if failed else ""))


def _ms(part: dict[str, Any]) -> str:
    """A measurement's time and its configuration's algorithm, or its status."""
    if part.get("ms_per_sssp") is None:
        return part.get("status", "-")
    return f"{part['ms_per_sssp']:.4g} ({part['config'].get('algorithm', '-')})"


def _peer_ms(theirs: dict[str, Any]) -> str:
    """A peer's time, or its status where it has none (wrong, failed; - where not run)."""
    return f"{theirs['ms']:.4g}" if theirs.get("ms") is not None else theirs.get("status", "-")


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        peer = any("gunrock" in r for r in results.measurements)  # Gunrock's columns where it was measured
        cores = any("scipy_all_cores_ms" in r for r in results.measurements)  # the all-cores baseline's, likewise
        lines += [f"{results.gpu_name}, configurations from `{results.gpu.get('table')}` (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}; rows kept from earlier runs name their commit in "
                  "the last column and their command below the table); milliseconds per SSSP, medians of "
                  f"{results.parameters['repetitions']} passes over {results.parameters['sample']} sources, every "
                  "solve verified; scipy: Dijkstra on one core of the same machine"
                  + ("; Gunrock: its SSSP on the same GPU from the same sources, by its own timer" if peer else "")
                  + ("; all cores: scipy's Dijkstra from other sources on every core of the host at once, wall "
                     "time per SSSP" if cores else "")
                  + ".", "",
                  "| graph | vertices | edges | one query (ms) | vs scipy | batch (ms per SSSP) | CK | vs scipy "
                  "| scipy (ms) |" + (" all cores (ms per SSSP, cores) | batch vs all cores |" if cores else "")
                  + (" Gunrock (ms) | one query vs Gunrock |" if peer else "") + " commit |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if cores else "")
                  + ("---:|---:|" if peer else "") + "---|"]
        for r in results.measurements:
            one, batch = r["one_query"], r["batch"]
            ratio = lambda key: f"{r[key]:.1f}x" if key in r else "-"  # noqa: E731
            gunrock = f" {_peer_ms(r.get('gunrock') or {})} | {ratio('one_query_vs_gunrock')} |" if peer else ""
            all_cores = "" if not cores else (f" {r['scipy_all_cores_ms']:.3g} ({r['cores']}) | "
                                              f"{ratio('batch_vs_all_cores')} |" if "scipy_all_cores_ms" in r else " - | - |")
            lines.append(f"| {r['graph']} | {r['vertices']:,} | {r['edges']:,} | {_ms(one)} "
                         f"| {ratio('one_query_vs_scipy')} | {_ms(batch)} | {batch['config']['concurrent_kernels']} "
                         f"| {ratio('batch_vs_scipy')} | {r['scipy_ms']:.3g} |{all_cores}{gunrock} "
                         f"{r.get('commit', results.commit)} |")
        built = [f"{r['graph']} {r['admits_s']:.1f} s" for r in results.measurements if "admits_s" in r and
                 any(prepared(r[part]["config"].get("algorithm")) for part in ("one_query", "batch"))]
        hierarchies = ["Contraction hierarchies built before a graph's rows (single-threaded, on the host; not in "
                       f"the times): {', '.join(built)}."] if built else []
        lines += kept_section(results) + hierarchies + [f"Peers: {results.summary.get('peers')}.", ""]
    return lines
