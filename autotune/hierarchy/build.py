"""A hierarchy built for a command, as a user watches it: a line when it starts, progress by time
(never a silent minute), and a line with its build time or why the graph gets none."""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from autotune.graphs.csr import CSRGraph
from autotune.hierarchy.contraction import Unsuited
from autotune.hierarchy.layout import Hierarchy
from autotune.hierarchy.store import HierarchyStore

EVERY_S = 10.0  # progress at most this often


def timed_progress(prefix: str, stream: TextIO, clock=time.perf_counter, every_s: float = EVERY_S
                   ) -> Callable[[int, int], None]:
    """A contraction's `progress(contracted, n)` that prints `prefix: X of N vertices contracted (T s)` to
    `stream` at most every `every_s` seconds (the contraction calls it every `contraction.PROGRESS_EVERY` vertices,
    and with none contracted yet while it estimates every vertex's importance first)."""
    start = clock()
    last = [start]

    def progress(done: int, n: int) -> None:
        now = clock()
        if now - last[0] >= every_s:
            last[0] = now
            said = f"{done:,} of {n:,} vertices contracted" if done else \
                f"estimating the importance of its {n:,} vertices"
            print(f"{prefix}: {said} ({now - start:.0f} s)", file=stream, flush=True)

    return progress


def build_kept(store: HierarchyStore, graph: CSRGraph, stream: TextIO | None = None,
               clock=time.perf_counter) -> Hierarchy | None:
    """The graph's hierarchy from `store`, built (and kept) where it is not yet, reporting on
    `stream` (stderr by default); None where the graph gets none (the reason reported and kept)."""
    out = sys.stderr if stream is None else stream
    start = clock()
    progress = timed_progress(f"autotune: {graph.name}: contraction hierarchy", out, clock)

    if not store.kept(graph):
        print(f"autotune: {graph.name}: building its contraction hierarchy ({graph.n_vertices:,} vertices; kept "
              "for later runs; --no-hierarchy skips it)", file=out, flush=True)
    try:
        found = store.hierarchy(graph, progress)
    except Unsuited as why:
        print(f"autotune: {graph.name}: no contraction hierarchy: {why} ({clock() - start:.1f} s)", file=out,
              flush=True)
        return None
    if store.built:
        print(f"autotune: {graph.name}: contraction hierarchy of {found.levels} levels built in "
              f"{clock() - start:.1f} s", file=out, flush=True)
    return found
