"""Benchmark of near-far Delta-stepping (`delta`) against the targets of issue 12, on one GPU.

    python3 scripts/bench_delta.py -o OUT_DIR [--graphs SPEC,...] [--sample 32] [--classes "one query,batched"]

Per graph, in one run on one GPU:

* GPU: every configuration of a candidate grid (below) measured by `CudaEventTimer`, the sweep's
  timer: a warm-up batch, then at least 3 timed repetitions over the whole sample of sources
  (CUDA events, launches included), the median reported with its spread, and every solve's
  distances compared with scipy's Dijkstra (a differing configuration is WRONG, never a winner).
  A candidate whose warm-up takes more than `PRUNE` times the best of its class so far is stopped
  there (recorded as pruned). Reported: the fastest verified configuration with CK 1 (one query:
  what one query waits) and over all CK (batched: ms per SSSP).
* CPU: scipy's Dijkstra (`scipy.sparse.csgraph.dijkstra`, one core: it is single-threaded) on the
  same machine, on the sample's first sources, one call per source on a CSR matrix built
  beforehand; its median time per source.

The candidate grid is derived from the graph, never from a measured result: Delta from the
graph's domain (`delta_values`), the powers of two from the mean weight up, every other one, and
INF; CK 1 with the persistent loop (one block per instance, 512 and 1024 threads; a grid of 128
blocks, which the H100's 132 SMs hold one per SM) and the host loop (128 blocks of 1024 threads);
batched: the persistent loop with one block per instance at CK 64, 256 and 1024, 128 and 256
threads, with several blocks per instance (`BATCHED_GRIDS`), and the host loop at CK 64 (8 blocks
per instance) and 256 (2 blocks). Thresholds: the algorithm's defaults (warp 32, block 1024).

A third class, `model grid` (not run unless asked for), prices the Delta-stepping model
(autotune/model/delta_rules.py) on the graph: the model's own configuration for this GPU (the
live device's profile) with every Delta of `grid_deltas`, the powers of two nearest c x mean
weight / d(G) for c = 1/2 to 256 (Meyer and Sanders' scale, over a range wider than any fitted
constant), and INF. `--grid-from C` starts it at C instead, for a graph whose smallest Deltas
would cost minutes; `--grid-to C` ends it at C and leaves out INF, to complete a grid cut short.
Every other value is the model's, so the records cross Delta with the CK, blocks, loop and block
size the model picks, which `scripts/fit_delta_model.py` needs to price a prediction whole.
`--deltas D,...` replaces the Deltas of the other two classes.

Writes OUT_DIR/bench-delta.jsonl (every measurement, as it is taken) and OUT_DIR/bench-delta.md
(the summary against the targets), and prints the summary.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from autotune.algorithms.delta import DELTA, INFINITE, delta_values  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.launch import CacheState, KernelLaunch, LaunchConfig  # noqa: E402
from autotune.measure import Ask, Protocol, Status, choose_sources  # noqa: E402
from autotune.model.delta_rules import nearest_power  # noqa: E402
from autotune.model.features import GraphFeatures, graph_statistics  # noqa: E402
from autotune.reference.cache import ReferenceCache  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
TARGET_GRAPHS = ["usa-roads.gr.gz", "rmat17", "rmat20", "delaunay_n16.mtx.gz", "rgg_n_2_15_s0.graph.gz",
                 "Email-Enron.txt.gz"]
SWEPT_GRAPHS = [f"random{n}-d{d}" for n in ("24k", "49k", "98k") for d in (2, 20, 200)] + ["rmat18", "rmat19"]
PRUNE = 3.0
# Batched grids (CK, blocks per instance, threads): several blocks per instance, every block
# resident on the H100 (solve_grid's 64 registers: 132 x 1024 / threads blocks at once).
BATCHED_GRIDS = ((16, 8, 1024), (32, 4, 1024), (64, 2, 1024), (64, 8, 256), (128, 4, 256), (32, 16, 256))
CLASSES = ("one query", "batched")
GRID = "model grid"
GRID_SCALES = tuple(2.0**k for k in range(-1, 9))  # c in Delta = c x mean weight / d(G)
CPU_BUDGET_S = 10.0
# ms per SSSP (issue 12): (graph, class) -> at most
TARGETS = {("usa-roads", "one query"): 4.0, ("usa-roads", "batched"): 0.5, ("rmat20", "one query"): 3.0,
           ("rmat20", "batched"): 1.5, ("rmat17", "batched"): 0.25}
SPEEDUP_GRAPHS = ("delaunay_n16", "rgg_n_2_15_s0", "Email-Enron", "usa-roads")
SPEEDUP_TARGET = 30.0


def spec_of(name: str) -> str:
    return str(DATA / name) if name.endswith(".gz") else name


def candidate_deltas(graph) -> list:
    statistics_ = graph_statistics(graph)
    domain = delta_values(SimpleNamespace(**statistics_))
    mean = statistics_.get("mean_weight") or 1
    finite = [d for d in domain if d != INFINITE and d >= mean]
    return finite[::2] + [INFINITE]


def config(ck: int, block: int, **params) -> LaunchConfig:
    launch = KernelLaunch(block, CacheState.DEFAULT)
    return DELTA.validate(LaunchConfig(ck, {"advance": launch, "split": launch}, "delta",
                                       {**DELTA.default_params(), **params}))


def candidates(graph, deltas: list | None = None) -> list[tuple[str, LaunchConfig]]:
    """The grid of the module docstring, INF first and Delta descending; `deltas` (ascending)
    replaces the Deltas derived from the graph."""
    out = []
    for delta in reversed(deltas or candidate_deltas(graph)):
        for block in (512, 1024):
            out.append(("one query", config(1, block, delta=delta, loop="persistent", blocks=128)))
            out.append(("one query", config(1, block, delta=delta, loop="persistent", blocks=1)))
        out.append(("one query", config(1, 1024, delta=delta, loop="host", blocks=128)))
        for ck in (64, 256, 1024):
            for block in (128, 256):
                out.append(("batched", config(ck, block, delta=delta, loop="persistent", blocks=1)))
        for ck, blocks, block in BATCHED_GRIDS:
            out.append(("batched", config(ck, block, delta=delta, loop="persistent", blocks=blocks)))
        for ck, blocks in ((64, 8), (256, 2)):
            out.append(("batched", config(ck, 1024, delta=delta, loop="host", blocks=blocks)))
    return out


def grid_deltas(graph, smallest_scale: float = GRID_SCALES[0], largest_scale: float | None = None) -> list:
    """The Deltas of the model grid, ascending, INF last (INF alone for a graph without weights);
    with `largest_scale`, the finite ones up to it."""
    statistics_ = graph_statistics(graph)
    mean = statistics_.get("mean_weight")
    if not mean:
        return [INFINITE]
    domain = delta_values(SimpleNamespace(**statistics_))
    values = {nearest_power(c * mean / max(graph.mean_degree, 1e-9), domain) for c in GRID_SCALES
              if smallest_scale <= c <= (largest_scale or math.inf)}
    return sorted(values) + ([] if largest_scale else [INFINITE])


def grid_candidates(graph, device, smallest_scale: float = GRID_SCALES[0],
                    largest_scale: float | None = None) -> list[tuple[str, LaunchConfig]]:
    """The model's configuration for `graph` on `device` (a DeviceProfile) with each Delta of the
    grid, INF first and Delta descending (as `candidates`)."""
    predicted = DELTA.predict(GraphFeatures.from_graph(graph), device).config
    deltas = reversed(grid_deltas(graph, smallest_scale, largest_scale))
    return [(GRID, DELTA.validate(predicted.replace(delta=delta))) for delta in deltas]


def cpu_dijkstra_ms(graph, sources) -> tuple[float, int]:
    """Median ms per source of scipy's Dijkstra, one call per source, within `CPU_BUDGET_S`."""
    import scipy.sparse
    from scipy.sparse.csgraph import dijkstra

    n = graph.n_vertices
    matrix = scipy.sparse.csr_matrix((graph.weights.astype(np.float64), graph.columns, graph.row_offsets), shape=(n, n))
    times, started = [], time.perf_counter()
    for source in sources:
        t0 = time.perf_counter()
        dijkstra(matrix, directed=True, indices=int(source))
        times.append((time.perf_counter() - t0) * 1e3)
        if time.perf_counter() - started > CPU_BUDGET_S and len(times) >= 2:
            break
    return statistics.median(times), len(times)


