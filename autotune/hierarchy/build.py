"""A hierarchy built for a command, as a user watches it: a line when it starts, progress by time
(never a silent minute), and a line with its build time or why the graph gets none; where the
command gives the build a time limit (a sweep gives it a share of its budget), a line saying it
stopped there, or as soon as the pace of its first estimates foresaw it past the limit, and how to
build it without one; a later command whose limit is no longer gets that line at once, no build."""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO

from autotune.graphs.csr import CSRGraph
from autotune.hierarchy.contraction import PROGRESS_EVERY, Stopped, Unsuited
from autotune.hierarchy.layout import Hierarchy
from autotune.hierarchy.store import HierarchyStore
from autotune.resources import usable_cores

EVERY_S = 10.0  # progress at most this often
# A whole build takes at least this many times its first estimates of every vertex's importance (start-up
# included): usa-roads 13.7, road-NY 8.2, road-FLA 8.1, road-NE 6.8, grid18 8.5, mesh-4elt 3.2, power-uswest
# 2.8, delaunay_n15 2.3 (this VM at d3bc23d: docs/notes/phast.md). A build under a time limit stops as soon
# as the estimates' pace foresees it past the limit (grid24's estimates alone took 65 s of its 82-s share).
BUILD_OVER_ESTIMATES = 2.0
# A build beside a sweep leaves its measurements this many cores: the host loops that launch their kernels and
# check their distances wait on none of the contraction's threads.
CORES_LEFT = 2
FORESEEN_FROM = 0.05  # the share of the estimates made before their pace foresees the build


def timed_progress(prefix: str, stream: TextIO, clock=time.perf_counter, every_s: float = EVERY_S,
                   within_s: float | None = None, done: list[int] | None = None,
                   foreseen: list[float] | None = None) -> Callable[[int, int], bool]:
    """A contraction's `progress(contracted, n)` that prints `prefix: X of N vertices contracted (T s)` to
    `stream` at most every `every_s` seconds (the contraction calls it every `contraction.PROGRESS_EVERY` vertices,
    and with none contracted yet every as many first estimates of their importance), and asks it to stop (returns
    True) once `within_s` seconds have passed, or once the estimates' pace foresees their end past `within_s` /
    `BUILD_OVER_ESTIMATES` (that end is appended to `foreseen`, where given); `done[0]`, where given, holds the
    vertices contracted."""
    start = clock()
    last = [start]
    estimating: list[float] = []  # when each call during the estimates came

    def progress(contracted: int, n: int) -> bool:
        now = clock()
        if done is not None:
            done[0] = contracted
        if now - last[0] >= every_s:
            last[0] = now
            said = f"{contracted:,} of {n:,} vertices contracted" if contracted else \
                f"estimating the importance of its {n:,} vertices"
            print(f"{prefix}: {said} ({now - start:.0f} s)", file=stream, flush=True)
        if within_s is None:
            return False
        if not contracted:
            estimating.append(now)
            made = len(estimating) * PROGRESS_EVERY
            if made >= FORESEEN_FROM * n and now > estimating[0]:
                pace = (len(estimating) - 1) * PROGRESS_EVERY / (now - estimating[0])
                end = now - start + max(0, n - made) / pace
                if BUILD_OVER_ESTIMATES * end > within_s:
                    if foreseen is not None:
                        foreseen.append(end)
                    return True
        return now - start > within_s

    return progress


class _Stderr:
    """`sys.stderr` as it is at each write: a build beside a sweep begins before the sweep's progress
    bar, which replaces it while it draws, and may outlive it."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def build_kept(store: HierarchyStore, graph: CSRGraph, stream: TextIO | None = None,
               clock=time.perf_counter, within_s: float | None = None, limit_is: str = "its time limit",
               beside: threading.Event | None = None) -> Hierarchy | None:
    """The graph's hierarchy from `store`, built (and kept) where it is not yet, reporting on
    `stream` (stderr by default); None where the graph gets none (the reason reported and kept) or
    where a build passes `within_s` seconds (stopped and reported, `limit_is` naming the limit; only
    that limit kept, so that a later build under no longer one is not tried again, and one without
    a limit starts afresh). With `beside`, the build runs beside a sweep's measurements: on every
    core but `CORES_LEFT`, and stopped, nothing kept, once the event is set (the sweep ended)."""
    out = _Stderr() if stream is None else stream
    start = clock()
    done, foreseen = [0], []
    timed = timed_progress(f"autotune: {graph.name}: contraction hierarchy", out, clock, within_s=within_s,
                           done=done, foreseen=foreseen)
    progress = timed if beside is None else lambda contracted, n: timed(contracted, n) or beside.is_set()
    cores = None if beside is None else max(1, usable_cores() - CORES_LEFT)

    earlier = store.stopped_within(graph)
    if within_s is not None and earlier is not None and within_s <= earlier and not store.kept(graph):
        print(f"autotune: {graph.name}: contraction hierarchy not built: an earlier build stopped at its limit of "
              f"{earlier:.0f} s, and this one's is {within_s:.0f} s (`autotune graph hierarchy {graph.name}` builds "
              "and keeps it without a limit)", file=out, flush=True)
        return None
    if not store.kept(graph):
        print(f"autotune: {graph.name}: building its contraction hierarchy ({graph.n_vertices:,} vertices; kept "
              "for later runs; --no-hierarchy skips it)", file=out, flush=True)
    try:
        found = store.hierarchy(graph, progress, cores)
    except Unsuited as why:
        print(f"autotune: {graph.name}: no contraction hierarchy: {why} ({clock() - start:.1f} s)", file=out,
              flush=True)
        return None
    except Stopped:
        if beside is not None and beside.is_set():
            print(f"autotune: {graph.name}: contraction hierarchy stopped after {clock() - start:.0f} s: the sweep "
                  f"ended first ({done[0]:,} of {graph.n_vertices:,} vertices contracted)", file=out, flush=True)
            return None
        if within_s is not None:
            store.note_stopped(graph, within_s)
        where = f"its importance estimates would end at {foreseen[0]:.0f} s and a build takes at least " \
            f"{BUILD_OVER_ESTIMATES:g} times as long" if foreseen else \
            f"{done[0]:,} of {graph.n_vertices:,} vertices contracted"
        print(f"autotune: {graph.name}: contraction hierarchy stopped after {clock() - start:.0f} s, "
              f"{'foreseen past ' if foreseen else ''}{limit_is} ({where}; `autotune graph hierarchy {graph.name}` "
              "builds and keeps it without a limit)", file=out, flush=True)
        return None
    if store.built:
        print(f"autotune: {graph.name}: contraction hierarchy of {found.levels} levels built in "
              f"{clock() - start:.1f} s", file=out, flush=True)
    return found
