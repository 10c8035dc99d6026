"""The rules: what they imply on sm_90, every branch with its trace, CK, lanes, and errors."""
from __future__ import annotations

from dataclasses import replace

import pytest

from autotune.errors import InputError
from autotune.model import (
    AccessPattern,
    ByDegree,
    Characterization,
    GraphFeatures,
    KernelCharacterization,
    KernelResources,
    Level,
    baseline_block_sizes,
)
from autotune.algorithms.thesis.rules import predict, predict_lanes
from autotune.launch import CacheState, LaunchConfig

RMAT17 = GraphFeatures("rmat17", n_vertices=131072, n_edges=3728785)  # autotune graph info rmat17
RANDOM98K_D20 = GraphFeatures.from_mean_degree("random98k-d20", 98304, 20)


def _kernel(name="relax", pattern="coalesced", load="low", sharing="low", accesses="low", **resources) -> KernelCharacterization:
    return KernelCharacterization(
        name=name,
        memory_access_pattern=AccessPattern(pattern),
        computational_load=Level(load),
        data_sharing=ByDegree.constant(Level(sharing)),
        memory_accesses=ByDegree.constant(Level(accesses)),
        resources=KernelResources(**({"registers_per_thread": 16} | resources)),
    )


def _with(sssp: Characterization, **kernels: KernelCharacterization) -> Characterization:
    return Characterization(kernels={**sssp.kernels, **kernels})


def test_hopper_rmat17(hopper, sssp):
    prediction = predict(RMAT17, hopper, sssp)
    assert prediction.graph.stress_class is Level.LOW and prediction.graph.degree_class is Level.MEDIUM
    assert prediction.config == LaunchConfig.from_json(
        {
            "concurrent_kernels": 1,
            "kernels": {
                "relax": {"block_size": 256, "cache": "prefer_l1", "lanes": 16},
                "minimum": {"block_size": 384, "cache": "prefer_l1"},
                "update": {"block_size": 256, "cache": "prefer_l1"},
            },
        }
    )
    rules = prediction.rules()
    assert rules["relax.cache"] == "4.6.5 (4)"
    assert rules["relax.block_size"] == "4.6.5 (1)ii"
    assert rules["minimum.block_size"] == "4.6.5 (2)"
    assert rules["update.block_size"] == "4.6.5 (1)i"
    assert rules["concurrent_kernels"] == "4.6.4"
    # Why 256 and not 64: with prefer_l1 (carveout 0) each block's 1 KB reserve must fit in the
    # 8 KB configuration, so 8 blocks per SM: 256 threads is the smallest size that fills the SM.
    relax = prediction.kernels["relax"]
    assert relax.maximizing_block_sizes == (256, 512, 1024)
    row64 = next(row for row in relax.occupancy if row.block_size == 64)
    assert row64.limited_by == ("shared_memory",) and row64.blocks_per_sm == 8
    # relax's DSr is counted low at low st although Table 4.1 gives medium for d(G) 28.4.
    assert relax.classes.data_sharing_table is Level.MEDIUM and relax.classes.data_sharing is Level.LOW
    # d(G) > 20: relax makes many memory accesses: CK 1 (4.6.4).
    assert relax.concurrent_kernels == 1


def test_hopper_random98k_d20(hopper, sssp):
    prediction = predict(RANDOM98K_D20, hopper, sssp)
    assert str(prediction.config) == "crauser CK4 relax=256:prefer_l1/L16 minimum=384:prefer_l1 update=256:prefer_l1"


def test_hopper_without_the_carveout_would_take_64(hopper, sssp):
    # The same rules on the default carveout's table: 64 threads maximize occupancy (32 blocks).
    relax = predict(RMAT17, hopper, sssp).kernels["relax"]
    from autotune.model import max_occupancy_block_sizes

    assert max_occupancy_block_sizes(hopper, sssp.kernel("relax").resources)[0] == 64
    assert relax.launch.block_size == 256