def bench_graph(name: str, sample_size: int, log, classes: tuple[str, ...] = CLASSES,
                grid_from: float = GRID_SCALES[0], grid_to: float | None = None, deltas: list | None = None) -> dict:
    from autotune.gpu import CudaEventTimer, open_solver

    t0 = time.perf_counter()
    graph = load_graph(spec_of(name))
    sample = choose_sources(graph, sample_size, seed=0)
    references = ReferenceCache(None)
    expected = references.distances(graph, sample)
    cpu_ms, cpu_sources = cpu_dijkstra_ms(graph, sample)
    setup_s = time.perf_counter() - t0
    protocol = Protocol(sample=sample_size, min_repetitions=3, max_repetitions=5, noise=0.05)
    best: dict[str, dict] = {}
    with open_solver(graph, "delta") as solver:
        timer = CudaEventTimer(solver, sample, protocol, expected=expected)
        grid = grid_candidates(graph, solver.device_profile, grid_from, grid_to) if GRID in classes else []
        for kind, candidate in candidates(graph, deltas) + grid:
            if kind not in classes:
                continue
            incumbent = best.get(kind)

            def stop(times_ms, warm_up, incumbent=incumbent):
                far = incumbent is not None and warm_up and min(times_ms) > PRUNE * incumbent["ms_per_sssp"]
                return Ask.PRUNE if far else Ask.GO_ON

            t1 = time.perf_counter()
            m = timer.measure(candidate, stop)
            row = {"graph": graph.name, "class": kind, "config": candidate.to_json(), "status": str(m.status),
                   "reason": m.reason, "ms_per_sssp": m.ms_per_sssp, "times_ms": list(m.times_ms),
                   "iterations": m.iterations, "kernel_ms": m.kernel_ms, "wall_s": round(time.perf_counter() - t1, 2)}
            log.write(json.dumps(row) + "\n")
            log.flush()
            if m.status is Status.OK and (incumbent is None or m.ms_per_sssp < incumbent["ms_per_sssp"]):
                best[kind] = row
    batched = min(best.values(), key=lambda r: r["ms_per_sssp"]) if best else None
    summary = {"graph": graph.name, "vertices": graph.n_vertices, "edges": graph.n_edges, "setup_s": round(setup_s, 1),
               "cpu_dijkstra_ms": cpu_ms, "cpu_sources": cpu_sources, "one_query": best.get("one query"),
               "batched": batched, "classes": list(classes), "wall_s": round(time.perf_counter() - t0, 1)}
    log.write(json.dumps({"summary": summary}) + "\n")
    log.flush()
    return summary


