"""The chain build of near-far Delta-stepping (`pytest -m gpu`; kernels/delta.cu, CHAIN_HOPS,
compiled with `autotune.gpu.compile.experimental_build`): every loop mode, Deltas from the smallest
to INF and chains of 1 to 8 hops give the CPU reference's distances, on real and generated graphs
and on graphs with zero weights, unreachable vertices and one vertex."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.algorithms.delta import INFINITE
from autotune.gpu.compile import experimental_build

from solves import assert_all_ok
from test_delta import BLOCK, GRID, HOST, SHARED, config, deltas_of, measure

pytestmark = pytest.mark.gpu

GRAPHS = ["rome99.gr.gz", "usa-roads.gr.gz", "delaunay_n16.mtx.gz", "Email-Enron.txt.gz", "rmat12"]


@pytest.mark.parametrize("hops", [1, 2, 8])
@pytest.mark.parametrize("name", GRAPHS)
def test_chains_give_the_reference_distances(session, graphs, name, hops):
    graph = graphs(name)
    deltas = deltas_of(graph)
    picked = (deltas[0], deltas[len(deltas) // 2], INFINITE)
    configs = [config(ck, block=block, delta=d, **loop) for d in picked
               for ck, block, loop in ((1, 1024, BLOCK), (4, 256, BLOCK), (2, 256, GRID), (2, 256, HOST))]
    with experimental_build(f"CHAIN_HOPS={hops}"):
        assert_all_ok(measure(graph, configs, sample=4))


@pytest.mark.parametrize("hops", [1, 4])
def test_chains_with_zero_weights_unreachable_vertices_and_one_vertex(session, hops):
    from autotune.graphs import build_csr

    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    zeros = build_csr("zeros", 6, tails, heads, weights)
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    with experimental_build(f"CHAIN_HOPS={hops}"):
        assert_all_ok(measure(zeros, [config(6, delta=d, **loop) for d in (1, 4, INFINITE)
                                      for loop in (BLOCK, GRID, HOST, SHARED)], sample=6))
        assert_all_ok(measure(single, [config(1, delta=d, **BLOCK) for d in (1, INFINITE)], sample=1))
