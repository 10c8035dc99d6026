"""A contraction hierarchy as the GPU sweeps it (`kernels/phast.cu`), and the same sweeps on the
CPU (the algorithm's reference).

The vertices are renumbered by descending level, so that a level is a range of new ids: level
index i (counted from the top) holds new ids `level_start[i]` to `level_start[i + 1]`. Each vertex
keeps its upward out-arcs (to higher ranks: `up_offsets`, `up_heads`, `up_weights`) and its
downward in-arcs (from higher ranks: `down_offsets`, `down_tails`, `down_weights`), by new ids.

One query, PHAST's way as level sweeps: upward, from the source's level to the top, every reached
vertex of a level relaxes its upward arcs; downward, from the top level to the bottom, every
vertex takes the least of its distance and its in-arcs' (whose tails, higher, are final). The
vertices of a level share no arc, so each level is one parallel step.

Example:
    >>> import numpy as np
    >>> from autotune.graphs import build_csr
    >>> from autotune.hierarchy.contraction import contract
    >>> g = build_csr("g", 4, np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]), np.array([1, 2, 3, 9]))
    >>> h = Hierarchy.from_contraction(*contract(g))
    >>> level_sweeps(h, 0)[0].tolist()
    [0, 1, 3, 6]
"""
from __future__ import annotations

import io
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

INF = 0x7FFFFFFF  # an unreachable vertex, as the kernels write it