def describe(row: dict | None) -> str:
    if row is None:
        return "none verified"
    c = row["config"]
    p = c["params"]
    spread = f"{min(row['times_ms']):.4g}-{max(row['times_ms']):.4g}"
    return (f"{row['ms_per_sssp']:.4g} ms ({spread}) CK{c['concurrent_kernels']} {p['loop']} B={p['blocks']} "
            f"block={c['kernels']['advance']['block_size']} delta={p['delta']}, {row['iterations']:.0f} iterations")


def report(summaries: list[dict], device: str, command: str, swept: dict[str, float]) -> str:
    lines = [f"# Delta-stepping benchmark ({device})", "", f"Command: `{command}`", "",
             f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; host {platform.node()}", "",
             "| graph | one query (CK 1) | batched (best CK) | scipy Dijkstra, 1 core | batched speedup |",
             "|---|---|---|---|---|"]
    verdicts = []
    for s in summaries:
        speed = s["cpu_dijkstra_ms"] / s["batched"]["ms_per_sssp"] if s["batched"] else None
        one = describe(s["one_query"]) if "one query" in s["classes"] else "not measured"
        lines.append(f"| {s['graph']} ({s['vertices']:,} v, {s['edges']:,} e) | {one} | "
                     f"{describe(s['batched'])} | {s['cpu_dijkstra_ms']:.3g} ms ({s['cpu_sources']} sources) | "
                     f"{'–' if speed is None else f'{speed:.0f}x'} |")
        for (graph, kind), limit in TARGETS.items():
            if s["graph"].startswith(graph) and kind in s["classes"]:
                row = s["one_query"] if kind == "one query" else s["batched"]
                value = row["ms_per_sssp"] if row else None
                verdicts.append(f"- {graph} {kind}: target <= {limit} ms, measured "
                                f"{'none' if value is None else f'{value:.4g} ms'}: "
                                f"{'met' if value is not None and value <= limit else 'NOT met'}")
        if s["graph"].split(".")[0] in SPEEDUP_GRAPHS and set(s["classes"]) & {"batched", GRID}:
            verdicts.append(f"- {s['graph']} batched vs scipy Dijkstra: target >= {SPEEDUP_TARGET:.0f}x, measured "
                            f"{'none' if speed is None else f'{speed:.1f}x'}: "
                            f"{'met' if speed is not None and speed >= SPEEDUP_TARGET else 'NOT met'}")
        if s["graph"] in swept and s["batched"]:
            recorded = swept[s["graph"]]
            ratio = s["batched"]["ms_per_sssp"] / recorded
            verdicts.append(f"- {s['graph']}: delta batched {s['batched']['ms_per_sssp']:.4g} ms vs the recorded Crauser "
                            f"best {recorded:.4g} ms (reports/h100/sweeps): {ratio:.2f}x the time")
    return "\n".join(lines + ["", "## Against the targets", ""] + verdicts) + "\n"


