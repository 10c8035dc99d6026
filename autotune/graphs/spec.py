"""Graph specs (`rmat20`, `rmat22-d16`, `random24k-d200`, `urand22`, `grid20`, a file path) and `load_graph`.

Example:
    >>> parse_spec("random49k-d20")
    RandomSpec(n_vertices=49152, degree=20, label='49k')
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from autotune.errors import AutotuneError, InputError
from autotune.graphs.cache import CacheKey, GraphCache, default_cache_dir
from autotune.graphs.csr import CSRGraph
from autotune.graphs.generate import (RMAT_DEFAULT_EDGE_FACTOR, URAND_DEFAULT_DEGREE, random_graph, rmat, square_grid,
                                      uniform_random, urand_name)
from autotune.graphs.io import SUFFIXES, graph_format, read_graph_file
from autotune.graphs.options import GraphOptions, WeightRange

# The thesis's names for its random-graph sizes (3.3.2).
THESIS_SIZES = {"24k": 24_576, "49k": 49_152, "98k": 98_304}

_RMAT = re.compile(r"rmat(\d+)(?:-d(\d+))?")
_RANDOM = re.compile(r"random(\d+|24k|49k|98k)-d(\d+)")
_GRID = re.compile(r"grid(\d+)(?:-w(\d+)-(\d+))?")
_URAND = re.compile(r"urand(\d+)(?:-d(\d+))?")
SPEC_FORMS = (
    "rmat<S>[-d<D>], random<N>-d<D> (N an integer or 24k/49k/98k), urand<S>[-d<D>], grid<S>[-w<LO>-<HI>], "
    f"or a graph file ({', '.join(SUFFIXES)}, optionally .gz)"
)


@dataclass(frozen=True)
class RmatSpec:
    """`rmat<scale>[-d<edge_factor>]`: R-MAT with 2**scale vertices, edge_factor * 2**scale arcs."""

    scale: int
    edge_factor: int = RMAT_DEFAULT_EDGE_FACTOR

    @property
    def name(self) -> str:
        suffix = "" if self.edge_factor == RMAT_DEFAULT_EDGE_FACTOR else f"-d{self.edge_factor}"
        return f"rmat{self.scale}{suffix}"

    @property
    def canonical(self) -> str:
        return f"rmat{self.scale}-d{self.edge_factor}"

    def make(self, options: GraphOptions) -> CSRGraph:
        return rmat(self.scale, self.edge_factor, options, self.name)


@dataclass(frozen=True)
class RandomSpec:
    """`random<N>-d<D>`: the thesis's random graph, N vertices of out-degree D."""

    n_vertices: int
    degree: int
    label: str = ""

    @property
    def name(self) -> str:
        return f"random{self.label or self.n_vertices}-d{self.degree}"

    @property
    def canonical(self) -> str:
        return f"random{self.n_vertices}-d{self.degree}"

    def make(self, options: GraphOptions) -> CSRGraph:
        return random_graph(self.n_vertices, self.degree, options, self.name)


@dataclass(frozen=True)
class UniformSpec:
    """`urand<S>[-d<D>]`: GAP's uniform random graph, 2**S vertices and D * 2**S edges both ways
    (`generate.uniform_random`; D 16 by default)."""

    scale: int
    degree: int = URAND_DEFAULT_DEGREE

    @property
    def name(self) -> str:
        return urand_name(self.scale, self.degree)

    @property
    def canonical(self) -> str:
        return f"urand{self.scale}-d{self.degree}"

    def make(self, options: GraphOptions) -> CSRGraph:
        return uniform_random(self.scale, self.degree, options, self.name)


@dataclass(frozen=True)
class GridSpec:
    """`grid<S>[-w<LO>-<HI>]`: a road-like square grid of 2**S vertices (`generate.square_grid`),
    its weights drawn from LO..HI where the spec names them (else from `--weights`, 1-100 by default)."""

    scale: int
    weights: WeightRange | None = None

    @property
    def name(self) -> str:
        return f"grid{self.scale}" + (f"-w{self.weights.lo}-{self.weights.hi}" if self.weights else "")

    @property
    def canonical(self) -> str:
        return self.name

    def make(self, options: GraphOptions) -> CSRGraph:
        if self.weights is not None:
            options = GraphOptions(options.seed, self.weights)
        return square_grid(self.scale, options, self.name)


