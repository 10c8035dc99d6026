"""Contraction of a graph into a hierarchy (Geisberger, Sanders, Schultes and Delling, "Contraction
hierarchies", WEA 2008), in the form PHAST sweeps (Delling, Goldberg, Nowatzyk and Werneck, IPDPS
2011): vertices are contracted least important first, each contraction adding the shortcuts that
keep the remaining graph's distances, and every vertex gets a rank (its contraction order) and a
level (one more than the highest level of the neighbours contracted before it), so that no arc
joins two vertices of one level.

A vertex's importance: its edge difference (shortcuts its contraction needs minus its arcs), plus its
contracted neighbours, plus `level_weight` x its level (PHAST's term for fewer levels), updated lazily
(computed again when it comes first, put back where it then passes the next key by more than
`LAZY_SLACK` x `level_weight`; its level's term raised as its level rises). Witness searches settle at
most `settle` vertices: a search cut short adds a shortcut that may not be needed, never misses one, so
the distances stay exact. A target is witnessed as soon as a tentative distance to it is within its via,
and on a symmetric graph one search decides a pair of neighbours both ways (`witness`, `is_symmetric`).

`contract` runs the compiled contraction (`contract.cpp`, built once per machine: `compiled`; a large
graph's in rounds on every core: `rounds`), and where no C++ compiler is found, with a warning,
`contract_python`, the same procedure in plain Python (usa-roads 27.3 s against 1.8 at f9ac53c:
docs/notes/phast.md); the tests hold the two to the same hierarchy on rome99. `Unsuited` is raised where
the graph is no candidate (large degrees: the contraction would densify it), or where the contraction
densifies it: the shortcuts grow past `max_growth` x its arcs, its uncontracted part past `MAX_CORE` x
them, its witness searches scan more arcs than `work_limits` allows (the first estimates' cost foreseen
from a sample's, so that such a graph is refused in seconds), or a vertex to contract has more than
`MAX_PAIRS` pairs of in- and out-arcs with more than `DENSE_CORE` vertices (or a 64th of the graph) left
(fewer are contracted at once as a dense core, compiled only: `core.hpp`).

Example:
    >>> import numpy as np
    >>> from autotune.graphs import build_csr
    >>> path = build_csr("path", 3, np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]), np.array([5, 5, 7, 7]))
    >>> rank, level, tails, heads, weights = contract(path)
    >>> int(level[1]) > max(int(level[0]), int(level[2])) or int(level[1]) < min(int(level[0]), int(level[2]))
    True
"""
from __future__ import annotations

import heapq
import os
from pathlib import Path
from typing import Callable

import numpy as np

from autotune.graphs.csr import CSRGraph
from autotune.hierarchy.locality import locality_order
from autotune.hierarchy.rounds import rounds_for

SETTLE = 200  # witness searches' bound (run V: 119 levels on usa-roads, against 382 at 60)
LEVEL_WEIGHT = 4.0
LAZY_SLACK = 0.5  # a vertex computed again is taken where it passes the next key by at most this x LEVEL_WEIGHT
MAX_DEGREE = 64  # a vertex of more arcs is a hub whose contraction densifies the graph
MAX_GROWTH = 4.0  # arcs with shortcuts, at most this many times the graph's arcs
MAX_PAIRS = 16_384  # in- x out-arcs of a vertex to contract, at most (usa-roads reaches 3,700)
DENSE_CORE = 5792  # vertices left (and a 64th) when one passes MAX_PAIRS, contracted dense: 2 x 8 c^2 <= 512 MiB
# The uncontracted part's arcs, at most this many times the graph's: a road network's only fall as
# it contracts, a sparse random graph's grow (random98k-d2 refused with 26,572 of its 98,304 vertices
# left, 12.8 s by `graph hierarchy` on this VM, 35.1 s with the 4x bound on all arcs alone: docs/notes/phast.md).
MAX_CORE = 1.25
# The witness searches' cost, arcs scanned: at most MAX_WORK per arc of the graph in all (plus
# WORK_FLOOR), and while more than a fifth of the vertices are left, at most EARLY_WORK per arc after
# the first estimates of every vertex. Measured (docs/notes/phast.md): to the end, the PACE road networks
# scan 101-172 per arc, usa-roads 721 (most in its last 5%), grids of 2^18 and 2^20 vertices 559 and 641,
# a 2D mesh 337, a geometric graph 446; with a fifth left, at most 200 after the first estimates. A 3D
# mesh of 54^3 vertices passes 300 of those with 60% of its vertices left, random98k-d2 with 40%.
MAX_WORK = 1000
EARLY_WORK = 300
# The first estimates' cost too, at most FIRST_WORK per arc (plus WORK_FLOOR), foreseen from those of
# SAMPLE vertices spread over the ids, made first: a graph whose estimates alone would take minutes is
# refused in seconds. Measured (docs/notes/phast.md): usa-roads 19 per arc, a grid 36, delaunay_n16 94,
# rgg_n_2_15_s0 157, a 30^3 mesh 214; random graphs of 65,536 vertices and mean degree 4, 8, 16: 428,
# 1,584, 3,200 (the last refused after 127 s of estimates before).
FIRST_WORK = 300
SAMPLE = 1024
WORK_FLOOR = 1 << 26
PROGRESS_EVERY = 256  # contractions between two calls of a build's `progress`


