"""LaunchConfig: the JSON form tables store, round trips, and one-line errors."""
from __future__ import annotations

import json

import pytest

from autotune.errors import InputError
from autotune.space import CacheState, KernelLaunch, LaunchConfig, load_config, parse_int_list

ISSUE_EXAMPLE = {
    "concurrent_kernels": 8,
    "kernels": {
        "relax": {"block_size": 256, "cache": "prefer_l1", "lanes": 8},
        "minimum": {"block_size": 128, "cache": "default"},
        "update": {"block_size": 128, "cache": "no_l1"},
    },
}


def test_issue_example_round_trips_exactly():
    config = LaunchConfig.from_json(ISSUE_EXAMPLE)
    assert config.to_json() == ISSUE_EXAMPLE
    assert config.relax == KernelLaunch(256, CacheState.PREFER_L1, 8)
    assert config.lanes == 8


def test_configs_are_hashable_values():
    a = LaunchConfig.from_json(ISSUE_EXAMPLE)
    b = LaunchConfig.from_json(json.loads(json.dumps(ISSUE_EXAMPLE)))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.key() == b.key()
    assert a != a.replace(concurrent_kernels=4)


def test_default_is_the_thesis_default():
    config = LaunchConfig.default()
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
        (lambda d: d["kernels"]["minimum"].update(lanes=2), "unknown key"),
        (lambda d: d["kernels"].pop("update"), "missing update"),
        (lambda d: d.update(extra=1), "unknown key"),
    ],
)
def test_invalid_json_names_the_problem(mutate, message):
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    mutate(data)
    with pytest.raises(InputError, match=message):
        LaunchConfig.from_json(data)


def test_load_config_reports_file_and_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n  "concurrent_kernels": 1,\n  "kernels": ]\n}')
    with pytest.raises(InputError, match=r"c\.json:3: invalid JSON"):
        load_config(str(path))
    path.write_text(json.dumps(ISSUE_EXAMPLE))
    assert load_config(str(path)) == LaunchConfig.from_json(ISSUE_EXAMPLE)
    assert load_config(json.dumps(ISSUE_EXAMPLE)) == LaunchConfig.from_json(ISSUE_EXAMPLE)


def test_parse_int_list():
    assert parse_int_list("32, 64,32", "--block-sizes") == (32, 64)
    with pytest.raises(InputError, match="--ck: 3 is not allowed"):
        parse_int_list("1,3", "--ck", allowed=(1, 2, 4))
    with pytest.raises(InputError, match="not an integer"):
        parse_int_list("1,x", "--ck")