@dataclass(frozen=True)
class FileSpec:
    """A graph file."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name


GraphSpec = RmatSpec | RandomSpec | UniformSpec | GridSpec | FileSpec


def parse_spec(spec: str | os.PathLike[str]) -> GraphSpec:
    """Parse a graph spec; a spec that is no generator must name an existing, known file.

    Raises:
        InputError: naming the spec and the accepted forms.
    """
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    text = spec.strip()
    if match := _RMAT.fullmatch(text):
        factor = int(match.group(2)) if match.group(2) else RMAT_DEFAULT_EDGE_FACTOR
        return RmatSpec(int(match.group(1)), factor)
    if match := _RANDOM.fullmatch(text):
        size = match.group(1)
        n_vertices = THESIS_SIZES.get(size) or int(size)
        return RandomSpec(n_vertices, int(match.group(2)), size)
    if match := _URAND.fullmatch(text):
        return UniformSpec(int(match.group(1)), int(match.group(2)) if match.group(2) else URAND_DEFAULT_DEGREE)
    if match := _GRID.fullmatch(text):
        weights = WeightRange(int(match.group(2)), int(match.group(3))) if match.group(2) else None
        return GridSpec(int(match.group(1)), weights)
    path = Path(spec)
    if graph_format(path) is None:
        if path.exists():
            raise InputError(f"{spec}: unknown graph file format; expected {SPEC_FORMS}")
        raise InputError(f"unknown graph spec '{spec}': expected {SPEC_FORMS}")
    if path.is_dir():
        raise InputError(f"{spec}: is a directory, not a graph file")
    if not path.is_file():
        raise InputError(f"{spec}: no such graph file")
    return FileSpec(path)


def load_graph(
    spec: str | os.PathLike[str],
    *,
    seed: int = 0,
    weights: WeightRange | str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
) -> CSRGraph:
    """Load or generate the graph a spec names.

    Args:
        spec: `rmat<S>[-d<D>]`, `random<N>-d<D>`, `urand<S>[-d<D>]`, `grid<S>[-w<LO>-<HI>]` or a graph file (see
            `parse_spec`).
        seed: seeds every random choice; the same spec, seed and weights give the same graph,
            bit for bit, on any machine.
        weights: `LO-HI` range of drawn weights; None keeps a file's weights and draws 1-100
            where there are none. A range replaces every input's weights.
        cache_dir: where generated graphs are cached (default `default_cache_dir()`).
        use_cache: False generates without reading or writing the cache.

    Returns:
        The graph.

    Raises:
        InputError: for a bad spec, seed or weight range, or a bad file (with file:line).

    Example:
        >>> g = load_graph("rmat12", seed=1, weights="1-1", use_cache=False)
        >>> g.n_vertices, int(g.weights.max())
        (4096, 1)
    """
    return load(parse_spec(spec), GraphOptions.from_values(seed, weights),
                GraphCache(Path(cache_dir) if cache_dir is not None else default_cache_dir())
                if use_cache else None)


def load(spec: GraphSpec, options: GraphOptions, cache: GraphCache | None) -> CSRGraph:
    """Load a parsed spec: read a file, or generate (through `cache` when given).

    Raises:
        InputError: for a bad file.
        AutotuneError: when memory runs out (exit status 1).
    """
    try:
        if isinstance(spec, FileSpec):
            return read_graph_file(spec.path, options)
        if cache is None:
            return spec.make(options)
        return cache.get_or_make(CacheKey.of(spec.canonical, options), spec.name,
                                 lambda: spec.make(options))
    except MemoryError:
        raise AutotuneError(f"{spec.name}: not enough memory to load or generate this "
                            "graph") from None
