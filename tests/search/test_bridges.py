"""The queries curve's bridges: what a sweep measures for a CK its search left without a point."""
from __future__ import annotations

from autotune import algorithms
from autotune.graphs import load_graph
from autotune.measure import Status
from autotune.search import SearchSpace
from autotune.search.run import specials as sp
from autotune.search.run.plan import bridges
from autotune.search.results import ConfigResult


def _space(algorithm: str) -> SearchSpace:
    return SearchSpace.from_options(algorithm, graph=sp.features(sp.graph_info(load_graph("rmat10"))))


def _point(config, ms):
    return ConfigResult(config, Status.OK, (ms,))


def _shapes(configs):
    return sorted((c.concurrent_kernels, c.param("blocks"), c.param("loop")) for c in configs)


def test_delta_bridges_spread_a_few_instances_over_a_grid():
    space = _space("delta")
    batch = algorithms.get("delta").default_config().replace(concurrent_kernels=32, blocks=1, loop="persistent")
    found = bridges([_point(batch, 0.1)], space, skip=(1,))
    # every CK below the best's but the skipped one, each as the batch's shape and spread over 128 blocks
    assert _shapes(found) == [(2, 1, "persistent"), (2, 64, "persistent"), (4, 1, "persistent"),
                              (4, 32, "persistent"), (8, 1, "persistent"), (8, 16, "persistent"),
                              (16, 1, "persistent"), (16, 8, "persistent")]
    assert all(space.contains(c) for c in found)


def test_a_bridge_never_narrows_a_neighbour_nor_repeats_a_measured_ck():
    space = _space("delta")
    wide = algorithms.get("delta").default_config().replace(concurrent_kernels=4, blocks=64, loop="persistent")
    found = bridges([_point(wide.replace(concurrent_kernels=8), 0.2), _point(wide, 0.3)], space)
    assert _shapes(found) == [(1, 64, "persistent"), (1, 128, "persistent"), (2, 64, "persistent")]


def test_a_shared_loop_point_spreads_as_a_persistent_grid():
    space = _space("delta")
    shared = algorithms.get("delta").default_config().replace(concurrent_kernels=4, loop="shared")
    found = bridges([_point(shared, 0.1)], space)
    assert (2, 64, "persistent") in _shapes(found) and (2, 1, "shared") in _shapes(found)


def test_algorithms_without_blocks_bridge_the_neighbour_alone():
    space = _space("crauser")
    point = algorithms.get("crauser").default_config().replace(concurrent_kernels=8)
    assert [c.concurrent_kernels for c in bridges([_point(point, 1.0)], space)] == [1, 2, 4]
