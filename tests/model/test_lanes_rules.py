"""The lane-interleaved Delta-stepping rules (autotune/algorithms/delta_lanes/rules.py, algorithms/delta_lanes/lanes.toml)."""
from __future__ import annotations

import dataclasses

from autotune.algorithms import get
from autotune.model import load_device
from autotune.model.features import GraphFeatures

ROADS = GraphFeatures("roads", 87575, 242982, max_degree=6, degree_cv=0.3, mean_weight=95.3, min_positive_weight=10,
                      max_weight=2467, lightest_weight=45.4)
POWER_LAW = GraphFeatures("rmat17", 131072, 3728785, max_degree=12000, degree_cv=5.62, mean_weight=50.5,
                          min_positive_weight=1, max_weight=100)


def test_skewed_graphs_take_relaxed_settlement_and_the_others_wider_buckets_than_one_instance():
    h100 = load_device("hopper-h100")
    lanes, single = get("delta_lanes"), get("delta")
    assert lanes.predict(POWER_LAW, h100).config.param("delta") == "inf"
    # Delta-stepping's rule 1 on the roads: 32 x 45.4 / 2.77 / 1.3 = 403 -> 512; eight times 403 is 3,226 -> 4096
    assert single.predict(ROADS, h100).config.param("delta") == 512
    assert lanes.predict(ROADS, h100).config.param("delta") == 4096
    unweighted = dataclasses.replace(ROADS, mean_weight=0.0, lightest_weight=0.0)
    assert lanes.predict(unweighted, h100).config.param("delta") == "inf"


def test_every_value_has_its_rule_and_the_batch_fills_the_gpu():
    prediction = get("delta_lanes").predict(ROADS, load_device("hopper-h100"))
    assert set(prediction.rules()) == {"delta", "concurrent_kernels", "block_size", "blocks_per_sm", "cache"}
    config = prediction.config
    assert config.concurrent_kernels == 1024 and config.param("blocks_per_sm") == 2
    assert {config.kernel(k).block_size for k in ("advance", "split")} == {512}
    assert prediction.to_json()["model"] == "lanes-rules"


def test_skewed_graphs_take_the_fitted_launch_and_their_blocks_even_where_fewer_fit_at_once():
    h100 = load_device("hopper-h100")
    constants = get("delta_lanes").characterization.model
    prediction = get("delta_lanes").predict(POWER_LAW, h100)
    assert prediction.config.param("blocks_per_sm") == constants["skew_blocks_per_sm"] != constants["blocks_per_sm"]
    assert prediction.config.kernel("advance").block_size == constants["skew_block_size"]
    assert get("delta_lanes").predict(ROADS, h100).config.param("blocks_per_sm") == constants["blocks_per_sm"]
    small = dataclasses.replace(h100, max_threads_per_sm=512, max_threads_per_block=512)
    prediction = get("delta_lanes").predict(POWER_LAW, small)
    assert prediction.config.kernel("advance").block_size == 512  # the largest that launches there
    assert prediction.config.param("blocks_per_sm") == constants["skew_blocks_per_sm"]
    assert "1 at once on an SM" in {d.parameter: d.reason for d in prediction.decisions}["blocks_per_sm"]
