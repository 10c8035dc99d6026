"""SearchSpace: option parsing, the uniform grid, the joint space's Optuna view, validity."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optuna.distributions import IntDistribution

from autotune.algorithms import get
from autotune.errors import InputError
from autotune.model import GraphFeatures
from autotune.search import SearchSpace
from autotune.launch import CacheState, KernelLaunch, LaunchConfig
from autotune.algorithms.thesis import CRAUSER


def test_default_space_is_the_issue_s_space():
    space = SearchSpace()
    assert space.block_sizes == tuple(range(32, 1025, 32))
    assert space.caches == tuple(CacheState)
    assert space.concurrent_kernels == (1, 2, 4, 8, 16, 32, 64)
    assert space.lanes == (1, 2, 4, 8, 16, 32)
    assert space.uniform_size == 32 * 4 * 7 * 6


def test_options_narrow_the_space_and_accept_ranges():
    space = SearchSpace.from_options(block_sizes="64-160,512", caches="prefer-l1,no_l1", ck="4,1", lanes="8")
    assert space.block_sizes == (64, 96, 128, 160, 512)
    assert space.caches == (CacheState.PREFER_L1, CacheState.NO_L1)
    assert space.concurrent_kernels == (1, 4)
    assert space.uniform_size == 5 * 2 * 2 * 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"block_sizes": "48"}, "--block-sizes: 48 is not a multiple of the warp size (32)"),
        ({"block_sizes": "2048"}, "--block-sizes: 2048 is not a multiple"),
        ({"block_sizes": "abc"}, "--block-sizes: 'abc' is not an integer"),
        ({"block_sizes": "512-64"}, "runs backwards"),
        ({"caches": "huge_l1"}, "--caches: unknown cache state 'huge_l1'"),
        ({"ck": "0"}, "--ck: 0 is outside"),
        ({"lanes": "3"}, "--lanes: 3 is not one of"),
        ({"ck": ","}, "--ck: give at least one value"),
    ],
)
def test_bad_options_name_the_option_and_the_value(options, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SearchSpace.from_options(**options)


def test_kernel_limits_cut_block_sizes_per_kernel_and_for_uniform_runs():
    space = SearchSpace.from_options(block_sizes="128,256,512", kernel_limits={"relax": 256})
    assert space.kernel_block_sizes("relax") == (128, 256)
    assert space.kernel_block_sizes("minimum") == (128, 256, 512)
    assert space.uniform_block_sizes == (128, 256)
    with pytest.raises(InputError, match="none of 512 fits relax"):
        SearchSpace.from_options(block_sizes="512", kernel_limits={"relax": 256})


def test_uniform_grid_enumerates_every_uniform_configuration(small_space):
    configs = small_space.uniform_configs()
    assert len(configs) == small_space.uniform_size == len({c.key() for c in configs})
    for config in configs:
        launches = {(k.block_size, k.cache) for k in config.kernels.values()}
        assert len(launches) == 1 and small_space.contains(config)


def test_distributions_keep_the_order_where_there_is_one():
    space = SearchSpace.from_options(block_sizes="64,128,256,512", ck="1,2,4,8", lanes="1,4,32")
    distributions = space.distributions()
    assert distributions["relax_block_size_log2"] == IntDistribution(6, 9)
    assert distributions["concurrent_kernels_log2"] == IntDistribution(0, 3)
    assert distributions["relax_lanes_index"] == IntDistribution(0, 2)  # 1, 4, 32 by position
    arithmetic = SearchSpace.from_options(block_sizes="96-192").distributions()
    assert arithmetic["minimum_block_size"] == IntDistribution(96, 192, step=32)
    assert set(distributions) == {f"{k}_{p}" for k in ("relax", "minimum", "update") for p in ("block_size_log2", "cache")} | {
        "relax_lanes_index", "concurrent_kernels_log2"}
    gappy = SearchSpace.from_options(ck="1,4,16,64", lanes="1,4,32")
    config = CRAUSER.uniform(256, concurrent_kernels=16, lanes=32)
    assert gappy.to_params(config)["concurrent_kernels_index"] == 2
    assert gappy.from_params(gappy.to_params(config)) == config


@settings(max_examples=60, deadline=None)
@given(
    blocks=st.tuples(*[st.sampled_from([64, 128, 256, 512])] * 3),
    caches=st.tuples(*[st.sampled_from(list(CacheState))] * 3),
    ck=st.sampled_from([1, 2, 4, 8]),
    lanes=st.sampled_from([1, 2, 4, 8, 16]),
)
def test_joint_params_round_trip(blocks, caches, ck, lanes):
    space = SearchSpace.from_options(block_sizes="64,128,256,512", ck="1,2,4,8", lanes="1,2,4,8,16")
    config = LaunchConfig.of(ck, relax=KernelLaunch(blocks[0], caches[0], lanes),
                             minimum=KernelLaunch(blocks[1], caches[1]), update=KernelLaunch(blocks[2], caches[2]))
    params = space.to_params(config)
    assert space.from_params(params) == config
    distributions = space.distributions()
    for name, value in params.items():
        assert distributions[name]._contains(distributions[name].to_internal_repr(value))


def test_why_not_says_what_is_outside(small_space):
    assert small_space.why_not(CRAUSER.uniform(128)) is None
    assert "CK 8" in small_space.why_not(CRAUSER.uniform(128, concurrent_kernels=8))
    assert "lanes 2" in small_space.why_not(CRAUSER.uniform(128, lanes=2))
    assert "relax: block size 512" in small_space.why_not(CRAUSER.uniform(512))
    assert "cache prefer_shared" in small_space.why_not(CRAUSER.uniform(128, "prefer_shared"))


def test_digest_is_stable_and_tells_spaces_apart(small_space):
    again = SearchSpace.from_options(block_sizes="256,128,64", caches="default,prefer_l1,no_l1", ck="4,2,1", lanes="4,1")
    assert small_space.digest() == again.digest()
    assert small_space.digest() != SearchSpace.from_options(block_sizes="64,128").digest()


def test_delta_s_domain_comes_from_the_graph_s_weights_and_the_options_narrow_it():
    from autotune.model import GraphFeatures

    roads = GraphFeatures("roads", 87575, 242982, max_degree=6, min_positive_weight=10, max_weight=2467,
                          mean_weight=95.3)
    space = SearchSpace.from_options("delta", graph=roads)
    deltas = space.param_values("delta")
    assert deltas[0] == 8 and deltas[-2] == 65536 and deltas[-1] == "inf"  # 2^3 <= 10, 16 x 2467 <= 2^16
    narrowed = SearchSpace.from_options("delta", params=["delta=1024,inf", "loop=persistent"], graph=roads)
    assert narrowed.param_values("delta") == (1024, "inf") and narrowed.param_values("loop") == ("persistent",)
    with pytest.raises(InputError, match="--param delta: delta must be an integer >= 1 or 'inf'"):
        SearchSpace.from_options("delta", params=["delta=x"])
    with pytest.raises(InputError, match="delta has no parameter 'lanes'"):
        SearchSpace.from_options("delta", params=["lanes=4"])


@settings(max_examples=50, deadline=None)
@given(delta=st.sampled_from([1, 64, 1024, "inf"]), loop=st.sampled_from(["host", "persistent", "shared"]),
       blocks=st.sampled_from([1, 8, 128]), advance=st.sampled_from([64, 512]), split=st.sampled_from([128, 1024]))
def test_delta_params_round_trip_in_canonical_form(delta, loop, blocks, advance, split):
    space = SearchSpace.from_options("delta", params=["delta=1,64,1024,inf"])
    config = get("delta").validate(LaunchConfig.of(4, "delta", {"delta": delta, "loop": loop, "blocks": blocks},
                                                   advance=KernelLaunch(advance), split=KernelLaunch(split)))
    assert space.from_params(space.to_params(config)) == config
    assert (config.split == config.advance) == (loop in ("persistent", "shared") or advance == split)
    assert config.param("blocks") == (1 if loop == "shared" else blocks)


def test_the_shared_loop_is_searched_only_on_graphs_that_fit_in_shared_memory():
    from autotune.search.strategies import initial_design

    small = GraphFeatures("rome-like", 3353, 8859, max_degree=8, mean_weight=100, min_positive_weight=1, max_weight=9000)
    large = GraphFeatures("roads", 87575, 242982, max_degree=9, mean_weight=100, min_positive_weight=1, max_weight=2467)
    assert SearchSpace.from_options("delta", graph=small).param_values("loop") == ("host", "persistent", "shared")
    assert SearchSpace.from_options("delta", graph=large).param_values("loop") == ("host", "persistent")
    design = initial_design(SearchSpace.from_options("delta", ck="1", graph=small))
    assert any(c.param("loop") == "shared" and c.param("blocks") == 1 for c in design)
    assert not any(c.param("loop") == "shared" for c in initial_design(SearchSpace.from_options("delta", ck="1",
                                                                                                 graph=large)))
