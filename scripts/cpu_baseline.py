#!/usr/bin/env python3
"""Time SSSP on the CPU, per source, on the graphs and sources the GPU sweeps use: scipy's Dijkstra
and the numpy CPU Crauser of `autotune.reference`. Writes JSON Lines (`autotune.cpu-times/1`, see
`autotune/report/cpu.py`) that `autotune report --cpu-times FILE` reads.

Sources: the GPU sweep's pool, `autotune.measure.choose_sources(graph, POOL, SEED)`, timed in pool
order (the first k of it). `choose_sources` draws another set for another POOL, so POOL and SEED
must be the sweep's: with `--sweeps TABLE_OR_DIR` they are read from the graph's sweep table (its
recorded `autotune sweep` command: `--sources`, else (repetitions + 2) x the largest CK, and
`--seed`); without it `--sources` (default 320 = `pool_size(3, 64)`, the pool of the evidence
sweeps' `--repetitions 3` up to CK 64) and `--seed` (default 0) are used.

What is timed (`time.perf_counter`, one thread), and written into each line's `timed`:
- dijkstra: one `scipy.sparse.csgraph.dijkstra(M, directed=True, indices=BATCH)` call per
  `--batch` sources, on a float64 CSR matrix `M` built once beforehand (untimed); the call's time
  is divided by its sources. Each call still checks its input (O(m)) and allocates the distance
  rows; batching spreads that over the batch, and `call_overhead_ms` records it, measured apart
  (the median of three calls with `limit=0`, which settle only the source).
- crauser: one `autotune.reference.crauser(graph, source)` call per source (its setup, the
  Out-Crauser values and the distance arrays, O(n + m), included: it is part of the solve).
No call starts after `--budget-s` seconds on a graph and solver, once `--min-sources` are timed.
The first source is solved once, untimed, before either solver is timed. Every Crauser solve is
checked against Dijkstra's distances. Every graph's pool is resolved before any is timed, and
the output is written after each graph.

Usage:
    python3 scripts/cpu_baseline.py rmat17 random98k-d20 --sweeps SWEEPS_DIR \\
        -o cpu-times.jsonl
    python3 scripts/cpu_baseline.py rmat20 --sweeps SWEEPS_DIR -o cpu-times.jsonl --append
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.sparse  # noqa: E402
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra  # noqa: E402

from autotune.errors import AutotuneError, InputError  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.measure import choose_sources  # noqa: E402
from autotune.algorithms.thesis.reference import crauser  # noqa: E402
from autotune.reference import UNREACHABLE  # noqa: E402
from autotune.report.cpu import (  # noqa: E402
    CPU_SOLVERS,
    EVIDENCE_MAX_CK,
    EVIDENCE_REPETITIONS,
    CpuTiming,
    SourcePool,
    pool_size,
    cpu_times_text,
    read_cpu_times,
    sweep_source_pool,
)
from autotune.files import atomic_write  # noqa: E402

DEFAULT_POOL = pool_size(EVIDENCE_REPETITIONS, EVIDENCE_MAX_CK)
DEFAULT_BATCH = 16
TIMED = {
    "dijkstra": "scipy.sparse.csgraph.dijkstra(M, directed=True, indices=<up to {batch} sources>) per call, on a "
                "float64 CSR matrix M built once beforehand (untimed); call time / sources in the call. Each call "
                "also checks its input (O(m)) and allocates its distance rows; call_overhead_ms is that cost, "
                "measured apart",
    "crauser": "autotune.reference.crauser(graph, source), one call per source, numpy (its O(n + m) setup, the "
               "Out-Crauser values and distance arrays, included)",
}


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (the platform's processor string elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, object]:
    """What runs the timings: CPU model, logical CPUs (all, and those this process may use),
    memory, and the Python, numpy and scipy versions."""
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "cores_usable": usable, "memory_gib": round(memory_gib, 1),
            "threads": 1, "platform": platform.platform(), "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__}


def scipy_matrix(graph) -> scipy.sparse.csr_matrix:
    """The graph as the float64 CSR matrix with int32 indices that scipy's csgraph works on, so a
    call converts nothing (built once per graph, outside the timing)."""
    n = graph.n_vertices
    return scipy.sparse.csr_matrix((graph.weights.astype(np.float64), graph.columns.astype(np.int32),
                                    graph.row_offsets.astype(np.int32)), shape=(n, n))


def as_distances(found: np.ndarray) -> np.ndarray:
    """scipy's float distances as `autotune.reference` gives them: int64, UNREACHABLE where infinite."""
    found = np.atleast_2d(found)
    out = np.where(np.isinf(found), UNREACHABLE, found)
    return out.astype(np.int64)


