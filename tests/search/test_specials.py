"""The specials a sweep measures: within the CK its objective allows."""
from __future__ import annotations

import dataclasses

from autotune.graphs import load_graph
from autotune.model.device import load_device
from autotune.search import SearchSpace
from autotune.search.run import specials as sp


def _job(ck):
    graph = load_graph("rmat10")
    info = sp.graph_info(graph)
    space = SearchSpace.from_options("delta", graph=sp.features(info))
    return info, dataclasses.replace(space, concurrent_kernels=ck)


def test_a_latency_sweep_measures_the_prediction_at_ck_1():
    profile = load_device("hopper-h100")
    info, unbounded = _job((1, 2, 4, 1024))
    predicted = sp.model_specials(info, profile, "delta", space=unbounded).prediction
    assert predicted.concurrent_kernels > 1  # the model batches; a latency sweep must not

    _, latency = _job((1,))
    specials = sp.model_specials(info, profile, "delta", space=latency)
    assert specials.prediction.concurrent_kernels == 1
    assert specials.prediction.replace(concurrent_kernels=predicted.concurrent_kernels) == predicted
    assert specials.prediction_details["config"] == specials.prediction.to_json()
    assert "capped at 1" in specials.prediction_details["rules"]["concurrent_kernels"]


def test_a_prediction_within_the_space_is_unchanged():
    profile = load_device("hopper-h100")
    info, space = _job((1, 2, 4, 512, 1024))
    specials = sp.model_specials(info, profile, "delta", space=space)
    assert specials.prediction_details["config"] == specials.prediction.to_json()
    assert "capped" not in str(specials.prediction_details["rules"])


def test_a_latency_replay_caps_the_prediction_as_a_live_sweep_does():
    profile = load_device("hopper-h100")
    info, latency = _job((1,))
    specials = sp.recorded_specials([], info, profile, "delta", space=latency)
    assert specials.prediction.concurrent_kernels == 1
    assert "capped at 1" in specials.prediction_details["rules"]["concurrent_kernels"]


def test_the_latency_end_of_delta_leads_with_its_one_query_rules():
    from autotune.predict.choice import shipped_choice

    profile = load_device("hopper-h100")
    info, latency = _job((1,))
    rules = shipped_choice(profile).latency
    asked = []
    assert rules.grid_blocks == 132  # one block a SM: not among the blocks parameter's powers of two
    for width, blocks in ((rules.width_threshold / 2, 1), (rules.width_threshold * 2, 128)):
        specials = sp.model_specials(info, profile, "delta", space=latency, level_width=lambda w=width: asked.append(w) or w)
        assert specials.leads and specials.prediction.param("blocks") == blocks
        assert specials.prediction_details["rules"]["blocks"].startswith("delta latency 1")
        assert specials.first([specials.default, specials.prediction]) == [specials.prediction, specials.default]
        assert sp.Specials.from_json(specials.to_json(), "delta").leads
    assert len(asked) == 2
    _, batch = _job((1, 1024))
    specials = sp.model_specials(info, profile, "delta", space=batch, level_width=lambda: asked.append(5000.0) or 5000.0)
    assert not specials.leads and len(asked) == 3  # a batch's space: the batch rules', rule 5 reading the width
    assert specials.prediction.kernel("advance").block_size == 1024
    assert specials.prediction_details["rules"]["block_size"] == "delta 5"
    assert specials.first([specials.default, specials.prediction]) == [specials.default, specials.prediction]
    sp.model_specials(info, profile, "delta_lanes", space=batch, level_width=lambda: asked.append(1.0) or 1.0)
    assert len(asked) == 3  # the lanes' rules do not read it: no searches made