def test_high_stress_on_hopper(hopper, sssp):
    big = GraphFeatures.from_mean_degree("random1m-d4", 1 << 20, 4)  # st = 3.9
    prediction = predict(big, hopper, sssp)
    assert prediction.graph.stress_class is Level.HIGH
    assert prediction.config.update.cache is CacheState.NO_L1
    assert prediction.config.minimum.cache is CacheState.NO_L1
    assert prediction.config.relax.cache is CacheState.PREFER_L1  # high DSr (4)
    # no_l1 keeps the full carveout: 64 threads maximize occupancy again.
    assert prediction.config.update.block_size == 64
    assert prediction.config.minimum.block_size == 64  # (1)iii
    assert prediction.rules()["minimum.block_size"] == "4.6.5 (1)iii"
    assert prediction.rules()["relax.block_size"] == "4.6.5 (3)"
    assert prediction.config.relax.block_size == 512  # the maximizing size after 256


def test_premise_of_a_larger_l1(kepler, sssp):
    # 12 KB of shared memory per block: 4 blocks in 48 KB (2048 threads at 512 per block), but
    # prefer_l1's 16 KB holds one (1024 threads at most). The larger L1 would lower occupancy:
    # keep the normal L1.
    heavy = replace(sssp.kernel("update"), resources=KernelResources(12, static_shared_memory_bytes=12 * 1024))
    prediction = predict(GraphFeatures.from_mean_degree("g", 4096, 2), kepler, _with(sssp, update=heavy))
    assert prediction.config.update.cache is CacheState.PREFER_SHARED
    assert prediction.rules()["update.cache"] == "4.5.2 premise"


def test_generalized_branches(fermi, sssp):
    low_st = GraphFeatures.from_mean_degree("g", 8192, 2)
    cases = {
        # scatter, low CLr: memory-bound, needs every warp: (1) generalized.
        "update": (_kernel("update", "scatter", "low"), "4.6.5 (1), generalized", 192),
        # coalesced with high CLr: more computation than needed, low st: (2) generalized.
        "minimum": (_kernel("minimum", "coalesced", "high"), "4.6.5 (2), generalized", 128),
        # coalesced with high DSr: (3) generalized, the second maximizing size.
        "relax": (_kernel("relax", "coalesced", "low", sharing="high"), "4.6.5 (3), generalized", 256),
    }
    prediction = predict(low_st, fermi, _with(sssp, **{name: kernel for name, (kernel, _, _) in cases.items()}))
    for name, (_, rule, block) in cases.items():
        assert prediction.rules()[f"{name}.block_size"] == rule
        assert prediction.config.kernels[name].block_size == block


def test_rule_2_without_a_smaller_size(hopper, sssp):
    # 64 blocks per SM: one warp per block maximizes occupancy, nothing is smaller.
    roomy = replace(hopper, max_blocks_per_sm=64, reserved_shared_memory_per_block=0)
    prediction = predict(RANDOM98K_D20, roomy, sssp)
    assert prediction.config.minimum.block_size == 32
    assert "none is smaller" in prediction.kernels["minimum"].decisions[1].reason


def test_concurrent_kernels(fermi, sssp):
    assert predict(GraphFeatures.from_mean_degree("g", 24576, 2), fermi, sssp).config.concurrent_kernels == 4
    assert predict(GraphFeatures.from_mean_degree("g", 24576, 200), fermi, sssp).config.concurrent_kernels == 1
    light = _with(sssp, relax=replace(sssp.kernel("relax"), memory_accesses=ByDegree.constant(Level.LOW)))
    assert predict(GraphFeatures.from_mean_degree("g", 24576, 2), fermi, light).config.concurrent_kernels == 8
    capped = replace(fermi, max_concurrent_kernels=6)
    prediction = predict(GraphFeatures.from_mean_degree("g", 24576, 2), capped, light)
    assert prediction.config.concurrent_kernels == 4
    assert "capped by the GPU's 6 concurrent kernels" in prediction.decisions[0].reason


