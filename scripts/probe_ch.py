#!/usr/bin/env python3
"""CPU probe for issue 29 (docs/notes/kernels.md, run V): how many barrier-separated steps would one
query of a road network take after a contraction-hierarchy preprocessing, as in PHAST (Delling,
Goldberg, Nowatzyk and Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011)?

The near-far kernels need one barrier per iteration (usa-roads: about 1,536 for one query). PHAST
answers a one-to-all query on a contraction hierarchy with a small upward Dijkstra from the source
and then one linear sweep over the vertices in descending level order, in which the vertices of a
level are independent: one parallel step per level. This script builds the hierarchy on the CPU
(`autotune.hierarchy.contraction`, moved there from this script: node order by edge difference,
contracted neighbours and `--level-weight` x level, lazily updated; witness searches bounded by
`--settle` vertices), answers `--sources` queries PHAST's way and as the level sweeps of
`kernels/phast.cu` (`autotune.hierarchy.level_sweeps`), checks every distance against scipy's
Dijkstra, prints the hierarchy's size and levels, the upward searches' size, the sweeps' steps and
the preprocessing time, and with `--save DIR` writes DIR/NAME.ch.npz (`Hierarchy.to_bytes`).

    python3 scripts/probe_ch.py usa-roads.gr.gz,rome99.gr.gz [--sources 8] [--settle 60] [--level-weight 0]
"""
import argparse
import heapq
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autotune.hierarchy import Hierarchy, contract, level_sweeps  # noqa: E402
from autotune.reference.cache import INF  # noqa: E402
from benchmarks import data  # noqa: E402


def phast(n, rank, order, up, down, source):
    """One-to-all distances: Dijkstra from `source` over the upward arcs (`up`: vertex -> [(head,
    weight)] to higher ranks), then the downward sweep over `order` (the vertices by descending
    level) with `down` (vertex -> [(tail, weight)] from higher ranks). Returns (distances, the
    upward search's settled count)."""
    inf = np.iinfo(np.int64).max // 4
    dist = np.full(n, inf, np.int64)
    dist[source] = 0
    heap, settled = [(0, source)], 0
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        settled += 1
        for v, w in up[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    for v in order:
        best = dist[v]
        for u, w in down[v]:
            if dist[u] + w < best:
                best = dist[u] + w
        dist[v] = best
    return dist, settled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graphs")
    parser.add_argument("--sources", type=int, default=8)
    parser.add_argument("--settle", type=int, default=60)
    parser.add_argument("--level-weight", type=float, default=0.0)
    parser.add_argument("--save", type=Path, default=None, help="write each hierarchy as DIR/NAME.ch.npz (`layout`)")
    args = parser.parse_args()
    from scipy.sparse.csgraph import dijkstra

    from autotune.reference.oracle import _scipy_graph

    for name, graph, sources, _ in data.suite_graphs(args.graphs, args.sources):
        start = time.perf_counter()
        rank, level, tails, heads, weights = contract(graph, args.settle, args.level_weight)
        h = Hierarchy.from_contraction(rank, level, tails, heads, weights)
        built = time.perf_counter() - start
        n = graph.n_vertices
        up = [[] for _ in range(n)]
        down = [[] for _ in range(n)]
        for u, v, w in zip(tails.tolist(), heads.tolist(), weights.tolist()):
            (up[u].append((v, w)) if rank[v] > rank[u] else down[v].append((u, w)))
        order = np.argsort(-level, kind="stable").tolist()
        matrix = _scipy_graph(graph)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{name}.ch.npz").write_bytes(h.to_bytes())
        settled, wrong, steps = [], 0, []
        for source in sources:
            expected = dijkstra(matrix, directed=True, indices=int(source))
            reached = np.isfinite(expected)
            got, count = phast(n, rank, order, up, down, int(source))
            swept, total = level_sweeps(h, int(source))
            wrong += int(np.count_nonzero(got[reached] != expected[reached].astype(np.int64)))
            wrong += int(np.count_nonzero(got[~reached] < np.iinfo(np.int64).max // 4))
            wrong += int(np.count_nonzero(swept[reached] != expected[reached].astype(np.int64)))
            wrong += int(np.count_nonzero(swept[~reached] != INF))
            settled.append(count)
            steps.append(total)
        sizes = np.bincount(level)
        print(f"{name}: n {n}, arcs {graph.n_edges}, with shortcuts {len(tails)} "
              f"({len(tails) / max(graph.n_edges, 1):.2f}x); levels {len(sizes)} (largest {sizes.max()}, "
              f"median {int(np.median(sizes))} vertices); upward search settles {statistics.median(settled):.0f} "
              f"(median of {len(sources)} sources); built in {built:.1f} s (--settle {args.settle}, "
              f"--level-weight {args.level_weight:g}); level sweeps: {statistics.median(steps):.0f} steps; "
              f"{wrong} distances differ from scipy's (PHAST's order and the level sweeps)", flush=True)


if __name__ == "__main__":
    main()
