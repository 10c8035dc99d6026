"""The Delta-stepping rules (autotune/algorithms/delta/rules.py) with the constants fitted on the H100's
batched records (algorithms/delta/delta.toml, scripts/fit_delta_model.py)."""
from __future__ import annotations

import dataclasses

from autotune.algorithms import get
from autotune.model import load_device
from autotune.model.features import GraphFeatures

ROADS = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3, min_positive_weight=10, max_weight=2467,
                      lightest_weight=45.4)
POWER_LAW = GraphFeatures("rmat17", 131072, 3728785, max_degree=12000, degree_cv=5.62, mean_weight=50.5,
                          min_positive_weight=1, max_weight=100, lightest_weight=20.7)


def test_every_value_has_its_rule_and_the_fitted_constants_show():
    prediction = get("delta").predict(ROADS, load_device("hopper-h100"))
    rules = prediction.rules()
    assert set(rules) >= {"delta", "blocks", "loop", "concurrent_kernels", "block_size", "warp_threshold",
                          "block_threshold", "cache"}
    constants = prediction.constants
    assert (constants["delta_scale"], constants["delta_skew"], constants["delta_spread"]) == (32, 1, 0)
    assert constants["block_size"] == 256
    reason = {d.parameter: d.reason for d in prediction.decisions}["delta"]
    assert reason.startswith("32 x lightest-arc weight 45.4 / d(G) 2.77 / (1 + cv(G) 0.00)^1 = 524")
    mean_only = get("delta").predict(dataclasses.replace(ROADS, lightest_weight=None), load_device("hopper-h100"))
    assert {d.parameter: d.reason for d in mean_only.decisions}["delta"].startswith("32 x mean weight 95.3 / d(G)")


def test_delta_follows_the_weights_over_the_degree_and_the_batch_fills_the_gpu():
    h100 = load_device("hopper-h100")
    roads = get("delta").predict(ROADS, h100).config
    hubs = get("delta").predict(POWER_LAW, h100).config
    # 32 x 45.4 / 2.77 = 524; 32 x 20.7 / 28.4 / 6.62 = 3.5 (the lightest-arc weights of usa-roads and rmat17)
    assert roads.param("delta") == 512 and hubs.param("delta") == 4
    for config in (roads, hubs):
        assert config.param("blocks") == 1 and config.param("loop") == "persistent"
        assert config.concurrent_kernels == 1024 and config.kernel("advance").block_size == 256
    assert roads.param("warp_threshold") == "off"
    assert hubs.param("block_threshold") == 1024


def test_a_warp_bin_only_where_the_mean_degree_fills_a_warp():
    h100 = load_device("hopper-h100")
    dense = GraphFeatures("random24k-d200", 24576, 24576 * 200, max_degree=200, degree_cv=0.0, mean_weight=50.5,
                          min_positive_weight=1, max_weight=100)
    sparse_hubs = dataclasses.replace(POWER_LAW, n_edges=131072 * 31)  # mean degree 31: the hubs alone reach a warp
    assert get("delta").predict(dense, h100).config.param("warp_threshold") == 32
    prediction = get("delta").predict(sparse_hubs, h100)
    assert prediction.config.param("warp_threshold") == "off"
    assert prediction.config.param("block_threshold") == 1024
    reasons = {d.parameter: d.reason for d in prediction.decisions}
    assert reasons["warp_threshold"] == "largest degree 12000, mean degree 31.0"


def test_a_block_size_a_gpu_cannot_hold_gives_way_to_the_largest_it_can():
    h100 = load_device("hopper-h100")
    tiny = dataclasses.replace(h100, max_threads_per_block=128, max_threads_per_sm=128)
    prediction = get("delta").predict(ROADS, tiny)
    assert prediction.config.kernel("advance").block_size == 128
    assert "does not launch" in {d.parameter: d.reason for d in prediction.decisions}["block_size"]


def test_delta_follows_the_lightest_arcs_not_the_mean_weight_and_the_skew_damps_it():
    h100 = load_device("hopper-h100")

    def delta(features):
        return get("delta").predict(features, h100).config.param("delta")

    assert delta(ROADS) == 512  # 32 x 45.4 / 2.77 = 524
    heavy_tail = dataclasses.replace(ROADS, mean_weight=9530.0, max_weight=10**6)  # a few huge arcs: no change
    assert delta(heavy_tail) == 512
    assert delta(dataclasses.replace(ROADS, lightest_weight=11.35)) == 128  # 131
    skewed = dataclasses.replace(POWER_LAW, degree_cv=0.0)
    assert delta(skewed) == 32 and delta(POWER_LAW) < delta(skewed)  # 23.3, then damped by the skew


def test_the_block_size_climbs_the_fitted_ladder_with_the_level_width():
    h100 = load_device("hopper-h100")
    small = dataclasses.replace(ROADS, n_vertices=3353, n_edges=8859)  # rome99's size: bitmaps at every block size
    sizes = {}
    for width in (75.0, 237.0, 700.0, 2500.0):
        prediction = get("delta").predict(dataclasses.replace(small, level_width=width), h100)
        sizes[width] = prediction.config.kernel("advance").block_size
        assert prediction.config.kernel("split").block_size == sizes[width]
        assert prediction.config.concurrent_kernels == 1024
        assert {d.parameter: d.reason for d in prediction.decisions}["block_size"].startswith(f"level width {width:,.0f}: ")
    assert sizes == {75.0: 128, 237.0: 256, 700.0: 512, 2500.0: 1024}  # rome99's width is 75, usa-roads' 237


