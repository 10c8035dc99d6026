"""How far a contraction hierarchy's upward search reaches (docs/notes/kernels.md, run Y): per kept
hierarchy (`benchmarks/graphs/hierarchies*/`), 16 random sources (seed 1) searched over the upward
arcs and 16 over the downward arcs reversed, as rounds of a label-correcting search (what
`kernels/phast.cu`'s `search` runs); the median and most vertices reached, arcs scanned and rounds.
On the CPU.

    python3 scripts/probe_upward_search.py
"""
import glob

import numpy as np

from autotune.hierarchy.layout import Hierarchy

rng = np.random.default_rng(1)
for path in sorted(glob.glob("benchmarks/graphs/hierarchies*/*.npz")):
    h = Hierarchy.from_file(path)
    stats = []
    for offsets, ends, weights in ((h.up_offsets, h.up_heads, h.up_weights),
                                   (h.down_offsets, h.down_tails, h.down_weights)):
        for start in rng.integers(0, h.n_vertices, 16):
            start = int(h.new_of[start])
            dist, frontier, rounds, arcs = {start: 0}, [start], 0, 0
            while frontier:
                rounds += 1
                improved = set()
                for v in frontier:
                    for e in range(offsets[v], offsets[v + 1]):
                        arcs += 1
                        u, d = int(ends[e]), dist[v] + int(weights[e])
                        if d < dist.get(u, 1 << 60):
                            dist[u] = d
                            improved.add(u)
                frontier = list(improved)
            stats.append((len(dist), arcs, rounds - 1))  # the last round found nothing
    a = np.array(stats)
    print(f"{path.split('/')[-1][:12]} n {h.n_vertices} levels {h.levels}: reached {int(np.median(a[:, 0]))} "
          f"(most {a[:, 0].max()}), arcs {int(np.median(a[:, 1]))}, rounds {int(np.median(a[:, 2]))} "
          f"(most {a[:, 2].max()})", flush=True)