def digest(distances: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(distances, dtype=np.int64).tobytes(), digest_size=16).digest()


def call_overhead_ms(matrix: scipy.sparse.csr_matrix, source: int) -> float:
    """One dijkstra call's cost besides the solve: the median of three calls that settle only the source."""
    times = []
    for _ in range(3):
        begin = time.perf_counter()
        scipy_dijkstra(matrix, directed=True, indices=[source], limit=0)
        times.append((time.perf_counter() - begin) * 1e3)
    return statistics.median(times)


def time_dijkstra(matrix, sources: Sequence[int], batch: int, budget_s: float, min_sources: int,
                  reference: dict[int, bytes]) -> tuple[list[int], list[float]]:
    """Solve `batch` sources per call, in order, until done or out of budget; returns (the
    sources, ms per source of each call) and keeps each source's distance digest in `reference`."""
    timed: list[int] = []
    times_ms: list[float] = []
    started = time.perf_counter()
    while len(timed) < len(sources):
        if len(timed) >= min_sources and time.perf_counter() - started > budget_s:
            break
        chunk = list(sources[len(timed):len(timed) + batch])
        begin = time.perf_counter()
        found = scipy_dijkstra(matrix, directed=True, indices=chunk)
        times_ms.append((time.perf_counter() - begin) * 1e3 / len(chunk))
        for source, row in zip(chunk, as_distances(found)):
            reference[source] = digest(row)
        timed += chunk
    return timed, times_ms


def time_crauser(graph, matrix, sources: Sequence[int], budget_s: float, min_sources: int,
                 reference: dict[int, bytes]) -> tuple[list[int], list[float]]:
    """Solve one source per call, in order, until done or out of budget; each result is checked
    against Dijkstra's distances."""
    timed: list[int] = []
    times_ms: list[float] = []
    started = time.perf_counter()
    for source in sources:
        if len(timed) >= min_sources and time.perf_counter() - started > budget_s:
            break
        begin = time.perf_counter()
        distances = crauser(graph, source).distances
        times_ms.append((time.perf_counter() - begin) * 1e3)
        timed.append(source)
        expected = reference.get(source)
        if expected is None:
            expected = digest(as_distances(scipy_dijkstra(matrix, directed=True, indices=[source]))[0])
        if digest(distances) != expected:
            raise AutotuneError(f"{graph.name}: the CPU Crauser's distances from {source} differ from Dijkstra's")
    return timed, times_ms


def sweep_pools(paths: Sequence[str]) -> list[tuple[str, dict[str, Any], SourcePool | None]]:
    """(table path, entry, its source pool) of every entry of the sweep tables under `paths`."""
    from autotune.report.load import expand_paths
    from autotune.table import Table

    found = []
    for path in expand_paths(paths):
        if path.suffix != ".json":
            continue
        table = Table.load(path)
        for entry in table.entries:
            found.append((str(path), entry, sweep_source_pool(table.data.get("command"), entry)))
    if not found:
        raise InputError(f"--sweeps {' '.join(paths)}: holds no sweep table (.json)")
    return found