def test_the_block_size_rises_to_one_that_keeps_the_duplicate_bitmaps():
    from autotune.algorithms.delta.rules import keeps_bitmaps

    h100 = load_device("hopper-h100")
    characterization = get("delta").characterization
    assert [b for b in (128, 256, 512, 1024) if keeps_bitmaps(87575, h100, characterization, b, 1024)] == [512, 1024]
    assert [b for b in (128, 256, 512, 1024) if keeps_bitmaps(87575, h100, characterization, b, 128)] == [128, 256, 512, 1024]
    assert [b for b in (128, 256, 512, 1024) if keeps_bitmaps(15606, h100, characterization, b, 1024)] == [256, 512, 1024]
    prediction = get("delta").predict(dataclasses.replace(ROADS, level_width=237.0), h100)  # usa-roads: 256 keeps none
    assert prediction.config.kernel("advance").block_size == 512
    assert {d.parameter: d.reason for d in prediction.decisions}["block_size"].endswith(
        "; 512, the smallest larger that keeps solve_block's duplicate bitmaps at CK 1024")
    huge = dataclasses.replace(ROADS, n_vertices=1_070_376, n_edges=2_687_902, level_width=578.0)  # road-FLA: no size does
    assert get("delta").predict(huge, h100).config.kernel("advance").block_size == 256
    unknown = get("delta").predict(ROADS, h100)
    assert unknown.config.kernel("advance").block_size == 256
    assert {d.parameter: d.reason for d in unknown.decisions}["block_size"] == "block_size 256: the level width is unknown"


def test_the_shipped_rules_keep_ck_1024_at_every_width():
    # since the engine keeps its bitmaps beyond the SM count (a9bcd3b), no graph of the CK probe
    # was faster at CK 128: the fit places no wide width
    assert "wide_width" not in get("delta").characterization.model
    for width in (75.0, 1000.0, 50000.0):
        assert get("delta").predict(dataclasses.replace(ROADS, level_width=width),
                                    load_device("hopper-h100")).config.concurrent_kernels == 1024


def test_wide_levels_give_each_instance_an_sm_of_its_own_where_a_wide_width_is_fitted():
    h100 = load_device("hopper-h100")
    shipped = get("delta").characterization
    wide = dataclasses.replace(shipped, model={**shipped.model, "wide_width": 822, "wide_block_size": 1024})

    def predict(features, device=h100):
        return get("delta").predict(features, device, wide)

    for width in (1000.0, 50000.0):  # cit-HepTh's width is 687, Email-Enron's 3,744
        prediction = predict(dataclasses.replace(ROADS, level_width=width))
        assert prediction.config.concurrent_kernels == 128 and prediction.config.kernel("advance").block_size == 1024
        reasons = {d.parameter: d.reason for d in prediction.decisions}
        assert reasons["concurrent_kernels"] == (f"level width {width:,.0f} >= 822: one instance per SM, the largest CK "
                                                 "up to 132 SMs, 128")
        assert reasons["block_size"] == f"level width {width:,.0f} >= 822: 1024, an SM's block"
    huge = dataclasses.replace(ROADS, n_vertices=1_048_576, n_edges=4_000_000, level_width=5000.0)
    prediction = predict(huge)  # four bitmaps of 2^20 bits: 512 KiB, beyond a block's shared memory
    assert prediction.config.concurrent_kernels == 1024 and prediction.config.kernel("advance").block_size == 1024
    assert "do not fit its block's shared memory" in {d.parameter: d.reason for d in prediction.decisions}["concurrent_kernels"]
    few = dataclasses.replace(h100, sm_count=16)
    assert predict(dataclasses.replace(ROADS, level_width=1000.0), few).config.concurrent_kernels == 16
    assert predict(dataclasses.replace(ROADS, level_width=600.0)).config.concurrent_kernels == 1024


def test_a_characterization_without_a_ladder_keeps_its_block_size():
    from autotune.algorithms.delta.rules import block_size_for

    wide = dataclasses.replace(ROADS, level_width=5000.0)
    assert block_size_for(wide, {"block_size": 384}, False) == (384, "block_size 384")
    ladder = {"block_size": 384, "block_width_128": 0.0, "block_width_256": 100.0, "block_width_1024": 9000.0}
    assert block_size_for(wide, ladder, False)[0] == 256
    assert block_size_for(dataclasses.replace(wide, level_width=50.0), ladder, False)[0] == 128


def test_rule_1_target_is_none_without_a_positive_weight_and_the_mean_weight_stands_in_for_the_lightest():
    from autotune.algorithms.delta.rules import graph_target

    constants = {"delta_scale": 32.0, "delta_skew": 0.0, "delta_spread": 0.0}
    assert graph_target(constants, dataclasses.replace(ROADS, lightest_weight=0.0, mean_weight=None)) is None
    assert graph_target(constants, ROADS) == 32.0 * 45.4 / (242982 / 87575)
    unknown = dataclasses.replace(ROADS, lightest_weight=None)
    assert graph_target(constants, unknown) == 32.0 * 95.3 / (242982 / 87575)
    assert get("delta").predict(dataclasses.replace(ROADS, lightest_weight=0.0, mean_weight=0.0),
                                load_device("hopper-h100")).config.param("delta") == "inf"
