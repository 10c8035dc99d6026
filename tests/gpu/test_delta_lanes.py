"""Lane-interleaved Delta-stepping on the GPU (`pytest -m gpu`): every Delta of a graph's domain
(INF included), full and partial groups of 32 (CK 1 to 100), blocks per SM, block sizes and cache
states give scipy's Dijkstra's distances on the shared real graphs and generated ones, zero weights
and unreachable vertices included."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autotune.algorithms.delta import INFINITE, delta_values
from autotune.graphs import build_csr
from autotune.launch import CacheState, LaunchConfig
from autotune.model.features import graph_statistics

import solves
from solves import assert_all_ok

pytestmark = pytest.mark.gpu

REAL = ["rome99.gr.gz", "Email-Enron.txt.gz", "delaunay_n16.mtx.gz", "rgg_n_2_15_s0.graph.gz", "usa-roads.gr.gz"]
GENERATED = ["rmat12", "rmat14", "random3000-d8"]
LARGE = 50_000  # vertices: above this, the four largest Deltas only


def config(ck=32, block=256, split_block=256, cache="default", **params) -> LaunchConfig:
    return solves.config("delta_lanes", ck, block, split_block, cache, **params)


def measure(graph, configs, sample=32):
    return solves.measure(graph, "delta_lanes", configs, sample)


@pytest.mark.parametrize("name", REAL + GENERATED)
def test_every_delta_on_every_graph(session, graphs, name):
    graph = graphs(name)
    deltas = delta_values(SimpleNamespace(**graph_statistics(graph)))
    assert deltas[-1] == INFINITE
    chosen = deltas[-4:] if graph.n_vertices > LARGE else deltas
    assert_all_ok(measure(graph, [config(32, delta=d) for d in chosen]))


@pytest.mark.parametrize("name", ["rmat12", "rome99.gr.gz", "usa-roads.gr.gz"])
@pytest.mark.parametrize("ck", [1, 2, 31, 33, 64, 100])
def test_full_and_partial_groups(session, graphs, name, ck):
    configs = [config(ck, delta=d, blocks_per_sm=b) for d, b in ((1024, 1), (INFINITE, 8))]
    assert_all_ok(measure(graphs(name), configs, sample=ck))


@pytest.mark.parametrize("cache", list(CacheState))
def test_block_sizes_and_cache_states(session, graphs, cache):
    configs = [config(64, block=block, split_block=split, cache=cache.value, delta=64)
               for block, split in ((32, 1024), (64, 512), (128, 64), (512, 256), (1024, 32))]
    assert_all_ok(measure(graphs("rmat12"), configs, sample=64))


def test_zero_weights_and_unreachable_vertices(session):
    # 0 -> 1 -> 2 at weights 0 and 5, a zero-weight cycle 2 <-> 3, 4 reaches 0; 5 is isolated
    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    graph = build_csr("zeros", 6, tails, heads, weights)
    assert_all_ok(measure(graph, [config(6, delta=d) for d in (1, 4, INFINITE)], sample=6))

