"""A CPU model of solve_block's near-far iterations with and without CHAIN_HOPS (kernels/delta.cu,
`relax_chain`), whose threads are interleaved at random at every read and atomic: it checks the
argument that chains keep the distances exact (against Dijkstra, on random graphs with zero
weights, unreachable vertices and one vertex) and counts the iterations chains save on a grid of
random road-like weights. It says nothing about time: `scripts/probe_chains.py` measures that.

    python3 scripts/simulate_chains.py                       # the checks and the grid
    python3 scripts/simulate_chains.py rome99.gr.gz:8192      # also a suite graph's iterations at a Delta
"""
import heapq
import itertools
import random
import sys

INF = 2**31 - 1


def dijkstra(adj: list, source: int) -> list:
    dist = [INF] * len(adj)
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d == dist[u]:
            for v, w in adj[u]:
                if d + w < dist[v]:
                    dist[v] = d + w
                    heapq.heappush(heap, (dist[v], v))
    return dist


def solve(adj: list, source: int, delta: int, hops: int, rng: random.Random) -> tuple[list, int]:
    """Distances and iterations of near-far Delta-stepping, an arc a thread, threads interleaved
    at random; an improved vertex below the threshold is followed by its thread up to `hops` hops."""
    dist = [INF] * len(adj)
    dist[source] = 0
    near, far, threshold, iterations = [source], [], delta, 0
    queued: dict = {}

    def push(u: int, d: int, below: int) -> None:
        pile, bits = (queued["near"], queued["near_bits"]) if d < below else (far, queued["far_bits"])
        if u not in bits:
            bits.add(u)
            pile.append(u)

    def atomic_min(v: int, d: int) -> int:
        old = dist[v]
        dist[v] = min(old, d)
        return old

    def thread(d_tail: int, w: int, v: int, below: int):
        u, nd = v, d_tail + w
        yield
        if nd >= atomic_min(u, nd):
            return
        for _ in range(hops):
            if nd >= below:
                break
            follow = None
            for x, wx in adj[u]:
                yield
                if nd + wx < atomic_min(x, nd + wx):
                    if follow is None and nd + wx < below:
                        follow = (x, nd + wx)
                    else:
                        push(x, nd + wx, below)
            if follow is None:
                return
            u, nd = follow
        push(u, nd, below)

    queued["far_bits"] = set()
    while near:
        iterations += 1
        queued["near"], queued["near_bits"] = [], set()
        threads = [thread(dist[u], w, v, threshold) for u in near for v, w in adj[u]]
        while threads:
            t = rng.choice(threads)
            try:
                next(t)
            except StopIteration:
                threads.remove(t)
        near = queued["near"]
        while not near and far:
            pile, far = far, []
            queued["far_bits"] = set()
            least = min(dist[u] for u in pile)
            new = INF if delta == INF else max((least // delta + 1) * delta, threshold + delta)
            for u in pile:
                if dist[u] >= threshold:
                    push(u, dist[u], new)
            threshold, near = new, queued["near"]
    return dist, iterations


def main() -> None:
    rng = random.Random(1)
    for _ in range(300):
        n = rng.randint(1, 60)
        adj = [[] for _ in range(n)]
        for _ in range(rng.randint(0, 4 * n)):
            a, b = rng.randrange(n), rng.randrange(n)
            if a != b:
                adj[a].append((b, rng.choice([0, 1, 2, 5, 10, 50])))
        source = rng.randrange(n)
        for delta, hops in itertools.product((1, 4, 16, INF), (0, 1, 2, 4, 8)):
            assert solve(adj, source, delta, hops, rng)[0] == dijkstra(adj, source), (adj, source, delta, hops)
    print("300 random graphs (zero weights, unreachable vertices, one vertex), every Delta and hops: exact")
    side = 40
    grid = [[] for _ in range(side * side)]
    for x, y in itertools.product(range(side), range(side)):
        for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            if 0 <= x + dx < side and 0 <= y + dy < side:
                grid[x * side + y].append(((x + dx) * side + y + dy, rng.randint(1, 100)))
    for delta in (64, 256, 1024):
        counts = {h: solve(grid, 0, delta, h, rng)[1] for h in (0, 2, 4, 8)}
        print(f"{side}x{side} grid, weights 1..100, Delta {delta}: iterations by hops {counts}")
    for argument in sys.argv[1:]:
        name, _, delta = argument.rpartition(":")
        adj, source = suite_graph(name)
        counts = {h: solve(adj, source, int(delta), h, rng)[1] for h in (0, 2, 4, 8)}
        print(f"{name} from vertex {source}, Delta {delta}: iterations by hops {counts}", flush=True)


def suite_graph(name: str) -> tuple[list, int]:
    """A suite graph's arcs as lists, and the first source the GPU suites sample on it."""
    from benchmarks import data
    from autotune.cli.options import load_spec
    from autotune.measure import choose_sources

    graph = load_spec(data.spec(name), 0, None)
    offsets, columns, weights = graph.row_offsets.tolist(), graph.columns.tolist(), graph.weights.tolist()
    adj = [list(zip(columns[offsets[u]:offsets[u + 1]], weights[offsets[u]:offsets[u + 1]]))
           for u in range(graph.n_vertices)]
    return adj, int(choose_sources(graph, 1, 0)[0])


if __name__ == "__main__":
    main()