@dataclass(frozen=True)
class Hierarchy:
    """The arrays of the module docstring; `new_of` (old id -> new id) and `old_of` its inverse."""

    new_of: np.ndarray
    old_of: np.ndarray
    level_start: np.ndarray
    up_offsets: np.ndarray
    up_heads: np.ndarray
    up_weights: np.ndarray
    down_offsets: np.ndarray
    down_tails: np.ndarray
    down_weights: np.ndarray

    @property
    def n_vertices(self) -> int:
        return len(self.new_of)

    @property
    def levels(self) -> int:
        return len(self.level_start) - 1

    @property
    def n_arcs(self) -> int:
        """Arcs with shortcuts (upward and downward)."""
        return len(self.up_heads) + len(self.down_tails)

    def level_sizes(self) -> np.ndarray:
        return np.diff(self.level_start)

    def level_of(self) -> np.ndarray:
        """Each new id's level index (counted from the top)."""
        return np.repeat(np.arange(self.levels, dtype=np.int32), self.level_sizes())

    @classmethod
    def from_contraction(cls, rank: np.ndarray, level: np.ndarray, tails: np.ndarray, heads: np.ndarray,
                         weights: np.ndarray, threads: int = 1) -> Hierarchy:
        """The layout of `contract`'s result (ranks, levels and the arcs with shortcuts): compiled
        (`layout.hpp`, linear: grid22's 43M arcs in 12.9 s of numpy on this VM; on `threads` threads),
        else `laid_out`'s numpy."""
        from autotune.hierarchy.compiled import CompilerMissing, layout_compiled
        from autotune.hierarchy.contraction import build_directory

        try:
            arrays = layout_compiled(rank, level, tails, heads, weights, build_directory(), threads)
        except CompilerMissing:
            arrays = None
        return cls(*arrays) if arrays is not None else cls.laid_out(rank, level, tails, heads, weights)

    @classmethod
    def laid_out(cls, rank: np.ndarray, level: np.ndarray, tails: np.ndarray, heads: np.ndarray,
                 weights: np.ndarray) -> Hierarchy:
        """`from_contraction`'s layout by numpy's sorts."""
        n = len(rank)
        old_of = np.lexsort((-rank, -level)) if n else np.zeros(0, np.int64)  # the top level first
        new_of = np.empty(n, np.int64)
        new_of[old_of] = np.arange(n)
        levels = int(level.max()) + 1 if n else 0
        counts = np.bincount(levels - 1 - level, minlength=levels) if n else np.zeros(0, np.int64)
        level_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        t, h = new_of[tails], new_of[heads]
        upward = rank[heads] > rank[tails]

        def csr(keys, values, w):
            order = np.argsort(keys, kind="stable")
            offsets = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))]).astype(np.int64)
            return offsets, values[order].astype(np.int32), w[order].astype(np.int64)  # a shortcut may pass 2^31

        down = csr(h[~upward], t[~upward], weights[~upward])
        up = csr(t[upward], h[upward], weights[upward])
        return cls(new_of, old_of, level_start, *up, *down)

    def to_bytes(self) -> bytes:
        """An uncompressed .npz of the arrays (`np.load` reads it, as the compressed ones kept before):
        grid22's hierarchy written in 0.7 s and read back in 2.9 s, where zlib's fastest level took
        13.3 and 6.5 s for a file of 252 MB against 655 (this VM, 2026-11-30)."""
        import zipfile

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for f in fields(self):
                with archive.open(f"{f.name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(getattr(self, f.name)), allow_pickle=False)
        return buffer.getvalue()

    @classmethod
    def from_file(cls, path, n_vertices: int | None = None) -> Hierarchy:
        """Read `to_bytes`'s file, checked (`check`) before anything uses it.

        Raises:
            OSError: unreadable.
            ValueError: not a whole hierarchy (of `n_vertices` when given), saying why.
        """
        data = Path(path).read_bytes()  # unreadable: OSError
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                found = cls(**{f.name: np.asarray(arrays[f.name]) for f in fields(cls)})
        except Exception as error:  # a torn or foreign file: BadZipFile, a bad offset, a missing array
            raise ValueError(f"not a hierarchy file ({type(error).__name__}: {error})") from None
        found.check(n_vertices)
        return found

    def check(self, n_vertices: int | None = None) -> None:
        """That the arrays are one hierarchy of `n_vertices` (when given): the renumbering a
        permutation, the levels a partition of the new ids, every arc list a CSR whose ends are
        vertices of higher levels, and every weight non-negative.

        Raises:
            ValueError: the first thing that is not so.
        """
        n = len(self.new_of)
        ints = [f.name for f in fields(self) if getattr(self, f.name).dtype.kind not in "iu"
                or getattr(self, f.name).ndim != 1]
        if ints:
            raise ValueError(f"arrays that are not of integers, one axis: {', '.join(ints)}")
        if n_vertices is not None and n != n_vertices:
            raise ValueError(f"a hierarchy of {n} vertices, not of the graph's {n_vertices}")
        order = np.arange(n)
        if len(self.old_of) != n or not np.array_equal(np.sort(self.new_of), order) \
                or not np.array_equal(self.new_of[self.old_of] if n else order, order):
            raise ValueError("new_of and old_of are not a permutation and its inverse")
        start = self.level_start
        if len(start) < 1 or start[0] != 0 or start[-1] != n or np.any(np.diff(start) <= 0):
            raise ValueError("level_start does not split the vertices into levels")
        level = np.repeat(np.arange(len(start) - 1), np.diff(start))
        for name, offsets, ends, weights in (("up", self.up_offsets, self.up_heads, self.up_weights),
                                             ("down", self.down_offsets, self.down_tails, self.down_weights)):
            if len(offsets) != n + 1 or offsets[0] != 0 or offsets[-1] != len(ends) or np.any(np.diff(offsets) < 0) \
                    or len(weights) != len(ends):
                raise ValueError(f"the {name} arcs are not a CSR of the vertices")
            if len(ends) and (ends.min() < 0 or ends.max() >= n or weights.min() < 0):
                raise ValueError(f"the {name} arcs hold a vertex out of range or a negative weight")
            owner = np.repeat(order, np.diff(offsets))
            if len(ends) and np.any(level[ends] >= level[owner]):
                raise ValueError(f"a {name} arc that does not lead to a higher level")


def source_level(h: Hierarchy, new_id: int) -> int:
    """The level index of a vertex by its new id."""
    return int(np.searchsorted(h.level_start, new_id, side="right")) - 1


def level_sweeps(h: Hierarchy, source: int, unreachable: int = INF) -> tuple[np.ndarray, int]:
    """One query as the GPU sweeps it, on the CPU: (the distances by the graph's ids, int64 with
    `unreachable` for unreachable, exact past 32 bits; the steps, one a level upward from the
    source's and one a level down)."""
    start, n = h.level_start, h.n_vertices
    far = np.iinfo(np.int64).max // 4
    dist = np.full(n, far, np.int64)
    s = int(h.new_of[source])
    dist[s] = 0
    first = source_level(h, s)
    for i in range(first, -1, -1):
        vs = np.arange(start[i], start[i + 1])
        vs = vs[dist[vs] < far]
        for v in vs.tolist():
            lo, hi = h.up_offsets[v], h.up_offsets[v + 1]
            np.minimum.at(dist, h.up_heads[lo:hi], dist[v] + h.up_weights[lo:hi])
    for i in range(h.levels):
        lo, hi = h.down_offsets[start[i]], h.down_offsets[start[i + 1]]
        if hi > lo:
            owners = np.repeat(np.arange(start[i], start[i + 1]), np.diff(h.down_offsets[start[i]:start[i + 1] + 1]))
            np.minimum.at(dist, owners, dist[h.down_tails[lo:hi]] + h.down_weights[lo:hi])
    by_old = dist[h.new_of]
    return np.where(by_old >= far, unreachable, by_old), first + 1 + h.levels