RECORDED_SWEEPS = Path(__file__).resolve().parents[1] / "reports" / "h100" / "sweeps"


def recorded_crauser_best(directory: Path = RECORDED_SWEEPS) -> dict[str, float]:
    """The best verified ms per SSSP of every graph in the sweep tables of `directory` (default
    reports/h100/sweeps: Crauser, exhaustive and bayes)."""
    best: dict[str, float] = {}
    for path in directory.glob("*.json"):
        table = json.loads(path.read_text())
        for entry in table.get("entries", []):
            if (entry.get("best") or {}).get("verified", True):
                name = entry["graph"]["name"]
                best[name] = min(best.get(name, float("inf")), entry["best"]["ms_per_sssp"])
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--graphs", default=",".join(TARGET_GRAPHS + SWEPT_GRAPHS))
    parser.add_argument("--sample", type=int, default=32)
    parser.add_argument("--classes", default=",".join(CLASSES),
                        help=f"which candidates, comma-separated: {', '.join(CLASSES)}, {GRID}")
    parser.add_argument("--grid-from", type=float, default=GRID_SCALES[0], metavar="C",
                        help=f"the model grid's smallest c in Delta = c x mean weight / d(G) "
                        f"(default {GRID_SCALES[0]:g})")
    parser.add_argument("--deltas", default=None, metavar="D,...",
                        help="the Deltas of the one query and batched candidates (default: derived from the graph)")
    parser.add_argument("--grid-to", type=float, default=None, metavar="C",
                        help="the model grid's largest c, without INF (default: to the end, and INF)")
    args = parser.parse_args(argv)
    deltas = None
    if args.deltas:
        given = args.deltas.split(",")
        deltas = sorted(int(d) for d in given if d != INFINITE) + ([INFINITE] if INFINITE in given else [])
    from autotune.gpu import device_description, gpu_session

    args.output.mkdir(parents=True, exist_ok=True)
    command = "python3 scripts/bench_delta.py " + " ".join(argv if argv is not None else sys.argv[1:])
    summaries = []
    with gpu_session() as device, open(args.output / "bench-delta.jsonl", "a") as log:
        name = str(device_description(device)["name"])
        log.write(json.dumps({"command": command, "device": name,
                              "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}) + "\n")
        for graph in args.graphs.split(","):
            summaries.append(bench_graph(graph, args.sample, log, tuple(c.strip() for c in args.classes.split(",")),
                                         args.grid_from, args.grid_to, deltas))
            text = report(summaries, name, command, recorded_crauser_best())
            (args.output / "bench-delta.md").write_text(text)
            print(f"{graph}: {describe(summaries[-1]['one_query'])} | {describe(summaries[-1]['batched'])}", flush=True)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
