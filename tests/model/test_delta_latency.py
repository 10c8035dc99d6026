"""Delta-stepping's one-query rules (autotune/algorithms/delta/latency.py): fitted on winners, applied to
a batch prediction, and carried by the choice model's TOML."""
from __future__ import annotations

import math

import numpy as np
import pytest

from autotune import algorithms
from autotune.graphs import build_csr
from autotune.model import GraphFeatures, load_device
from autotune.predict.choice import ChoiceModel, fit
from autotune.algorithms.delta.latency import LatencySample, fit as fit_latency, table_samples
from autotune.table.entry import entries_of
from autotune.algorithms.delta.latency_prices import priced_bins, read_bins_prices, read_prices
from autotune.model.shape import breadth_first_reach, graph_shape

DELTA = algorithms.get("delta")


def sample(name, width, blocks, delta="inf", size=1024, loop="persistent", fits=False, max_degree=2000, hub=1024):
    return LatencySample(name, width, 12.5, max_degree, {"blocks": blocks, "delta": delta, "loop": loop,
                                                         "warp_threshold": "off", "block_threshold": hub}, size, fits)


def winners():
    return [sample("road", 300, 1, 64), sample("mesh", 200, 1, 32, loop="shared", fits=True),
            sample("social", 3000, 64, "inf", 640), sample("rmat", 90000, 128, 1024, 768),
            sample("web", 1500, 64, "inf", 704)]


def test_fit_splits_the_shapes_by_level_width_between_the_nearest_winners():
    rules = fit_latency(winners())
    assert rules.width_threshold == pytest.approx(math.sqrt(300 * 1500))
    assert rules.placed == rules.samples == 5
    assert rules.grid_blocks == 64 and rules.block_size == {"block": 1024, "grid": 704}
    assert rules.delta_ratio["block"] == pytest.approx(32 / 12.5) and math.isinf(rules.delta_ratio["grid"])
    assert rules.shared_where_fits
    assert rules.block_threshold == {"block": 1024, "grid": 1024} and rules.warp_threshold["grid"] == "off"


def test_a_bin_is_fitted_on_the_winners_whose_degrees_reach_it():
    hubs = [sample("a", 2000, 64, hub=256), sample("b", 3000, 64, hub=512), sample("c", 4000, 64, hub=256),
            sample("flat", 5000, 64, hub=4096, max_degree=20), sample("flat2", 6000, 64, hub=4096, max_degree=20)]
    assert fit_latency(hubs).block_threshold["grid"] == 256
    above = [sample("a", 2000, 64, hub=4096, max_degree=300), sample("b", 3000, 64, hub=4096, max_degree=300)]
    assert fit_latency(above).block_threshold["grid"] == "off"  # never used: a threshold above every degree


def test_a_misplaced_winner_is_counted_and_one_shape_alone_still_fits():
    rules = fit_latency([*winners(), sample("odd-road", 250, 16, 2048, 736)])
    assert rules.placed == 5 and rules.samples == 6
    alone = fit_latency([sample("a", 10, 1, 64), sample("b", 20, 1, 128)])
    assert alone.block_size["grid"] == alone.block_size["block"] and alone.grid_blocks == 128
    with pytest.raises(ValueError):
        fit_latency([])


def test_a_shape_without_winners_takes_the_batch_rule_s_delta_not_the_other_shape_s():
    grids = [sample("social", 3000, 64, "inf", 640), sample("web", 1500, 64, "inf", 704)]
    rules = fit_latency(grids, unit=(0.0, 0.0), batch_scale=8.0)
    assert rules.delta_batch == {"block": True, "grid": False} and math.isinf(rules.delta_ratio["grid"])
    assert rules.delta_ratio["block"] == 8.0 and rules.degree_exponent["block"] == 0.0
    graph = GraphFeatures("mesh", 15_000, 240_000, max_degree=58, mean_weight=50.0, max_weight=100)
    batch = DELTA.predict(graph, load_device("hopper-h100")).config.replace(concurrent_kernels=1)
    config, decisions = rules.apply(batch, (), DELTA, graph, 100.0)
    assert config.param("blocks") == 1 and config.param("delta") != "inf"
    assert "batch rule's scale" in next(d.reason for d in decisions if d.parameter == "delta")
    assert fit_latency(winners()).delta_batch == {"block": False, "grid": False}