def pool_of(graph, tables: Sequence[tuple[str, dict[str, Any], SourcePool | None]] | None,
            sources: int | None, seed: int) -> tuple[SourcePool, str]:
    """The sweep's pool for `graph` and where it came from: its sweep tables (which must agree,
    and with `--sources` when given), else `--sources` and `--seed`, else the default.

    Raises:
        InputError: no table of this graph among `--sweeps`, tables of another graph of that name,
            tables that disagree, or a table whose command does not say its pool.
    """
    if tables is None:
        if sources is None:
            return SourcePool(DEFAULT_POOL, seed), f"default: pool_size({EVIDENCE_REPETITIONS}, {EVIDENCE_MAX_CK})"
        return SourcePool(sources, seed), "--sources"
    mine = [(where, pool) for where, entry, pool in tables if entry.graph.get("sha256") == graph.sha256]
    if not mine:
        other = [(where, entry.graph) for where, entry, _pool in tables if entry.name == graph.name]
        if other:
            where, info = other[0]
            raise InputError(f"{graph.name}: {where} swept another graph of that name (sha256 "
                             f"{str(info.get('sha256'))[:12]}, seed {info.get('seed')}, against {graph.sha256[:12]} "
                             f"here); give the sweep's --seed and --weights")
        raise InputError(f"{graph.name}: no sweep table of this graph among --sweeps; sweep it first, or leave "
                         "--sweeps out and give the sweep's --sources and --seed")
    unknown = [where for where, pool in mine if pool is None]
    if unknown:
        raise InputError(f"{graph.name}: {unknown[0]} records no `autotune sweep` command that says its source pool "
                         "(a replay, a merge, or a table written otherwise); leave --sweeps out and give the sweep's "
                         "--sources and --seed")
    pools = {pool for _where, pool in mine}
    if len(pools) > 1:
        listed = "; ".join(f"{pool} in {where}" for where, pool in mine)
        raise InputError(f"{graph.name}: its sweeps drew different source pools ({listed}); time one of them with "
                         "--sweeps naming that table")
    pool = pools.pop()
    if sources is not None and sources != pool.size:
        raise InputError(f"{graph.name}: --sources {sources} is not the sweep's pool ({pool}, {mine[0][0]}); "
                         "leave --sources out")
    return pool, ", ".join(where for where, _pool in mine)


def command_line(argv: Sequence[str] | None) -> str:
    """The command as run (`python3 scripts/cpu_baseline.py ...` when called in-process)."""
    if argv is None:
        return shlex.join([Path(sys.executable).name, *sys.argv])
    return shlex.join(["python3", "scripts/cpu_baseline.py", *argv])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("graphs", nargs="+", metavar="SPEC", help="graph specs, as autotune sweep --graph takes")
    parser.add_argument("--output", "-o", required=True, metavar="FILE.jsonl", help="the timings to write")
    parser.add_argument("--append", action="store_true",
                        help="keep the file's timings of other graphs and solvers (these replace their own)")
    parser.add_argument("--sweeps", action="append", metavar="TABLE_OR_DIR", default=None,
                        help="the GPU sweep tables (.json, or directories holding them): each graph's source pool "
                        "(size and seed) is read from its table; repeat for several")
    parser.add_argument("--seed", type=int, default=0,
                        help="graph seed, and the source pool's without --sweeps, as the sweep's --seed (default 0)")
    parser.add_argument("--weights", default=None, metavar="LO-HI", help="weight range, as the sweep's (default 1-100)")
    parser.add_argument("--sources", type=int, default=None,
                        help=f"the sweep's source pool size, as its --sources (default: read from --sweeps, else "
                        f"{DEFAULT_POOL} = (repetitions + 2) x largest CK for the evidence sweeps' --repetitions "
                        f"{EVIDENCE_REPETITIONS} and CK up to {EVIDENCE_MAX_CK}); the first sources of the pool are "
                        "timed")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH,
                        help=f"sources per scipy Dijkstra call (default {DEFAULT_BATCH})")
    parser.add_argument("--budget-s", type=float, default=60.0,
                        help="seconds per graph and solver before stopping early (default 60)")
    parser.add_argument("--min-sources", type=int, default=8, help="sources timed whatever the budget (default 8)")
    parser.add_argument("--solvers", default=",".join(CPU_SOLVERS), help="dijkstra,crauser (default both)")
    parser.add_argument("--date", default=None, help="the date to record (default: today, UTC)")
    args = parser.parse_args(argv)
    try:
        solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
        unknown = [s for s in solvers if s not in CPU_SOLVERS]
        if unknown or not solvers:
            raise InputError(f"--solvers: expected some of {', '.join(CPU_SOLVERS)}, found {args.solvers!r}")
        for option, value in (("--sources", args.sources), ("--min-sources", args.min_sources),
                              ("--batch", args.batch)):
            if value is not None and value < 1:
                raise InputError(f"{option} must be at least 1, found {value}")
        tables = sweep_pools(args.sweeps) if args.sweeps else None
        output = Path(args.output)
        kept = read_cpu_times(output) if args.append and output.exists() else []
        date = args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        command = command_line(argv)
        described = machine()
        print(f"CPU: {described['cpu']}, {described['cores']} logical CPUs; python {described['python']}, "
              f"numpy {described['numpy']}, scipy {described['scipy']}", file=sys.stderr)
        pools = {spec: pool_of(load_graph(spec, seed=args.seed, weights=args.weights), tables, args.sources, args.seed)
                 for spec in args.graphs}  # every graph's pool is known before any is timed
        timings: list[CpuTiming] = []
        for spec in args.graphs:
            timings += time_graph(spec, args, pools[spec], solvers, described, date, command)
            done = {(t.graph_name, t.solver) for t in timings}
            merged = [t for t in kept if (t.graph_name, t.solver) not in done] + timings
            atomic_write(output, cpu_times_text(merged), "the CPU timings")  # after each graph: an interrupted run keeps them
        print(f"wrote {output}", file=sys.stderr)
    except AutotuneError as error:
        print(f"cpu_baseline: {error}", file=sys.stderr)
        return error.exit_status
    return 0


