#!/usr/bin/env python3
"""CPU probe for issue 29 (docs/notes/kernels.md, run V): how many barrier-separated steps would one
query of a road network take after a contraction-hierarchy preprocessing, as in PHAST (Delling,
Goldberg, Nowatzyk and Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011)?

The near-far kernels need one barrier per iteration (usa-roads: about 1,536 for one query). PHAST
answers a one-to-all query on a contraction hierarchy with a small upward Dijkstra from the source
and then one linear sweep over the vertices in descending level order, in which the vertices of a
level are independent: one parallel step per level. This script builds the hierarchy on the CPU
(plain Python: node order by edge difference, contracted neighbours and `--level-weight` x level,
lazily updated; witness searches bounded by `--settle` vertices), answers `--sources` queries
PHAST's way and as the level sweeps `scripts/probe_phast.cu` runs, checks every distance against
scipy's Dijkstra, prints the hierarchy's size and levels, the upward searches' size, the sweeps'
steps and the preprocessing time, and with `--save DIR` writes DIR/NAME.ch.npz (`layout`).

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

from benchmarks import data  # noqa: E402


def adjacency(graph):
    """Out- and in-arcs as dicts of dicts (the lightest of parallel arcs), self-loops dropped."""
    out = [dict() for _ in range(graph.n_vertices)]
    into = [dict() for _ in range(graph.n_vertices)]
    for u, v, w in zip(graph.tails.tolist(), graph.columns.tolist(), graph.weights.tolist()):
        if u != v and w < out[u].get(v, float("inf")):
            out[u][v] = w
            into[v][u] = w
    return out, into


def witness(out, source, skip, targets, limit, settle):
    """Distances from `source` to the `targets` it reaches within `limit` without `skip`, settling at
    most `settle` vertices."""
    dist, heap, found, settled = {source: 0}, [(0, source)], {}, 0
    while heap and settled < settle and len(found) < len(targets):
        d, u = heapq.heappop(heap)
        if d > dist[u] or d > limit:
            continue
        settled += 1
        if u in targets:
            found[u] = d
        for v, w in out[u].items():
            if v != skip and d + w < dist.get(v, float("inf")):
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return found


def shortcuts_of(out, into, v, settle):
    """The shortcuts contracting `v` needs: (u, w, weight) for each in-arc u->v and out-arc v->w
    with no witness path u ~> w avoiding v at most as long."""
    needed = []
    outs = out[v]
    for u, wu in into[v].items():
        targets = {w: wu + ww for w, ww in outs.items() if w != u}
        if not targets:
            continue
        found = witness(out, u, v, set(targets), max(targets.values()), settle)
        needed += [(u, w, via) for w, via in targets.items() if found.get(w, float("inf")) > via]
    return needed


def contract(graph, settle, level_weight):
    """The hierarchy: every vertex's rank and level, and the arcs of the graph with its shortcuts
    (tails, heads, weights). A vertex's priority (the least contracted first): its edge difference
    plus its contracted neighbours plus `level_weight` x its level (PHAST's way to fewer levels)."""
    out, into = adjacency(graph)
    n = graph.n_vertices
    deleted = [0] * n
    level = [0] * n
    rank = [-1] * n

    def priority(v):
        shortcuts = len(shortcuts_of(out, into, v, settle))
        return shortcuts - len(out[v]) - len(into[v]) + deleted[v] + level_weight * level[v]

    heap = [(priority(v), v) for v in range(n)]
    heapq.heapify(heap)
    arcs = {(u, v): w for u in range(n) for v, w in out[u].items()}
    order = 0
    while heap:
        p, v = heapq.heappop(heap)
        if rank[v] >= 0:
            continue
        now = priority(v)
        if heap and now > heap[0][0]:  # lazy update
            heapq.heappush(heap, (now, v))
            continue
        for u, w, weight in shortcuts_of(out, into, v, settle):
            if weight < out[u].get(w, float("inf")):
                out[u][w] = weight
                into[w][u] = weight
                if weight < arcs.get((u, w), float("inf")):
                    arcs[(u, w)] = weight
        rank[v] = order
        order += 1
        for u in list(into[v]):
            del out[u][v]
            deleted[u] += 1
            level[u] = max(level[u], level[v] + 1)
        for w in list(out[v]):
            del into[w][v]
            deleted[w] += 1
            level[w] = max(level[w], level[v] + 1)
        out[v].clear()
        into[v].clear()
    tails = np.fromiter((u for u, _ in arcs), np.int64, len(arcs))
    heads = np.fromiter((v for _, v in arcs), np.int64, len(arcs))
    weights = np.fromiter(arcs.values(), np.int64, len(arcs))
    return np.array(rank), np.array(level), tails, heads, weights


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


def layout(rank, level, tails, heads, weights):
    """The hierarchy as the GPU sweep reads it: vertices renumbered by descending level (`new_of`:
    old id -> new id; `old_of` its inverse), `level_start` (level index i, counted from the top,
    holds the new ids level_start[i]..level_start[i+1]), the downward in-arcs of each vertex (from
    higher ranks; CSR `down_offsets`, `down_tails`, `down_weights`) and its upward out-arcs (to
    higher ranks; `up_offsets`, `up_heads`, `up_weights`), all int32 but the offsets (int64)."""
    n = len(rank)
    old_of = np.lexsort((-rank, -level))  # the top level first; within a level, higher ranks first
    new_of = np.empty(n, np.int64)
    new_of[old_of] = np.arange(n)
    levels = level.max() + 1
    counts = np.bincount(levels - 1 - level, minlength=levels)
    level_start = np.concatenate([[0], np.cumsum(counts)])
    t, h = new_of[tails], new_of[heads]
    upward = rank[heads] > rank[tails]

    def csr(keys, values, w):
        order = np.argsort(keys, kind="stable")
        offsets = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))])
        return offsets, values[order].astype(np.int32), w[order].astype(np.int32)

    down_offsets, down_tails, down_weights = csr(h[~upward], t[~upward], weights[~upward])
    up_offsets, up_heads, up_weights = csr(t[upward], h[upward], weights[upward])
    return {"new_of": new_of, "old_of": old_of, "level_start": level_start, "down_offsets": down_offsets,
            "down_tails": down_tails, "down_weights": down_weights, "up_offsets": up_offsets, "up_heads": up_heads,
            "up_weights": up_weights}