def test_apply_gives_one_block_below_the_threshold_and_the_grid_above():
    rules = fit_latency(winners())
    device = load_device("hopper-h100")
    for width, blocks in ((100.0, 1), (50000.0, 64)):
        graph = GraphFeatures("g", 100_000, 400_000, max_degree=4000, mean_weight=50.0, max_weight=100)
        batch = DELTA.predict(graph, device).config.replace(concurrent_kernels=1)
        config, decisions = rules.apply(batch, (), DELTA, graph, width)
        assert config.param("blocks") == blocks and config.concurrent_kernels == 1
        assert {d.parameter for d in decisions} >= {"blocks", "delta", "loop", "block_size"}
        assert config.kernel("advance").block_size == rules.block_size["block" if blocks == 1 else "grid"]
    assert config.param("delta") == "inf"


def test_the_rules_travel_in_the_choice_models_toml(tmp_path):
    rules = fit_latency(winners())
    model = fit([({"log2_vertices": 10, "mean_degree": 2, "degree_cv": 0.1}, 1, "delta")] * 2, {"graphs": 1}, rules)
    (tmp_path / "c.toml").write_text(model.to_toml())
    assert ChoiceModel.from_toml(tmp_path / "c.toml").latency == rules


def test_table_samples_take_delta_one_query_winners_with_a_width():
    point = {"config": {"algorithm": "delta", "concurrent_kernels": 1, "kernels": {"advance": {"block_size": 512}},
                        "params": {"blocks": 64, "delta": 256}}, "ms_per_sssp": 1.0}
    other = {**point, "config": {**point["config"], "algorithm": "crauser"}}
    table = {"entries": [{"graph": {"name": n, "vertices": 1000, "edges": 4000, "mean_weight": 50.0, "max_weight": 100,
                                    "max_degree": 9}, "curve": [p]} for n, p in (("a", point), ("b", other), ("c", point))]}
    found = table_samples(entries_of(table), {"a": 2000.0, "b": 10.0}, unit=(0.0, 0.0))
    assert [s.graph for s in found] == ["a"] and found[0].shape == "grid" and found[0].shared_fits
    assert found[0].unit == pytest.approx(12.5) and found[0].delta_ratio() == pytest.approx(256 / 12.5)


def test_level_width_is_the_widest_sources_vertices_per_level():
    path = build_csr("path", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([5, 0, 7]))
    assert breadth_first_reach(path, 0) == (3, 4)
    star = build_csr("star", 5, np.zeros(4, dtype=np.int32), np.arange(1, 5), np.ones(4, dtype=np.int32))
    assert graph_shape(star).level_width == pytest.approx(5 / 2)