class Unsuited(Exception):
    """The graph gets no hierarchy (the reason is the message)."""


class Stopped(Exception):
    """The contraction stopped because its caller's `progress` asked it to (no verdict on the graph)."""


def adjacency(graph: CSRGraph) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
    """Out- and in-arcs as dicts of dicts (the lightest of parallel arcs), self-loops dropped."""
    out: list[dict[int, int]] = [dict() for _ in range(graph.n_vertices)]
    into: list[dict[int, int]] = [dict() for _ in range(graph.n_vertices)]
    for u, v, w in zip(graph.tails.tolist(), graph.columns.tolist(), graph.weights.tolist()):
        if u != v and w < out[u].get(v, float("inf")):
            out[u][v] = w
            into[v][u] = w
    return out, into


def witness(out: list[dict[int, int]], source: int, skip: int, via: dict[int, int], settle: int,
            work: list[int] | None = None) -> set[int]:
    """The targets (keys of `via`) that a path from `source` avoiding `skip` reaches at most as
    long as their via (a witness: no shortcut needed). A target is witnessed as soon as a
    tentative distance to it is within its via; the search settles at most `settle` vertices, in
    (distance, vertex) order, and stops once every target is witnessed or lies beyond its via.
    `work[0]` counts the arcs it scans."""
    dist, heap, settled = {source: 0}, [(0, source)], 0
    found: set[int] = set()
    bound = max(via.values())  # the largest via of a target not witnessed yet
    pop, push, known = heapq.heappop, heapq.heappush, dist.get  # (locals: the hot loop)
    while heap and settled < settle and len(found) < len(via):
        d, u = pop(heap)
        if d > dist[u]:
            continue
        if d > bound:
            break
        settled += 1
        if work is not None:
            work[0] += len(out[u])
        for v, w in out[u].items():
            dw = d + w
            if dw <= bound and v != skip and dw < known(v, bound + 1):
                dist[v] = dw
                if v in via and v not in found and dw <= via[v]:
                    found.add(v)
                    if len(found) == len(via):
                        return found
                    bound = max((x for t, x in via.items() if t not in found), default=0)
                push(heap, (dw, v))
    return found


def shortcuts_of(out: list[dict[int, int]], into: list[dict[int, int]], v: int, settle: int,
                 symmetric: bool = False, work: list[int] | None = None) -> list[tuple[int, int, int]]:
    """The shortcuts contracting `v` needs: (u, w, weight) for each in-arc u->v and out-arc v->w
    with no witness path u ~> w avoiding v at most as long. On a `symmetric` graph (`is_symmetric`)
    one search decides each pair both ways: from u, the targets w > u only. `work` as `witness`'s."""
    needed = []
    outs = out[v]
    for u, wu in into[v].items():
        targets = {w: wu + ww for w, ww in outs.items() if w != u and not (symmetric and w < u)}
        if not targets:
            continue
        found = witness(out, u, v, targets, settle, work)
        for w, via in targets.items():
            if w not in found:
                needed.append((u, w, via))
                if symmetric:
                    needed.append((w, u, via))
    return needed