@pytest.mark.parametrize("degree, lanes", [(0.5, 1), (1, 1), (2, 2), (3.9, 2), (20, 16), (28.4, 16), (32, 32), (200, 32)])
def test_lanes(degree, lanes, fermi):
    assert predict_lanes(degree, fermi).value == lanes


def test_lanes_never_exceed_the_warp(fermi):
    assert predict_lanes(100, replace(fermi, warp_size=16, max_threads_per_sm=1536)).value == 16


def test_lanes_only_for_relax(fermi, sssp):
    wrong = replace(sssp.kernel("minimum"), uses_lanes=True)
    with pytest.raises(InputError, match="applies to relax only"):
        predict(RANDOM98K_D20, fermi, _with(sssp, minimum=wrong))


def test_kernel_that_cannot_launch(fermi, sssp):
    fat = replace(sssp.kernel("update"), resources=KernelResources(200))
    with pytest.raises(InputError, match="kernel update cannot launch on fermi-gf100: 200 registers"):
        predict(RANDOM98K_D20, fermi, _with(sssp, update=fat))


def test_characterization_without_a_tuned_kernel(fermi, sssp):
    with pytest.raises(InputError, match=r"no \[kernels.update\] table"):
        predict(RANDOM98K_D20, fermi, Characterization(kernels={"relax": sssp.kernel("relax"), "minimum": sssp.kernel("minimum")}))


def test_trace_and_json(kepler, sssp):
    prediction = predict(GraphFeatures.from_mean_degree("random49k-d200", 49152, 200), kepler, sssp)
    relax = prediction.kernels["relax"]
    assert [d.parameter for d in relax.decisions] == ["cache", "block_size", "concurrent_kernels", "lanes"]
    assert relax.decisions[1].rule == "4.6.5 (3)"
    assert "jump from 128" in relax.decisions[1].reason
    assert relax.threads_per_instance == 49152 * 32
    assert prediction.kernels["minimum"].threads_per_instance == 49152 // 2
    data = prediction.to_json()
    assert LaunchConfig.from_json(data["config"]) == prediction.config
    assert data["classes"]["relax"]["data_sharing"] == "medium"
    assert set(data["rules"]) >= {"relax.block_size", "relax.lanes", "minimum.cache", "concurrent_kernels"}


def test_classified_graph_is_accepted(kepler, sssp):
    from autotune.model import classify

    features = GraphFeatures.from_mean_degree("g", 49152, 20)
    assert predict(classify(features, kepler), kepler, sssp).config == predict(features, kepler, sssp).config


def test_default_characterization_is_the_shipped_one(kepler, sssp):
    assert predict(RANDOM98K_D20, kepler).config == predict(RANDOM98K_D20, kepler, sssp).config


def test_baseline_block_sizes(fermi, kepler, hopper, sssp):
    assert baseline_block_sizes(fermi, sssp) == {name: (192, 256, 384, 512, 768) for name in ("relax", "minimum", "update")}
    assert baseline_block_sizes(kepler)["relax"] == (128, 256, 512, 1024)
    assert baseline_block_sizes(hopper)["minimum"] == (64, 128, 256, 512, 1024)


def test_every_shipped_device_predicts(sssp):
    from autotune.model import shipped_devices

    for device in shipped_devices():
        for features in (RMAT17, RANDOM98K_D20, GraphFeatures.from_mean_degree("big", 4 << 20, 300)):
            prediction = predict(features, device, sssp)
            for name, kernel in prediction.kernels.items():
                row = next(r for r in kernel.occupancy if r.block_size == kernel.launch.block_size)
                assert row.blocks_per_sm > 0, (device.name, name)
                assert row.occupancy >= 0.5, (device.name, name, row)