def test_a_one_query_grid_outside_the_space_leads_from_the_space_s_nearest_blocks():
    from autotune.predict.choice import shipped_choice

    profile = load_device("hopper-h100")
    info, latency = _job((1,))
    wide = shipped_choice(profile).latency.width_threshold * 2
    specials = sp.model_specials(info, profile, "delta", space=latency, level_width=lambda: wide)
    assert specials.prediction.param("blocks") == 128
    assert specials.prediction_details["rules"]["blocks"] == "delta latency 1; 132 is outside the sweep's space: 128"
    assert specials.prediction_details["config"] == specials.prediction.to_json()
    graph = load_graph("rmat10")
    held = SearchSpace.from_options("delta", ck="1", params=["blocks=1,132"], graph=sp.features(sp.graph_info(graph)))
    specials = sp.model_specials(info, profile, "delta", space=held, level_width=lambda: wide)
    assert specials.leads and specials.prediction.param("blocks") == 132
    assert specials.prediction_details["rules"]["blocks"] == "delta latency 1"
    ties = SearchSpace.from_options("delta", ck="1", params=["blocks=130,134"], graph=sp.features(sp.graph_info(graph)))
    nearest = sp.model_specials(info, profile, "delta", space=ties, level_width=lambda: wide).prediction
    assert nearest.param("blocks") == 130  # the lower of two as near


def test_the_reference_solve_on_the_gpu_takes_the_models_one_query_configuration_not_the_default():
    """A large graph's reference rows past the CPU's few are solved with Delta-stepping's one-query
    prediction (`predict --algorithm delta --queries 1`): its default, one block, took 0.97 s a
    source on rmat22, the prediction 3.9 ms."""
    from autotune import algorithms
    from autotune.model.shape import level_width
    from autotune.predict.auto import predicted
    from autotune.predict.choice import shipped_choice
    from autotune.search.run.references import reference_config

    profile = load_device("hopper-h100")
    graph = load_graph("rmat10")
    info = sp.graph_info(graph)
    config = reference_config(info, profile, lambda: level_width(graph))
    expected = predicted("delta", sp.features(info), profile, "auto", 1, shipped_choice(profile).latency,
                         lambda: level_width(graph))[0]
    assert config == expected and config.concurrent_kernels == 1
    assert config != algorithms.get("delta").default_config()


def test_only_a_sweep_that_builds_delta_stepping_anyway_solves_references_on_the_gpu():
    from autotune.search.run.references import gpu_shares_references

    assert gpu_shares_references("auto") and gpu_shares_references("delta")
    assert not gpu_shares_references("crauser") and not gpu_shares_references("phast")


def test_a_throughput_study_measures_the_one_query_prediction_too_where_its_ck_reach_1():
    """`--objective throughput` takes the least time per SSSP over every CK: on urand22 CK 1's 5.22 ms
    beat the batch end's 6.83, a shape the batch prediction's neighbourhood never reached."""
    from autotune.measure import Measurement, Status
    from autotune.search.results.records import Record

    profile = load_device("hopper-h100")
    info, every = _job((1, 2, 4, 1024))
    width = lambda: 5000.0  # noqa: E731
    _, latency = _job((1,))
    expected = sp.model_specials(info, profile, "delta", space=latency, level_width=width).prediction
    specials = sp.model_specials(info, profile, "delta", space=every, level_width=width, with_one_query=True)
    assert specials.one_query == expected and expected.concurrent_kernels == 1 and every.contains(expected)
    assert specials.prediction.concurrent_kernels == 1024 and not specials.leads  # the batch prediction still leads
    assert specials.ordered()[:2] == [specials.prediction, expected]
    neighbour = specials.prediction.replace(delta=2)
    assert specials.first([specials.prediction, specials.default, expected], [neighbour]) == \
        [specials.prediction, expected, neighbour, specials.default]  # before the batch's neighbours
    assert specials.roles()[expected.key()] == (sp.ONE_QUERY,)
    assert sp.Specials.from_json(specials.to_json(), "delta") == specials
    assert sp.model_specials(info, profile, "delta", space=every, level_width=width).one_query is None  # the curve's
    assert sp.model_specials(info, profile, "delta", space=latency, level_width=width,
                             with_one_query=True).one_query is None  # its own prediction already
    _, batch = _job((1024,))
    assert sp.model_specials(info, profile, "delta", space=batch, level_width=width, with_one_query=True).one_query is None
    record = Record(graph=info, algorithm="delta", device={"name": "test GPU"}, strategy="bayes-tpe", trial=3,
                    phase="search", roles=(sp.ONE_QUERY,), measurement=Measurement(expected, Status.OK, (5.2,)))
    assert sp.recorded_specials([record], info, profile, "delta", space=every).one_query == expected
