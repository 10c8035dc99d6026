"""LaunchConfig and the algorithms' checks of it: the JSON form tables store, round trips, the
configurations written before the algorithm field, and one-line errors."""
from __future__ import annotations

import json

import pytest

from autotune.algorithms import config_from_json, get, load_config
from autotune.algorithms.thesis import CRAUSER
from autotune.errors import InputError
from autotune.launch import CacheState, KernelLaunch, LaunchConfig

ISSUE_EXAMPLE = {
    "concurrent_kernels": 8,
    "kernels": {
        "relax": {"block_size": 256, "cache": "prefer_l1", "lanes": 8},
        "minimum": {"block_size": 128, "cache": "default"},
        "update": {"block_size": 128, "cache": "no_l1"},
    },
}


def test_issue_example_round_trips_exactly_with_its_algorithm_named():
    config = config_from_json(ISSUE_EXAMPLE)
    assert config.algorithm == "crauser"
    assert config.to_json() == {"algorithm": "crauser", **ISSUE_EXAMPLE}
    assert config_from_json(config.to_json()) == config
    assert config.relax == KernelLaunch(256, CacheState.PREFER_L1, 8)
    assert config.lanes == 8
    assert config_from_json(ISSUE_EXAMPLE, default_algorithm="martin").algorithm == "martin"


def test_configs_are_hashable_values():
    a = LaunchConfig.from_json(ISSUE_EXAMPLE)
    b = LaunchConfig.from_json(json.loads(json.dumps(ISSUE_EXAMPLE)))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.key() == b.key()
    assert a != a.replace(concurrent_kernels=4)


def test_default_is_the_thesis_default():
    config = CRAUSER.default_config()
    assert config.concurrent_kernels == 1 and config.lanes == 1
    assert {launch.block_size for launch in config.kernels.values()} == {256}
    assert {launch.cache for launch in config.kernels.values()} == {CacheState.DEFAULT}


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(concurrent_kernels=0), "concurrent_kernels"),
        (lambda d: d["kernels"]["relax"].update(block_size=1056), "multiple of the warp size"),
        (lambda d: d["kernels"]["minimum"].update(block_size=48), "multiple of the warp size"),
        (lambda d: d["kernels"]["update"].update(cache="huge"), "unknown cache state"),
        (lambda d: d["kernels"]["relax"].update(lanes=3), "lanes"),
        (lambda d: d["kernels"]["minimum"].update(lanes=2), "lanes applies to relax"),
        (lambda d: d["kernels"].pop("update"), "missing update"),
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d.update(algorithm="bfs"), "unknown algorithm 'bfs'"),
        (lambda d: d.update(params={"delta": 4}), "crauser has no parameter"),
    ],
)
def test_invalid_json_names_the_problem(mutate, message):
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    mutate(data)
    with pytest.raises(InputError, match=message):
        config_from_json(data)


def test_load_config_reports_file_and_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n  "concurrent_kernels": 1,\n  "kernels": ]\n}')
    with pytest.raises(InputError, match=r"c\.json:3: invalid JSON"):
        load_config(str(path))
    path.write_text(json.dumps(ISSUE_EXAMPLE))
    assert load_config(str(path)) == config_from_json(ISSUE_EXAMPLE)
    assert load_config(json.dumps(ISSUE_EXAMPLE)) == config_from_json(ISSUE_EXAMPLE)


DELTA_EXAMPLE = {
    "algorithm": "delta", "concurrent_kernels": 64,
    "kernels": {"advance": {"block_size": 512, "cache": "default"}, "split": {"block_size": 256, "cache": "no_l1"}},
    "params": {"delta": 32, "loop": "host", "blocks": 2, "warp_threshold": 32, "block_threshold": "off",
               "defer_work": "off", "tiles": 2},
}


def test_a_delta_configuration_round_trips_with_its_parameters():
    config = config_from_json(DELTA_EXAMPLE)
    assert config.to_json() == DELTA_EXAMPLE and config_from_json(config.to_json()) == config
    assert config.param("delta") == 32 and config.param("block_threshold") == "off"
    assert config.advance.block_size == 512 and str(config).startswith("delta CK64")
    assert config.replace(delta="inf").param("delta") == "inf"
    # a configuration of before defer_work (tables, records) defers nothing; only a grid defers
    # and one of before `tiles` cut tiles for 2 a block; only a grid sets either
    before = {k: v for k, v in DELTA_EXAMPLE["params"].items() if k not in ("defer_work", "tiles")}
    assert config_from_json({**DELTA_EXAMPLE, "params": before}) == config
    grid = {**DELTA_EXAMPLE["params"], "loop": "persistent", "defer_work": 64, "tiles": 4}
    assert config_from_json({**DELTA_EXAMPLE, "params": grid}).param("defer_work") == 64
    assert config_from_json({**DELTA_EXAMPLE, "params": grid}).param("tiles") == 4
    one_block = config_from_json({**DELTA_EXAMPLE, "params": {**grid, "blocks": 1}})
    assert (one_block.param("defer_work"), one_block.param("tiles")) == ("off", 2)


def test_a_persistent_delta_solve_is_one_launch_so_split_takes_advance_s():
    persistent = dict(DELTA_EXAMPLE, params={**DELTA_EXAMPLE["params"], "loop": "persistent"})
    config = config_from_json(persistent)
    assert config.split == config.advance == KernelLaunch(512)
    assert config_from_json({**persistent, "kernels": {**persistent["kernels"], "split": {"block_size": 32}}}) == config


@pytest.mark.parametrize(
    "params, message",
    [
        ({"delta": 0}, "delta must be an integer >= 1 or 'inf'"),
        ({"loop": "device"}, "loop must be 'host', 'persistent' or 'shared'"),
        ({"block_threshold": 8}, "block_threshold must be an integer >= 32 or 'off'"),
        ({"width": 3}, "delta has no parameter"),
    ],
)
def test_a_bad_delta_parameter_is_named(params, message):
    with pytest.raises(InputError, match=message):
        config_from_json({**DELTA_EXAMPLE, "params": {**DELTA_EXAMPLE["params"], **params}})


def test_every_algorithm_defaults_to_the_thesis_default_launch():
    for name in ("crauser", "martin", "delta"):
        config = get(name).default_config()
        assert config.algorithm == name and config.concurrent_kernels == 1
        assert {launch.block_size for launch in config.kernels.values()} == {256}