def time_graph(spec: str, args: argparse.Namespace, sweep_pool: tuple[SourcePool, str], solvers: Sequence[str],
               described: dict[str, object], date: str, command: str) -> list[CpuTiming]:
    """Time each solver on one graph, Dijkstra first (its distances check Crauser's)."""
    graph = load_graph(spec, seed=args.seed, weights=args.weights)
    pool, pool_from = sweep_pool
    sources = list(choose_sources(graph, pool.size, pool.seed))
    info = {"name": graph.name, "vertices": graph.n_vertices, "edges": graph.n_edges, "sha256": graph.sha256,
            "seed": args.seed, "weights": args.weights or "1-100"}
    matrix = scipy_matrix(graph)  # untimed
    scipy_dijkstra(matrix, directed=True, indices=sources[:1])  # warm-up, untimed
    crauser(graph, sources[0])
    reference: dict[int, bytes] = {}
    timings = []
    for solver in sorted(solvers, key=CPU_SOLVERS.index):
        if solver == "dijkstra":
            timed, times_ms = time_dijkstra(matrix, sources, args.batch, args.budget_s, args.min_sources, reference)
            extra = {"sources_per_call": min(args.batch, len(timed)),
                     "timed": TIMED["dijkstra"].format(batch=args.batch),
                     "call_overhead_ms": call_overhead_ms(matrix, sources[0])}
        else:
            timed, times_ms = time_crauser(graph, matrix, sources, args.budget_s, args.min_sources, reference)
            extra = {"sources_per_call": 1, "timed": TIMED["crauser"]}
        timing = CpuTiming(info, solver, tuple(timed), tuple(times_ms), described, date, pool.size, pool.seed,
                           command, pool_from=pool_from, **extra)
        timings.append(timing)
        print(f"{graph.name} {solver}: {timing.ms_per_sssp:.3g} ms per SSSP (median of {len(times_ms)} call(s), "
              f"{len(timed)} sources of the sweep's pool of {pool}, from {pool_from})", file=sys.stderr)
    return timings


if __name__ == "__main__":
    sys.exit(main())