def level_sweeps(h, source):
    """One query the way the GPU probe does it, a step per level: upward, the levels from the
    source's to the top, each reached vertex of a level relaxing its upward arcs; downward, every
    level from the top, each vertex pulling from its downward in-arcs. Returns (distances by old
    id, the upward steps that had a reached vertex, the steps in all)."""
    start, n = h["level_start"], len(h["new_of"])
    inf = np.iinfo(np.int64).max // 4
    dist = np.full(n, inf, np.int64)
    s = int(h["new_of"][source])
    dist[s] = 0
    first = int(np.searchsorted(start, s, side="right")) - 1
    busy = 0
    for i in range(first, -1, -1):
        vs = np.arange(start[i], start[i + 1])
        vs = vs[dist[vs] < inf]
        busy += bool(len(vs))
        for v in vs.tolist():
            lo, hi = h["up_offsets"][v], h["up_offsets"][v + 1]
            np.minimum.at(dist, h["up_heads"][lo:hi], dist[v] + h["up_weights"][lo:hi])
    for i in range(len(start) - 1):
        lo, hi = h["down_offsets"][start[i]], h["down_offsets"][start[i + 1]]
        if hi > lo:
            owners = np.repeat(np.arange(start[i], start[i + 1]), np.diff(h["down_offsets"][start[i]:start[i + 1] + 1]))
            pulled = dist[h["down_tails"][lo:hi]] + h["down_weights"][lo:hi]
            np.minimum.at(dist, owners, pulled)
    return dist[h["new_of"]], busy, first + 1 + len(start) - 1


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
        built = time.perf_counter() - start
        n = graph.n_vertices
        up = [[] for _ in range(n)]
        down = [[] for _ in range(n)]
        for u, v, w in zip(tails.tolist(), heads.tolist(), weights.tolist()):
            (up[u].append((v, w)) if rank[v] > rank[u] else down[v].append((u, w)))
        order = np.argsort(-level, kind="stable").tolist()
        matrix = _scipy_graph(graph)
        h = layout(rank, level, tails, heads, weights)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.save / f"{name}.ch.npz", **h)
        settled, wrong, busy, steps = [], 0, [], []
        for source in sources:
            expected = dijkstra(matrix, directed=True, indices=int(source))
            reached = np.isfinite(expected)
            got, count = phast(n, rank, order, up, down, int(source))
            swept, active, total = level_sweeps(h, int(source))
            for answer in (got, swept):
                wrong += int(np.count_nonzero(answer[reached] != expected[reached].astype(np.int64)))
                wrong += int(np.count_nonzero(answer[~reached] < np.iinfo(np.int64).max // 4))
            settled.append(count)
            busy.append(active)
            steps.append(total)
        sizes = np.bincount(level)
        print(f"{name}: n {n}, arcs {graph.n_edges}, with shortcuts {len(tails)} "
              f"({len(tails) / max(graph.n_edges, 1):.2f}x); levels {len(sizes)} (largest {sizes.max()}, "
              f"median {int(np.median(sizes))} vertices); upward search settles {statistics.median(settled):.0f} "
              f"(median of {len(sources)} sources); built in {built:.1f} s (--settle {args.settle}, "
              f"--level-weight {args.level_weight:g}); level sweeps: {statistics.median(steps):.0f} steps "
              f"({statistics.median(busy):.0f} upward with a reached vertex); "
              f"{wrong} distances differ from scipy's (PHAST's order and the level sweeps)", flush=True)


if __name__ == "__main__":
    main()
