"""Asynchronous Delta-stepping on the GPU (`pytest -m gpu`): Deltas of a graph's domain (INF
included) with and without adaptation, rings, blocks, chunks, hub thresholds, block sizes, cache
states and CK give scipy's Dijkstra's distances on the shared real graphs and generated ones,
zero weights, unreachable vertices and a graph of one vertex included."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autotune import algorithms
from autotune.algorithms.delta import INFINITE, delta_values
from autotune.graphs import build_csr
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.model.features import graph_statistics

import solves
from solves import assert_all_ok

pytestmark = pytest.mark.gpu

REAL = ["rome99.gr.gz", "Email-Enron.txt.gz", "delaunay_n16.mtx.gz", "rgg_n_2_15_s0.graph.gz", "usa-roads.gr.gz"]
GENERATED = ["rmat12", "random3000-d8"]


def config(ck=1, block=256, cache="default", **params) -> LaunchConfig:
    entry = algorithms.get("adds")
    kernels = {"solve": KernelLaunch(block, CacheState(cache))}
    return entry.validate(LaunchConfig(ck, kernels, "adds", {**entry.default_params(), **params}))


def measure(graph, configs, sample=4):
    return solves.measure(graph, "adds", configs, sample)


@pytest.mark.parametrize("name", REAL + GENERATED)
def test_deltas_rings_and_blocks_on_every_graph(session, graphs, name):
    graph = graphs(name)
    deltas = [d for d in delta_values(SimpleNamespace(**graph_statistics(graph))) if d != INFINITE]
    middle = len(deltas) // 2
    configs = [config(delta=d, adapt=a, buckets=b, blocks=blocks, chunk=chunk)
               for d, (a, b, blocks, chunk) in zip(deltas[middle - 1:middle + 2],
                                                   ((0, 8, 32, 8), (2, 4, 128, 32), (4, 32, 16, 1)))]
    configs.append(config(delta=INFINITE, blocks=64))
    assert_all_ok(measure(graph, configs))


@pytest.mark.parametrize("hub", [32, 256, "off"])
def test_hubs_and_chunks(session, graphs, hub):
    assert_all_ok(measure(graphs("rmat12"), [config(hub_threshold=hub, chunk=c, blocks=b) for c, b in ((1, 4), (32, 128))]))


@pytest.mark.parametrize("cache", list(CacheState))
def test_block_sizes_cache_states_and_batches(session, graphs, cache):
    configs = [config(ck, block=block, cache=cache.value, blocks=blocks, delta=64)
               for ck, block, blocks in ((1, 32, 1), (2, 64, 8), (8, 1024, 4), (16, 512, 16))]
    assert_all_ok(measure(graphs("rmat12"), configs, sample=16))


def test_zero_weights_unreachable_vertices_and_one_vertex(session):
    # 0 -> 1 -> 2 at weights 0 and 5, a zero-weight cycle 2 <-> 3, 4 reaches 0; 5 is isolated
    tails, heads, weights = np.array([0, 1, 2, 3, 4, 1]), np.array([1, 2, 3, 2, 0, 3]), np.array([0, 5, 0, 0, 7, 9])
    graph = build_csr("zeros", 6, tails, heads, weights)
    configs = [config(ck, delta=d, blocks=b) for ck in (1, 6) for d in (1, 4, INFINITE) for b in (1, 16)]
    assert_all_ok(measure(graph, configs, sample=6))
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    assert_all_ok(measure(single, [config(delta=d) for d in (1, INFINITE)], sample=1))
