"""A hierarchy built for a command, as a user watches it: a line when it starts, progress by time
(never a silent minute), and a line with its build time or why the graph gets none; where the
command gives the build a time limit (a sweep gives it a share of its budget), a line saying it
stopped there, and how to build it without one."""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from autotune.graphs.csr import CSRGraph
from autotune.hierarchy.contraction import Stopped, Unsuited
from autotune.hierarchy.layout import Hierarchy
from autotune.hierarchy.store import HierarchyStore

EVERY_S = 10.0  # progress at most this often


def timed_progress(prefix: str, stream: TextIO, clock=time.perf_counter, every_s: float = EVERY_S,
                   within_s: float | None = None, done: list[int] | None = None) -> Callable[[int, int], bool]:
    """A contraction's `progress(contracted, n)` that prints `prefix: X of N vertices contracted (T s)` to
    `stream` at most every `every_s` seconds (the contraction calls it every `contraction.PROGRESS_EVERY` vertices,
    and with none contracted yet while it estimates every vertex's importance first), and asks it to stop
    (returns True) once `within_s` seconds have passed; `done[0]`, where given, holds the vertices contracted."""
    start = clock()
    last = [start]

    def progress(contracted: int, n: int) -> bool:
        now = clock()
        if done is not None:
            done[0] = contracted
        if now - last[0] >= every_s:
            last[0] = now
            said = f"{contracted:,} of {n:,} vertices contracted" if contracted else \
                f"estimating the importance of its {n:,} vertices"
            print(f"{prefix}: {said} ({now - start:.0f} s)", file=stream, flush=True)
        return within_s is not None and now - start > within_s

    return progress


def build_kept(store: HierarchyStore, graph: CSRGraph, stream: TextIO | None = None,
               clock=time.perf_counter, within_s: float | None = None, limit_is: str = "its time limit"
               ) -> Hierarchy | None:
    """The graph's hierarchy from `store`, built (and kept) where it is not yet, reporting on
    `stream` (stderr by default); None where the graph gets none (the reason reported and kept) or
    where a build passes `within_s` seconds (stopped and reported, `limit_is` naming the limit;
    nothing kept, so that a later build without a limit starts afresh)."""
    out = sys.stderr if stream is None else stream
    start = clock()
    done = [0]
    progress = timed_progress(f"autotune: {graph.name}: contraction hierarchy", out, clock, within_s=within_s,
                              done=done)

    if not store.kept(graph):
        print(f"autotune: {graph.name}: building its contraction hierarchy ({graph.n_vertices:,} vertices; kept "
              "for later runs; --no-hierarchy skips it)", file=out, flush=True)
    try:
        found = store.hierarchy(graph, progress)
    except Unsuited as why:
        print(f"autotune: {graph.name}: no contraction hierarchy: {why} ({clock() - start:.1f} s)", file=out,
              flush=True)
        return None
    except Stopped:
        print(f"autotune: {graph.name}: contraction hierarchy stopped after {clock() - start:.0f} s, {limit_is} "
              f"({done[0]:,} of {graph.n_vertices:,} vertices contracted; `autotune graph hierarchy {graph.name}` "
              "builds and keeps it without a limit)", file=out, flush=True)
        return None
    if store.built:
        print(f"autotune: {graph.name}: contraction hierarchy of {found.levels} levels built in "
              f"{clock() - start:.1f} s", file=out, flush=True)
    return found
