"""A configuration's neighbours (`search.neighbours`) and where a sweep measures the prediction's."""
from __future__ import annotations

from autotune import algorithms
from autotune.search.space.neighbours import block_neighbours, neighbourhood, parameter_neighbours
from autotune.search.space import SearchSpace
from autotune.search.run.specials import Specials
from autotune.search.strategies import Bayes, Exhaustive, ModelOnly

DELTA = algorithms.get("delta")
SPACE = SearchSpace("delta", block_sizes=(64, 128, 256, 512, 1024), concurrent_kernels=(1, 1024),
                    params={"delta": (16, 32, 64, "inf"), "warp_threshold": (16, 32, 64, "off"),
                            "blocks": (1, 2, 4), "loop": ("persistent", "host")})


def _params(configs, name):
    return [c.param(name) for c in configs]


def test_block_sizes_halve_and_double_within_the_space():
    config = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 32})
    assert [c.kernel("advance").block_size for c in block_neighbours(config, SPACE)] == [128, 512]
    largest = DELTA.uniform(1024, concurrent_kernels=1024, params={"delta": 32})
    assert [c.kernel("advance").block_size for c in block_neighbours(largest, SPACE)] == [512]


def test_an_integer_parameter_steps_to_the_values_beside_it_named_ones_included():
    config = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 64, "warp_threshold": 64, "blocks": 1})
    around = parameter_neighbours(config, SPACE)
    moved = [(name, c.param(name)) for c in around for name in ("delta", "warp_threshold", "blocks")
             if c.param(name) != config.param(name)]
    assert moved == [("delta", 32), ("delta", "inf"), ("blocks", 2), ("warp_threshold", 32), ("warp_threshold", "off")]
    assert all(c.param("loop") == config.param("loop") for c in around)  # a choice has no order


def test_the_neighbourhood_puts_block_sizes_first_and_is_empty_outside_the_space():
    config = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 32})
    around = neighbourhood(config, SPACE)
    assert around[:2] == block_neighbours(config, SPACE)
    assert len(around) == len(set(around)) and config not in around and all(SPACE.contains(c) for c in around)
    assert neighbourhood(config.replace(concurrent_kernels=64), SPACE) == []


def test_specials_put_the_neighbours_right_after_a_prediction_that_comes_first():
    prediction = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 32})
    default = DELTA.default_config()
    around = block_neighbours(prediction, SPACE)
    batch = Specials(default, prediction=prediction)
    assert batch.first([prediction, default, around[1]], around) == [prediction, *around, default]
    assert batch.first([default, prediction], around) == [default, prediction]  # not first, not leading
    leading = Specials(default, prediction=prediction, leads=True)
    assert leading.first([default, prediction], around) == [prediction, *around, default]


def test_only_a_sampling_search_measures_the_prediction_s_neighbourhood():
    prediction = DELTA.uniform(256, concurrent_kernels=1024, params={"delta": 32})
    assert Bayes(trials=15).neighbourhood(SPACE, prediction) == neighbourhood(prediction, SPACE)
    assert Bayes(trials=15).neighbourhood(SPACE, None) == []
    assert Exhaustive().neighbourhood(SPACE, prediction) == ModelOnly().neighbourhood(SPACE, prediction) == []
