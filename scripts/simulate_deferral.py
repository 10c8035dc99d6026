#!/usr/bin/env python3
"""A CPU model of one query's frontier Bellman-Ford (Delta = INF) with and without deferral, the
model behind `defer_work` (docs/notes/kernels.md, run Z): each iteration expands the queued vertices
at once, with the distances of its start; a queued vertex of e edges and distance d that a rule
defers stays queued instead. Prints, per rule, the iterations and the edges scanned per arc (the
mean over the sources). No GPU.

Usage:

    python3 scripts/simulate_deferral.py GRAPH [SOURCES] [THREADS] [HUBS]

Rules: `off`; `degree H` (a vertex of at least H edges waits while d exceeds its queue's least, as
`defer_degree` did); `work W` (it waits while (d - least) x e > W, as `defer_work` does); `gate W
s` (`work W`, but nothing waits while the queue holds fewer than s x THREADS vertices, the grid's
threads, 65,536 by default: 128 blocks of 512); `adapt W a` (`work` with W x (THREADS / queue)^a
where the queue holds fewer than THREADS). HUBS (0: none): a vertex of at least that many edges has
them relaxed an iteration after its expansion, as solve_grid's hub chunks (`block_threshold`). The
model is synchronous (an iteration expands with the distances of its start). Without HUBS it put
`gate` at rmat17's 12.5 iterations and 1.62 scans an arc where the GPU took 15.0 and 2.39 (run AA
of docs/notes/kernels.md); with them (256, rmat17's threshold) at 16.5 and 2.55.
"""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autotune.graphs import load_graph  # noqa: E402

RULES = [("off", None), ("degree", 32), ("degree", 64), ("work", 200), ("work", 400), ("work", 800),
         ("work", 1600), ("work", 3200), ("gate", (200, 0.5)), ("gate", (400, 0.5)), ("adapt", (100, 1)),
         ("adapt", (200, 0.5)), ("adapt", (200, 1)), ("adapt", (400, 0.5))]


def simulate(offsets: np.ndarray, columns: np.ndarray, weights: np.ndarray, source: int, rule, hubs: int = 0
             ) -> tuple[int, int]:
    """(iterations, edges scanned) of one query under `rule(d - least, degrees, queue) -> expand now`;
    with `hubs` > 0, the edges of an expanded vertex of at least that many are relaxed in the next
    iteration, with its distances (solve_grid's hub chunks: `block_threshold`)."""
    n, degrees = len(offsets) - 1, np.diff(offsets)
    dist = np.full(n, 1 << 40)
    dist[source] = 0
    queued = np.zeros(n, bool)
    queued[source] = True
    chunks = np.zeros(0, np.int64)  # the hubs the last iteration expanded
    iterations = scanned = 0
    while queued.any() or len(chunks):
        iterations += 1
        expand = queued & (rule(dist - dist[queued].min(), degrees, int(queued.sum())) if queued.any() else False)
        expanded = np.flatnonzero(expand)
        late = degrees[expanded] >= hubs if hubs else np.zeros(len(expanded), bool)
        vertices = np.concatenate([expanded[~late], chunks])
        chunks = expanded[late]
        counts = degrees[vertices]
        scanned += int(counts.sum())
        edges = np.repeat(offsets[vertices] - np.concatenate(([0], np.cumsum(counts)[:-1])), counts) \
            + np.arange(counts.sum())
        lowered = dist.copy()
        np.minimum.at(lowered, columns[edges], dist[np.repeat(vertices, counts)] + weights[edges])
        queued = (lowered < dist) | (queued & ~expand)
        dist = lowered
    return iterations, scanned


def rule_of(kind: str, value, threads: int):
    if kind == "off":
        return lambda above, degrees, queue: np.ones(len(degrees), bool)
    if kind == "degree":
        return lambda above, degrees, queue: (degrees < value) | (above <= 0)
    if kind == "gate":
        work, share = value
        return lambda above, degrees, queue: (queue < share * threads) | (above * degrees <= work)
    if kind == "adapt":
        work, power = value
        return lambda above, degrees, queue: above * degrees <= work * max(1.0, threads / queue) ** power
    return lambda above, degrees, queue: above * degrees <= value


def main(spec: str, sources: str = "4", threads: str = "65536", hubs: str = "0") -> None:
    graph = load_graph(spec)
    offsets, columns, weights = (np.asarray(a, np.int64) for a in (graph.row_offsets, graph.columns, graph.weights))
    chosen = np.random.default_rng(0).choice(np.flatnonzero(np.diff(offsets) > 0), int(sources), replace=False)
    print(f"{spec}: n {graph.n_vertices}, arcs {len(columns)}, sources {chosen.tolist()}, threads {threads}, hubs {hubs}", flush=True)
    for kind, value in RULES:
        found = [simulate(offsets, columns, weights, int(s), rule_of(kind, value, int(threads)), int(hubs)) for s in chosen]
        shown = "" if value is None else " ".join(map(str, value)) if isinstance(value, tuple) else value
        print(f"{kind} {shown}: iterations {np.mean([f[0] for f in found]):.1f}, "
              f"scans per arc {np.mean([f[1] for f in found]) / len(columns):.2f}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