def test_delta_s_degree_exponent_is_fitted_where_one_query_s_delta_falls_faster_than_the_unit():
    import dataclasses

    # the same unit (12.5) everywhere, the winners' Delta 512 / d: one power of the degree beyond it
    found = [dataclasses.replace(sample(f"g{d}", 100 + d, 1, 512 // d), mean_degree=float(d)) for d in (2, 4, 8, 16)]
    rules = fit_latency(found)
    assert rules.degree_exponent["block"] == 1.0 and rules.delta_ratio["block"] == pytest.approx(512 / 12.5)
    assert ChoiceModel([], {}, rules).latency == rules
    flat = fit_latency([dataclasses.replace(sample(f"g{d}", 100 + d, 1, 64), mean_degree=float(d)) for d in (2, 8)])
    assert flat.degree_exponent["block"] == 0.0  # the unit alone: the same Delta at every degree
    assert fit_latency(winners()).degree_exponent == {"block": 0.0, "grid": 0.0}  # degree 1: nothing to fit
    graph = GraphFeatures("g", 1000, 8000, max_degree=12, mean_weight=12.5 * 8, min_positive_weight=1, max_weight=200)
    config = DELTA.predict(graph, load_device("hopper-h100")).config.replace(concurrent_kernels=1)
    changed, decisions = rules.apply(config, (), DELTA, graph, 150.0)
    assert changed.param("delta") == 64  # 40.96 x 12.5 / 8 = 64
    assert "/ mean degree 8.00^1" in {d.parameter: d.reason for d in decisions}["delta"]


def test_a_priced_shape_takes_the_delta_its_graphs_measured_fastest_not_the_winners_median(tmp_path):
    import json

    # winners at Delta 64 (unit 12.5, degree 1): the median ratio 5.12; the prices say 256 is fastest
    # on both graphs (the winners came from a coarser sweep), so the priced ratio lands on 256 / 12.5
    found = [sample("a", 100, 1, 64), sample("b", 200, 1, 64), sample("wide", 5000, 64, 512, 704)]
    rows = [{"graph": g, "class": "latency grid", "status": "ok", "ms_per_sssp": ms,
             "config": {"params": {"delta": d}}} for g in ("a", "b") for d, ms in ((64, 1.5), (128, 1.2), (256, 1.0),
                                                                                  (512, 1.1), (1024, 1.4))]
    rows += [{"graph": "a", "class": "latency grid", "status": "failed", "ms_per_sssp": None,
              "config": {"params": {"delta": 2048}}},
             {"graph": "a", "class": "table best", "status": "ok", "ms_per_sssp": 0.5, "config": {"params": {"delta": 8}}}]
    path = tmp_path / "lat.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    prices = read_prices([path])
    assert prices["a"] == {64: 1.5, 128: 1.2, 256: 1.0, 512: 1.1, 1024: 1.4}  # neither the failure nor the table's best
    # a later file (another kernel's probe, another predicted grid) supersedes an earlier one graph by graph
    later = tmp_path / "later.jsonl"
    later.write_text(json.dumps({"graph": "b", "class": "latency grid", "status": "ok", "ms_per_sssp": 0.9,
                                 "config": {"params": {"delta": 2048}}}) + "\n")
    assert read_prices([path, later]) == {**prices, "b": {2048: 0.9}}
    assert read_prices([later, path]) == prices
    rules = fit_latency(found, prices=prices)
    assert rules.delta_priced == {"block": 2, "grid": 0}  # the grid winner has no prices: the median rule
    assert 256 / math.sqrt(2) < rules.delta_ratio["block"] * 12.5 < 256 * math.sqrt(2)
    assert rules.degree_exponent["block"] == 0.0 and rules.delta_ratio["grid"] == pytest.approx(512 / 12.5)
    assert fit_latency(found).delta_ratio["block"] == pytest.approx(64 / 12.5)
    unpriced = fit_latency([*found, sample("c", 150, 1, 64)], prices=prices)
    assert unpriced.delta_priced["block"] == 0 and unpriced.delta_ratio["block"] == pytest.approx(64 / 12.5)
    graph = GraphFeatures("g", 1000, 1000, max_degree=12, mean_weight=12.5, min_positive_weight=1, max_weight=200)
    config = DELTA.predict(graph, load_device("hopper-h100")).config.replace(concurrent_kernels=1)
    changed, decisions = rules.apply(config, (), DELTA, graph, 150.0)
    assert changed.param("delta") == 256
    assert "least slowdown on 2 block graphs' prices" in next(d.reason for d in decisions if d.parameter == "delta")
    assert ChoiceModel.from_toml(_written(tmp_path, rules)).latency == rules


def _written(tmp_path, rules):
    model = fit([({"log2_vertices": 10, "mean_degree": 2, "degree_cv": 0.1}, 1, "delta")] * 2, {"graphs": 1}, rules)
    (tmp_path / "priced.toml").write_text(model.to_toml())
    return tmp_path / "priced.toml"


def bins_row(graph, size, threshold, ms, blocks=64):
    return {"graph": graph, "class": "latency bins grid", "status": "ok", "ms_per_sssp": ms,
            "config": {"params": {"blocks": blocks, "block_threshold": threshold},
                       "kernels": {"advance": {"block_size": size}}}}


def test_the_grid_s_bins_split_the_graphs_where_their_cheapest_pairs_differ(tmp_path):
    import json

    # two narrow graphs cheapest at (384, 128), two wide ones at (1024, 1024); a 128-block row is
    # not the prediction's grid and prices nothing
    narrow = {(384, 128): 1.0, (384, 1024): 1.3, (1024, 128): 1.2, (1024, 1024): 1.5}
    wide = {(384, 128): 2.0, (384, 1024): 1.4, (1024, 128): 1.8, (1024, 1024): 1.0}
    rows = [bins_row(g, size, t, ms) for g, prices in (("n1.csr.npz", narrow), ("n2", narrow), ("w1", wide),
                                                       ("w2", wide)) for (size, t), ms in prices.items()]
    rows.append(bins_row("w1", 1024, 1024, 0.1, blocks=128))
    path = tmp_path / "bins.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    prices = read_bins_prices([path])
    assert prices["n1"] == narrow and prices["w1"] == wide  # keyed without .csr.npz; the 128-block row left out
    # a later file (another kernel's probe, at another grid) supersedes an earlier one graph by graph
    later = tmp_path / "later.jsonl"
    later.write_text(json.dumps(bins_row("w1", 768, 512, 0.5, blocks=128)) + "\n")
    assert read_bins_prices([path, later]) == {**prices, "w1": {(768, 512): 0.5}}
    assert read_bins_prices([later, path]) == prices
    found = [sample("n1.csr.npz", 1000, 64), sample("n2", 2000, 64), sample("w1", 9000, 64), sample("w2", 20000, 64)]
    split = priced_bins(found, prices)
    assert split == {"cut": 5500.0, "low": {"block_size": 384, "block_threshold": 128},
                     "high": {"block_size": 1024, "block_threshold": 1024}}
    assert priced_bins(found[:2], prices)["cut"] == 0.0  # one pair serves both: no split
    rules = fit_latency([*found, sample("road", 300, 1, 64)], bins_prices=prices)
    assert rules.grid_bins == {**split, "graphs": 4}
    # unpriced grid winners: the split is priced on the others while they are at least half
    assert fit_latency([*found, sample("x", 3000, 64)], bins_prices=prices).grid_bins == {**split, "graphs": 4}
    unpriced = [sample(f"x{i}", 3000 + i, 64) for i in range(5)]
    assert fit_latency([*found, *unpriced], bins_prices=prices).grid_bins == {}
    device = load_device("hopper-h100")
    graph = GraphFeatures("g", 100_000, 400_000, max_degree=4000, mean_weight=50.0, max_weight=100)
    batch = DELTA.predict(graph, device).config.replace(concurrent_kernels=1)
    for width, size, threshold in ((3000.0, 384, 128), (30000.0, 1024, 1024)):
        config, decisions = rules.apply(batch, (), DELTA, graph, width)
        assert config.kernel("advance").block_size == size and config.param("block_threshold") == threshold
        assert "bins prices" in next(d.reason for d in decisions if d.parameter == "block_size")
    assert ChoiceModel.from_toml(_written(tmp_path, rules)).latency == rules


def deferring(name, degree, work, blocks=128):
    import dataclasses

    found = sample(name, 50_000, blocks)
    return dataclasses.replace(found, params={**found.params, "defer_work": work}, mean_degree=degree, max_weight=100.0)


def test_a_grid_defers_from_the_mean_degree_that_splits_its_deferring_winners_from_the_others(tmp_path):
    found = [deferring("rmat17", 28.0, 800), deferring("rmat20", 30.0, 200), deferring("rmat19", 29.0, 400),
             deferring("social", 10.0, "off"), deferring("dense", 20.0, "off"), sample("road", 300, 1, 64)]
    rules = fit_latency(found)
    assert rules.defer_degree == pytest.approx(math.sqrt(20.0 * 28.0)) and rules.defer_weights == 4.0
    assert ChoiceModel.from_toml(_written(tmp_path, rules)).latency == rules
    device = load_device("hopper-h100")
    for degree, width, expected in ((25.0, 50_000.0, 400), (22.0, 50_000.0, "off"), (25.0, 100.0, "off")):
        graph = GraphFeatures("g", 100_000, int(100_000 * degree), max_degree=4000, mean_weight=50.0, max_weight=100)
        batch = DELTA.predict(graph, device).config.replace(concurrent_kernels=1)
        config, decisions = rules.apply(batch, (), DELTA, graph, width)
        assert config.param("defer_work") == expected, (degree, width)
        assert {d.parameter: d.rule for d in decisions}["defer_work"] == "delta latency 6"
    flat = GraphFeatures("flat", 100_000, 1_500_000, max_degree=15, mean_weight=50.0, max_weight=100)
    config, decisions = rules.apply(DELTA.predict(flat, device).config.replace(concurrent_kernels=1), (), DELTA, flat,
                                    50_000.0)
    assert config.param("defer_work") == "off" and "defer_work" not in {d.parameter for d in decisions}  # no hub


def test_without_a_deferring_grid_winner_none_defers_and_older_models_load():
    rules = fit_latency(winners())
    assert math.isinf(rules.defer_degree) and rules.defer_weights == 0.0
    data = rules.to_json()
    assert data["defer_degree"] == "inf"
    older = {k: v for k, v in data.items() if k not in ("defer_degree", "defer_weights")}
    assert type(rules).from_json(older) == rules
