"""Seeded graph generators: R-MAT (Graph500 probabilities), the thesis's random graphs (3.3.2), GAP's
uniform random graphs and road-like square grids.

Every random number comes from `_rng` (raw PCG64 words and integer arithmetic), so a spec, seed and
weight range give the same graph bit for bit on any machine. Change `GENERATOR_VERSION` whenever a
change here changes any generated graph: it is part of the cache key.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from autotune.errors import InputError
from autotune.graphs import _rng
from autotune.graphs.build import _symmetric_weights, csr_from_sorted_keys, draw_weights, unique_sorted
from autotune.graphs.csr import CSRGraph
from autotune.graphs.options import INT32_MAX, GraphOptions

GENERATOR_VERSION = 1

RMAT_PROBABILITIES = ("0.57", "0.19", "0.19", "0.05")  # Graph500's (a, b, c, d)
RMAT_DEFAULT_EDGE_FACTOR = 32
RMAT_MAX_SCALE = 30
URAND_DEFAULT_DEGREE = 16  # GAP's urand: 16 edges a vertex

_RMAT_CHUNK_EDGES = 1 << 18
_RANDOM_CHUNK_ARCS = 1 << 22


def _rmat_thresholds() -> tuple[np.uint32, np.uint32, np.uint32]:
    """32-bit thresholds of a, a+b and a+b+c: a word below the first picks quadrant a, etc."""
    a, b, c, _ = (Fraction(p) for p in RMAT_PROBABILITIES)
    return tuple(np.uint32(round(p * 2**32)) for p in (a, a + b, a + b + c))  # type: ignore


def _pack_levels(bits: np.ndarray) -> np.ndarray:
    """Rows of 0/1 levels (first level = most significant bit) -> int64 ids."""
    count, scale = bits.shape
    packed = np.zeros((count, 4), dtype=np.uint8)
    packed[:, : (scale + 7) // 8] = np.packbits(bits, axis=1)
    return (packed.view(">u4").ravel() >> np.uint32(32 - scale)).astype(np.int64)


def _rmat_chunk(words: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Source and target ids of R-MAT edges, one per row of `words` (ceil(scale/2) words each).

    Level `l` (l = 0 picks the most significant id bit) uses the 32-bit number r made of bits
    32*(l%2) .. 32*(l%2)+31 of word `l // 2`; its quadrant q = [r >= a] + [r >= a+b] +
    [r >= a+b+c] gives the source bit (q >> 1) and the target bit (q & 1).
    """
    t_a, t_ab, t_abc = _rmat_thresholds()
    halves = words.astype("<u8", copy=False).view("<u4")[:, :scale]
    quadrant = np.add(halves >= t_a, halves >= t_ab, dtype=np.uint8)
    quadrant += halves >= t_abc
    return _pack_levels(quadrant >> 1), _pack_levels(quadrant & 1)


def rmat(scale: int, edge_factor: int = RMAT_DEFAULT_EDGE_FACTOR,
         options: GraphOptions = GraphOptions(), name: str | None = None) -> CSRGraph:
    """An R-MAT graph: 2**scale vertices, edge_factor * 2**scale arcs drawn, ids permuted.

    Arcs are drawn with Graph500's (a, b, c, d) = (0.57, 0.19, 0.19, 0.05), vertex ids are then
    randomly permuted; self-loops are dropped and parallel arcs merged, so the graph has somewhat
    fewer arcs than drawn. Weights are uniform in `options.drawn_weights`. Memory: about 24 bytes
    per drawn arc at the peak (rmat22: ~3.5 GB).

    Args:
        scale: log2 of the vertex count, 1..30.
        edge_factor: arcs drawn per vertex.
        options: seed and weights.
        name: the graph's name (default `rmat<scale>` or `rmat<scale>-d<edge_factor>`).

    Raises:
        InputError: if scale or edge_factor is out of range, or the arcs do not fit int32.

    Example:
        >>> g = rmat(10, 8)
        >>> g.n_vertices, g.n_edges < 8 * 1024
        (1024, True)
    """
    if not 1 <= scale <= RMAT_MAX_SCALE:
        raise InputError(f"rmat{scale}: the scale must be 1..{RMAT_MAX_SCALE}")
    n = 1 << scale
    drawn = edge_factor * n
    if edge_factor < 1 or drawn > INT32_MAX:
        raise InputError(f"rmat{scale}-d{edge_factor}: {drawn} arcs do not fit int32 offsets; "
                         f"need 1 <= D and D * 2^{scale} <= {INT32_MAX}")
    if name is None:
        suffix = "" if edge_factor == RMAT_DEFAULT_EDGE_FACTOR else f"-d{edge_factor}"
        name = f"rmat{scale}{suffix}"
    permutation = _rng.permutation(_rng.stream(options.seed, _rng.Stream.PERMUTATION), n)
    bitgen = _rng.stream(options.seed, _rng.Stream.TOPOLOGY)
    n_words = (scale + 1) // 2
    keys = np.empty(drawn, dtype=np.int64)
    filled = 0
    for start in range(0, drawn, _RMAT_CHUNK_EDGES):
        count = min(_RMAT_CHUNK_EDGES, drawn - start)
        sources, targets = _rmat_chunk(_rng.raw(bitgen, (count, n_words)), scale)
        sources, targets = permutation[sources], permutation[targets]
        keep = sources != targets
        chunk_keys = sources[keep] * n + targets[keep]
        keys[filled:filled + len(chunk_keys)] = chunk_keys
        filled += len(chunk_keys)
    del sources, targets, chunk_keys
    keys = unique_sorted(keys[:filled])
    return csr_from_sorted_keys(name, n, keys, draw_weights(len(keys), options))