def is_symmetric(out: list[dict[int, int]]) -> bool:
    """Whether every arc's reverse is there with its weight (a road network): the graph then stays
    symmetric as it contracts, a shortcut u->w being needed exactly when w->u is."""
    return all(out[v].get(u) == w for u, arcs in enumerate(out) for v, w in arcs.items())


def check_suited(graph: CSRGraph, max_degree: int = MAX_DEGREE) -> None:
    """Refuse a graph whose largest degree exceeds `max_degree` (web, social and R-MAT graphs).

    Raises:
        Unsuited: naming the degree.
    """
    if graph.n_edges and graph.max_degree > max_degree:
        raise Unsuited(f"a vertex of {graph.max_degree} arcs (a hierarchy is built for degrees up to {max_degree})")


def build_directory() -> Path:
    """Where the compiled contraction is kept: `build` in the cache directory (`kept_dir_from_env`)."""
    from autotune.graphs.cache import kept_dir_from_env

    return kept_dir_from_env(os.environ, "build")


def contract(graph: CSRGraph, settle: int = SETTLE, level_weight: float = LEVEL_WEIGHT,
             max_growth: float = MAX_GROWTH, progress: Callable[[int, int], bool | None] | None = None,
             directory: Path | None = None, locality: bool = True, rounds: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The hierarchy, as `contract_python` gives it, by the compiled contraction (built into
    `directory`, default `build_directory()`), or by `contract_python` where it cannot be built;
    with `locality`, of the graph renumbered in `locality_order` where it has one (the result in
    the graph's own ids); in rounds on `rounds` threads where that is more than 0 (default
    `rounds_for(graph)`).

    Raises:
        Unsuited: as `contract_python`.
        Stopped: `progress` returned true.
    """
    from autotune.files import note
    from autotune.hierarchy.compiled import (CORE, DENSIFIED, FORESEEN, GREW, STOPPED, WORK, CompilerMissing,
                                             contract_compiled)

    check_suited(graph)
    n = graph.n_vertices
    order = locality_order(graph) if locality else None
    tails, heads = graph.tails, graph.columns
    if order is not None:
        new_of = np.empty(n, np.int64)
        new_of[order] = np.arange(n)
        tails, heads = new_of[tails], new_of[heads]
    try:
        status, found = contract_compiled(
            n, tails, heads, graph.weights, settle, level_weight, LAZY_SLACK, max_growth, MAX_CORE, work_limits(graph),
            SAMPLE, MAX_PAIRS, directory or build_directory(), progress, PROGRESS_EVERY,
            rounds_for(graph) if rounds is None else rounds, DENSE_CORE, order)
    except CompilerMissing as why:
        note(f"{why}; contracting {graph.name} in Python instead (slow)")
        if order is None:
            return contract_python(graph, settle, level_weight, max_growth, progress)
        from autotune.graphs.build import build_csr

        rank, level, arc_tails, arc_heads, weights = contract_python(
            build_csr(graph.name, n, tails, heads, graph.weights), settle, level_weight, max_growth, progress)
        status, found = 0, (rank, level, order[arc_tails], order[arc_heads], weights)
    if status == DENSIFIED:
        into, out, left = found
        raise Unsuited(f"the contraction densified it (a vertex of {into} in- and {out} out-arcs "
                       f"with {left} of {n} vertices left)")
    if status == GREW:
        _, left = found[:2]
        raise Unsuited(f"its shortcuts grew past {max_growth:g} x its {graph.n_edges} arcs "
                       f"with {left} of {n} vertices left")
    if status == CORE:
        live, left = found[:2]
        raise Unsuited(core_refusal(live, left, n))
    if status == WORK:
        work, left, later = found
        raise Unsuited(work_refusal(graph, work, later, left))
    if status == STOPPED:
        raise Stopped("stopped on request")
    if status == FORESEEN:
        foreseen, sampled, _ = found
        raise Unsuited(foreseen_refusal(graph, foreseen, sampled))
    if status != 0:
        raise RuntimeError(f"the compiled contraction stopped with status {status}")
    rank, level, tails, heads, weights = found  # type: ignore[misc]  # the arcs in the graph's ids (`old_ids`)
    if order is not None:
        rank, level = rank[new_of], level[new_of]
    return rank, level, tails, heads, weights


def core_refusal(live: int, left: int, n: int) -> str:
    """Why a graph whose uncontracted part outgrew `MAX_CORE` x its arcs gets no hierarchy."""
    return (f"the contraction densified it (its {left} of {n} vertices left held {live} arcs, more than "
            f"{MAX_CORE:g} x the graph's)")


def work_limits(graph: CSRGraph) -> tuple[int, int, int]:
    """The arcs the contraction's witness searches may scan: in all, after the first estimates
    while more than a fifth of the vertices are left, and in the first estimates (`MAX_WORK`,
    `EARLY_WORK`, `FIRST_WORK`, `WORK_FLOOR`)."""
    return tuple(limit * graph.n_edges + WORK_FLOOR for limit in (MAX_WORK, EARLY_WORK, FIRST_WORK))


def sample_of(n: int) -> list[int]:
    """The vertices whose first estimates come first, to foresee the others' cost: `SAMPLE` (at
    most n) spread evenly over the ids."""
    sampled = min(max(SAMPLE, 1), n)
    return [i * n // sampled for i in range(sampled)]


def foreseen_refusal(graph: CSRGraph, foreseen: int, sampled: int) -> str:
    """Why a graph whose first estimates would pass `work_limits` gets no hierarchy."""
    return (f"the contraction would densify it (its first estimates alone would scan about "
            f"{foreseen / max(graph.n_edges, 1):,.0f} arcs per arc of the graph, more than {FIRST_WORK:,}, foreseen "
            f"from {sampled:,} vertices)")


def overworked(work: int, later: int, left: int, n: int, limits: tuple[int, ...]) -> bool:
    """Whether `work` arcs scanned, `later` of them after the first estimates, with `left` of `n`
    vertices left, pass `limits` (`work_limits`)."""
    return work > limits[0] or (5 * left > n and later > limits[1])


def work_refusal(graph: CSRGraph, work: int, later: int, left: int) -> str:
    """Why a graph whose contraction passed `work_limits` gets no hierarchy."""
    if work > work_limits(graph)[0]:
        passed = f"{work:,} arcs, more than {MAX_WORK:,} per arc of the graph"
    else:
        passed = f"{later:,} arcs since the first estimates, more than {EARLY_WORK:,} per arc of the graph"
    return (f"the contraction densified it (its witness searches scanned {passed}, with {left:,} of "
            f"{graph.n_vertices:,} vertices left)")


def contract_python(graph: CSRGraph, settle: int = SETTLE, level_weight: float = LEVEL_WEIGHT,
                    max_growth: float = MAX_GROWTH, progress: Callable[[int, int], bool | None] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The hierarchy: every vertex's rank and level, and the arcs of the graph with its shortcuts
    (tails, heads, weights, int64). `progress(contracted, n)` is called every `PROGRESS_EVERY` vertices
    contracted, and with 0 every `PROGRESS_EVERY` first estimates; where it returns true, the
    contraction stops (`Stopped`).

    Raises:
        Unsuited: a hub (`check_suited`), more than `max_growth` x the graph's arcs, an uncontracted
            part of more than `MAX_CORE` x them, or a vertex of more than `MAX_PAIRS` pairs of in- and
            out-arcs, or more arcs scanned than `work_limits` allows (the first estimates' cost foreseen
            from `sample_of`'s).
        Stopped: `progress` returned true.
    """
    check_suited(graph)
    out, into = adjacency(graph)
    symmetric = is_symmetric(out)
    n = graph.n_vertices
    deleted = [0] * n
    level = [0] * n
    rank = [-1] * n
    limit = max_growth * max(graph.n_edges, 1)
    order = 0  # vertices contracted
    work, limits = [0], work_limits(graph)

    def priority(v: int) -> tuple[float, list[tuple[int, int, int]]]:
        """v's importance now, and the shortcuts its contraction now needs (reused if it is next)."""
        if len(out[v]) * len(into[v]) > MAX_PAIRS:
            raise Unsuited(f"the contraction densified it (a vertex of {len(into[v])} in- and {len(out[v])} out-arcs "
                           f"with {n - order} of {n} vertices left)")
        shortcuts = shortcuts_of(out, into, v, settle, symmetric, work)
        return len(shortcuts) - len(out[v]) - len(into[v]) + deleted[v] + level_weight * level[v], shortcuts

    # (key, vertex, version): a key is the importance when last computed, raised with the level
    # (`raise_level`); only a vertex's current version counts (contract.cpp says why). The first
    # estimates of `sample_of` come first: their cost, foreseen for every vertex, may refuse the graph.
    key = [0.0] * n
    sample = sample_of(n)
    for v in sample:
        key[v] = priority(v)[0]
    foreseen = work[0] * n / max(len(sample), 1)
    if foreseen > limits[2]:
        raise Unsuited(foreseen_refusal(graph, int(foreseen), len(sample)))
    in_sample, estimated = set(sample), len(sample)
    for v in range(n):
        if v not in in_sample:
            key[v] = priority(v)[0]
            estimated += 1
            if progress is not None and estimated % PROGRESS_EVERY == 0 and progress(0, n):
                raise Stopped(f"stopped while estimating its {n} vertices")
    version = [0] * n
    heap = [(key[v], v, 0) for v in range(n)]
    heapq.heapify(heap)

    def current(item: tuple[float, int, int]) -> bool:
        return rank[item[1]] < 0 and item[2] == version[item[1]]

    def raise_level(x: int, to: int) -> None:
        if to > level[x]:
            key[x] += level_weight * (to - level[x])
            level[x] = to
            version[x] += 1
            heapq.heappush(heap, (key[x], x, version[x]))

    first = work[0]  # the first estimates' cost
    if overworked(work[0], 0, n, n, limits):
        raise Unsuited(work_refusal(graph, work[0], 0, n))
    arcs = {(u, v): w for u in range(n) for v, w in out[u].items()}
    live = len(arcs)  # the uncontracted part's arcs
    core_limit = MAX_CORE * max(live, 1)
    while heap:
        top = heapq.heappop(heap)
        if not current(top):
            continue
        v = top[1]
        now, needed = priority(v)
        key[v] = now
        while heap and not current(heap[0]):
            heapq.heappop(heap)
        if heap and now > heap[0][0] + LAZY_SLACK * level_weight:  # lazy update
            version[v] += 1
            heapq.heappush(heap, (now, v, version[v]))
            continue
        for u, w, weight in needed:
            if weight < out[u].get(w, float("inf")):
                live += w not in out[u]
                out[u][w] = weight
                into[w][u] = weight
                if weight < arcs.get((u, w), float("inf")):
                    arcs[(u, w)] = weight
        if len(arcs) > limit:
            raise Unsuited(f"its shortcuts grew past {max_growth:g} x its {graph.n_edges} arcs "
                           f"with {n - order} of {n} vertices left")
        rank[v] = order
        order += 1
        if progress is not None and order % PROGRESS_EVERY == 0 and progress(order, n):
            raise Stopped(f"stopped with {order} of {n} vertices contracted")
        for u in list(into[v]):
            del out[u][v]
            deleted[u] += 1
            raise_level(u, level[v] + 1)
        for w in list(out[v]):
            del into[w][v]
            deleted[w] += 1
            raise_level(w, level[v] + 1)
        live -= len(out[v]) + len(into[v])
        if live > core_limit:
            raise Unsuited(core_refusal(live, n - order, n))
        if overworked(work[0], work[0] - first, n - order, n, limits):
            raise Unsuited(work_refusal(graph, work[0], work[0] - first, n - order))
        out[v].clear()
        into[v].clear()
    tails = np.fromiter((u for u, _ in arcs), np.int64, len(arcs))
    heads = np.fromiter((v for _, v in arcs), np.int64, len(arcs))
    weights = np.fromiter(arcs.values(), np.int64, len(arcs))
    return np.array(rank, np.int64), np.array(level, np.int64), tails, heads, weights
