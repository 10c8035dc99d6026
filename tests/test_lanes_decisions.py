"""Lane-interleaved Delta-stepping's pure decisions (no GPU): groups, blocks, workspace size, and
its configurations in the registry."""
from __future__ import annotations

from autotune import algorithms
from autotune.algorithms.delta_lanes import LANES, blocks_per_group, groups_of
from autotune.algorithms.delta.engine import state_fields


def test_a_batch_takes_whole_groups_of_32_lanes():
    assert [groups_of(ck) for ck in (1, 31, 32, 33, 64, 1000)] == [1, 1, 1, 2, 2, 32]


def test_the_advance_fills_every_sm_whatever_the_groups():
    for groups in (1, 3, 32):
        blocks = blocks_per_group(2, 132, groups)
        assert blocks * groups >= 2 * 132 > (blocks - 1) * groups


def test_the_workspace_per_instance_matches_the_engines_allocations():
    lanes = algorithms.get("delta_lanes")
    fields = state_fields(lanes.source_path.read_text())["N_FIELDS"]
    n, groups = 1000, 4
    allocated = 4 * LANES * n * groups + 2 * 4 * 4 * n * groups + 4 * fields * groups + 4 * LANES * groups
    assert lanes.bytes_per_vertex * n * LANES * groups >= allocated - 4 * fields * groups - 4 * LANES * groups
    assert (lanes.bytes_per_vertex * n + lanes.bytes_per_instance) * LANES * groups >= allocated


def test_it_is_registered_with_its_own_kernels_and_parameters():
    lanes = algorithms.get("delta_lanes")
    assert "delta_lanes" in algorithms.names()
    assert lanes.compiled_functions() == {"advance": ("lanes_advance",), "split": ("lanes_finish",)}
    config = lanes.default_config()
    assert config.params == {"delta": "inf", "blocks_per_sm": 2}
    assert min(lanes.concurrent_kernels) == LANES