def random_graph(n_vertices: int, degree: int, options: GraphOptions = GraphOptions(),
                 name: str | None = None) -> CSRGraph:
    """The thesis's synthetic random graph (3.3.2): every vertex gets `degree` distinct out-edges.

    Vertex v's first edge goes to the next vertex, (v + 1) mod n, which makes the graph strongly
    connected (a cycle through all vertices); its other degree - 1 targets are uniformly random
    distinct vertices other than v and v + 1. So there are no self-loops or parallel arcs and every
    out-degree is exactly `degree`. Weights are uniform in `options.drawn_weights`.

    Args:
        n_vertices: number of vertices, >= 2.
        degree: out-degree of every vertex, 1..n_vertices - 1.
        options: seed and weights.
        name: the graph's name (default `random<n>-d<degree>`).

    Raises:
        InputError: if the sizes are out of range or the arcs do not fit int32.

    Example:
        >>> g = random_graph(100, 5)
        >>> g.n_edges, g.max_degree, g.n_sinks
        (500, 5, 0)
    """
    name = name or f"random{n_vertices}-d{degree}"
    if n_vertices < 2 or not 1 <= degree <= n_vertices - 1:
        raise InputError(f"{name}: need at least 2 vertices and 1 <= D <= vertices - 1 "
                         f"(D distinct targets per vertex)")
    if n_vertices * degree > INT32_MAX:
        raise InputError(f"{name}: {n_vertices * degree} arcs do not fit int32 offsets")
    n = n_vertices
    bitgen = _rng.stream(options.seed, _rng.Stream.TOPOLOGY)
    columns = np.empty(n * degree, dtype=np.int32)
    rows_per_chunk = max(1, _RANDOM_CHUNK_ARCS // degree)
    for start in range(0, n, rows_per_chunk):
        vertices = np.arange(start, min(n, start + rows_per_chunk), dtype=np.int64)
        block = np.empty((len(vertices), degree), dtype=np.int64)
        block[:, 0] = (vertices + 1) % n
        if degree > 1:
            block[:, 1:] = _distinct_targets(bitgen, vertices, degree - 1, n)
        block.sort(axis=1)
        columns[start * degree:(start + len(vertices)) * degree] = block.ravel()
    row_offsets = (np.arange(n + 1, dtype=np.int64) * degree).astype(np.int32)
    return CSRGraph(name, row_offsets, columns, draw_weights(n * degree, options))


def _distinct_targets(bitgen: np.random.PCG64, vertices: np.ndarray, count: int,
                      n: int) -> np.ndarray:
    """Per vertex v, `count` distinct uniform targets from the n - 2 vertices other than v, v+1.

    A draw x in [0, n-2) maps to (v + 2 + x) mod n; duplicates within a row are redrawn (in
    row-major order of the sorted rows) until none remain.
    """
    offsets = vertices[:, None] + 2
    targets = (_rng.below(bitgen, (len(vertices), count), n - 2).astype(np.int64) + offsets) % n
    while True:
        targets.sort(axis=1)
        rows, cols = np.nonzero(targets[:, 1:] == targets[:, :-1])
        if not len(rows):
            return targets
        redrawn = _rng.below(bitgen, len(rows), n - 2).astype(np.int64)
        targets[rows, cols + 1] = (redrawn + offsets[rows, 0]) % n


def urand_name(scale: int, degree: int = URAND_DEFAULT_DEGREE) -> str:
    """A uniform random graph's spec: `urand<S>`, with `-d<D>` where D is not the default."""
    return f"urand{scale}" + ("" if degree == URAND_DEFAULT_DEGREE else f"-d{degree}")


def uniform_random(scale: int, degree: int = URAND_DEFAULT_DEGREE, options: GraphOptions = GraphOptions(),
                   name: str | None = None) -> CSRGraph:
    """GAP's uniform random graph (urand; Beamer, Asanović and Patterson, "The GAP Benchmark Suite",
    2015): 2**scale vertices and degree * 2**scale edges whose two ends are drawn uniformly at
    random, each joined both ways with one weight drawn from `options.drawn_weights` (shared by its
    two arcs); self-loops are dropped and parallel edges merged, so a vertex has about 2 * degree
    arcs (as rmat's default edge factor gives R-MAT's, GAP's kron).

    Raises:
        InputError: a scale outside 1..30, or arcs that do not fit int32.

    Example:
        >>> g = uniform_random(10, 4)
        >>> g.n_vertices, 7000 < g.n_edges <= 2 * 4 * 1024, bool((g.tails != g.columns).all())
        (1024, True, True)
    """
    name = name or urand_name(scale, degree)
    if not 1 <= scale <= 30:
        raise InputError(f"{name}: the scale S of urand<S> must be 1..30 (2**S vertices)")
    n = 1 << scale
    drawn = degree * n
    if degree < 1 or 2 * drawn > INT32_MAX:
        raise InputError(f"{name}: {2 * drawn} arcs do not fit int32 offsets; need 1 <= D and 2 * D * 2^{scale} <= "
                         f"{INT32_MAX}")
    bitgen = _rng.stream(options.seed, _rng.Stream.TOPOLOGY)
    mask, shift = np.uint64(n - 1), np.uint64(32)  # an edge's ends: a word's low bits and its bits from 32 on
    keys = np.empty(2 * drawn, dtype=np.int64)
    filled = 0
    for start in range(0, drawn, _RANDOM_CHUNK_ARCS):
        words = _rng.raw(bitgen, min(_RANDOM_CHUNK_ARCS, drawn - start))
        tails, heads = (words & mask).astype(np.int64), ((words >> shift) & mask).astype(np.int64)
        keep = tails != heads
        tails, heads = tails[keep], heads[keep]
        keys[filled:filled + len(tails)] = tails * n + heads
        keys[filled + len(tails):filled + 2 * len(tails)] = heads * n + tails
        filled += 2 * len(tails)
    keys = unique_sorted(keys[:filled])
    return csr_from_sorted_keys(name, n, keys, _symmetric_weights(keys, n, options))


def square_grid(scale: int, options: GraphOptions = GraphOptions(), name: str | None = None) -> CSRGraph:
    """A road-like square grid of 2**scale vertices (the DIMACS challenge's square family): a
    2**ceil(scale/2) x 2**floor(scale/2) lattice whose neighbours are joined both ways, each edge
    with one weight drawn uniformly from `options.drawn_weights` (shared by its two arcs).

    Raises:
        InputError: a scale outside 2..30.

    Example:
        >>> g = square_grid(4)
        >>> g.n_vertices, g.n_edges, g.max_degree, bool((g.weights >= 1).all())
        (16, 48, 4, True)
    """
    name = name or f"grid{scale}"
    if not 2 <= scale <= 30:
        raise InputError(f"{name}: the scale S of grid<S> must be 2..30 (2**S vertices)")
    width, height = 1 << ((scale + 1) // 2), 1 << (scale // 2)
    n = width * height
    ids = np.arange(n, dtype=np.int64).reshape(height, width)
    right = np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()])
    down = np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()])
    tails = np.concatenate([right[0], down[0], right[1], down[1]])
    heads = np.concatenate([right[1], down[1], right[0], down[0]])
    del right, down, ids
    keys = tails * n + heads
    del tails, heads
    keys.sort()
    return csr_from_sorted_keys(name, n, keys, _symmetric_weights(keys, n, options))

