"""Asynchronous Delta-stepping's registry value without a GPU: its canonical form, Delta's shift
and adaptation bounds, the rings' sizes, its place outside `auto`, and its model's configuration."""
from __future__ import annotations

import numpy as np
import pytest

from autotune import algorithms
from autotune.algorithms.adds import ring_size, shift_bounds
from autotune.errors import InputError
from autotune.algorithms.adds.engine import hub_ring_size, ints_per_instance
from autotune.reference.distance_range import WIDE
from autotune.model import GraphFeatures, load_device

ADDS = algorithms.get("adds")


def test_inf_is_one_bucket_that_never_adapts():
    config = ADDS.uniform(256, params={"delta": "inf", "buckets": 16, "adapt": 4})
    assert (config.param("buckets"), config.param("adapt")) == (1, 0)
    assert ADDS.uniform(256, params={"delta": 64, "buckets": 16}).param("buckets") == 16


def test_delta_adapts_within_its_bounds():
    assert shift_bounds(1, 2) == (0, 2)
    assert shift_bounds(2**29, 4) == (25, 30)
    assert shift_bounds(64, 0) == (6, 6)


def test_rings_hold_four_improvements_a_vertex():
    for n in (1, 1000, 87575, 2**20):
        assert ring_size(n) >= 4 * n + 32 and ring_size(n) & (ring_size(n) - 1) == 0
    assert ints_per_instance(10, 8, 1024, 32) == 2 * 10 + 8 * 1024 + 64
    assert ints_per_instance(10, 8, 1024, 32, WIDE) == 4 * 10 + 8 * 1024 + 64  # dist and expanded of 8 bytes


def test_hub_ring_holds_every_chunk_four_times():
    degrees = np.array([5, 4096, 1025, 3])
    assert hub_ring_size(degrees, 1024) >= 4 * (4 + 2)
    assert hub_ring_size(degrees, 0) == 0 and hub_ring_size(degrees, 8192) == 0


def test_auto_leaves_the_experimental_kernel_out_and_naming_it_tunes_it():
    assert ADDS not in algorithms.resolve("auto")
    assert algorithms.resolve("adds") == (ADDS,)
    assert {"delta", "delta_lanes"} <= {a.name for a in algorithms.resolve("auto")}


def test_a_hub_threshold_below_a_warp_is_refused():
    with pytest.raises(InputError, match="hub_threshold"):
        ADDS.validate(ADDS.uniform(256, params={"hub_threshold": 8}))


def test_the_model_predicts_a_configuration_of_its_domain():
    roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3, min_positive_weight=10, max_weight=2467)
    skewed = GraphFeatures("rmat", 131072, 3728785, max_degree=20000, mean_weight=50.5, min_positive_weight=1,
                           max_weight=100, degree_cv=4.0)
    for graph in (roads, skewed):
        prediction = ADDS.predict(graph, load_device("hopper-h100"))
        config = ADDS.validate(prediction.config)
        assert config.concurrent_kernels == 1
        assert config.param("delta") in ADDS.parameter("delta").domain(graph)
        assert set(prediction.rules()) >= {"delta", "blocks", "chunk", "hub_threshold"}
    assert ADDS.predict(skewed, load_device("hopper-h100")).config.param("hub_threshold") == 1024
