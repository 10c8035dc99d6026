"""The compiled contraction (issue 64): the hierarchies it builds give Dijkstra's distances by
PHAST's level sweeps, as the Python contraction's do; it refuses what the Python contraction
refuses; and where no compiler is found the Python contraction builds, with a warning."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graphs import build_csr, load_graph
from autotune.hierarchy import Hierarchy, Unsuited, level_sweeps
from autotune.hierarchy import compiled
from autotune.hierarchy.contraction import contract, contract_python
from autotune.reference.cache import INF
from autotune.reference.oracle import reference_distances

pytestmark = pytest.mark.skipif(compiled.compiler() is None, reason="no C++ compiler on this machine")


def random_sparse(n: int, seed: int):
    rng = np.random.default_rng(seed)
    parents = np.array([rng.integers(0, v) for v in range(1, n - 1)])
    chords = rng.integers(0, n - 1, (n // 4, 2))
    tails = np.concatenate([np.arange(1, n - 1), parents, chords[:, 0]])
    heads = np.concatenate([parents, np.arange(1, n - 1), chords[:, 1]])
    return build_csr("sparse", n, tails, heads, rng.integers(0, 21, len(tails)))


def grid(side: int, seed: int = 0):
    """A side x side grid, both directions, weights 1 to 100: road-like, so it contracts."""
    rng = np.random.default_rng(seed)
    ids = np.arange(side * side).reshape(side, side)
    pairs = np.concatenate([np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
                            np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], 1)])
    tails = np.concatenate([pairs[:, 0], pairs[:, 1]])
    heads = np.concatenate([pairs[:, 1], pairs[:, 0]])
    return build_csr("grid", side * side, tails, heads, np.tile(rng.integers(1, 101, len(pairs)), 2))


def _sweeps_are_dijkstra(graph, built) -> None:
    h = Hierarchy.from_contraction(*built)
    h.check(graph.n_vertices)
    sources = sorted({0, graph.n_vertices // 3, graph.n_vertices - 1})
    for source, row in zip(sources, reference_distances(graph, sources)):
        got, steps = level_sweeps(h, source)
        assert np.array_equal(got, np.where(row < 0, INF, row)), source
        assert steps <= 2 * h.levels


@pytest.mark.parametrize("graph", [random_sparse(400, 1), random_sparse(150, 2), "tests/data/rome99.gr.gz"])
def test_the_compiled_hierarchy_gives_dijkstra_s_distances(graph, tmp_path):
    graph = load_graph(graph) if isinstance(graph, str) else graph
    _sweeps_are_dijkstra(graph, contract(graph, directory=tmp_path))
    assert list(tmp_path.glob("contract-*.so"))  # built once, kept by the source's digest


def test_compiled_and_python_contractions_agree_on_rome99(tmp_path):
    graph = load_graph("tests/data/rome99.gr.gz")
    ours = Hierarchy.from_contraction(*contract(graph, directory=tmp_path))
    python = Hierarchy.from_contraction(*contract_python(graph))
    assert ours.levels == python.levels and ours.n_arcs == python.n_arcs  # the same procedure, the same order


def test_a_faster_estimate_still_gives_exact_distances(tmp_path):
    graph = load_graph("tests/data/rome99.gr.gz")
    _sweeps_are_dijkstra(graph, contract(graph, directory=tmp_path, estimate=30))


def test_the_compiled_contraction_refuses_what_densifies(tmp_path):
    star = build_csr("star", 40, np.arange(1, 40), np.zeros(39, np.int64), np.ones(39, np.int64))
    clique = build_csr("clique", 30, *np.array([(u, v) for u in range(30) for v in range(30) if u != v]).T,
                       np.ones(870, np.int64))
    with pytest.raises(Unsuited, match="grew past 0.5 x its"):
        contract(random_sparse(400, 1), max_growth=0.5, directory=tmp_path)
    with pytest.raises(Unsuited, match="densified it"):
        from autotune.hierarchy import contraction

        old = contraction.MAX_PAIRS
        try:
            contraction.MAX_PAIRS = 10
            contract(clique, directory=tmp_path)
        finally:
            contraction.MAX_PAIRS = old
    assert contract(star, directory=tmp_path)[0].shape == (40,)


def test_progress_is_reported_and_a_missing_compiler_falls_back_with_a_warning(tmp_path, monkeypatch, capsys):
    graph = grid(95)
    seen = []
    _sweeps_are_dijkstra(graph, contract(graph, directory=tmp_path, progress=lambda done, n: seen.append((done, n))))
    assert seen[:2] == [(4096, 9025), (8192, 9025)]
    compiled.load.cache_clear()
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    built = contract(random_sparse(150, 2), directory=tmp_path / "other")
    compiled.load.cache_clear()
    err = capsys.readouterr().err
    assert "could not build the contraction" in err and "contracting sparse in Python instead (slow)" in err
    _sweeps_are_dijkstra(random_sparse(150, 2), built)
