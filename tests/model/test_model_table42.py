"""The model reproduces thesis Table 4.2 on the thesis's GPUs and graphs, by computing.

For fermi-gf100 and kepler-gk104 and the graphs random24k/49k/98k with d(G) 2, 20, 200, the
predicted block size of each kernel is one of the candidates Table 4.2 lists for the graph's
stressing class, and the predicted L1 state is the one it lists. The model derives both from the
shipped characterization (classes of Table 4.1, registers compiled by nvcc) and the occupancy
calculated from the device profiles: no value below is read by the model, and the tests at the end
show the answers move when the occupancy does.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from autotune.model import (
    GraphFeatures,
    KernelResources,
    Level,
    load_device,
    max_occupancy_block_sizes,
)
from autotune.model.characterization import Characterization
from autotune.algorithms.thesis.rules import predict

# Thesis Table 4.2, transcribed: kernel -> stressing class -> (Fermi sizes, Kepler sizes, L1 state).
# Its L1 names: Increased = prefer_l1, Disconnected = no_l1 (thesis 4.5.2).
TABLE_4_2 = {
    "relax": {
        "low": ({192}, {128}, "prefer_l1"),
        "medium": ({192, 256}, {128, 256}, "prefer_l1"),
        "high": ({192, 256, 384}, {256}, "prefer_l1"),
    },
    "minimum": {
        "low": ({128, 192}, {96, 128}, "prefer_l1"),
        "medium": ({128, 192}, {96, 128}, "prefer_l1"),
        "high": ({128, 192}, {96, 128}, "no_l1"),
    },
    "update": {
        "low": ({192}, {128}, "prefer_l1"),
        "medium": ({192}, {128}, "prefer_l1"),
        "high": ({192}, {128}, "no_l1"),
    },
}
# Thesis 3.3.2 / 4.6.2: the sizes and their designed stressing classes.
SIZES = {"24k": (24576, "low"), "49k": (49152, "medium"), "98k": (98304, "high")}
DEGREES = (2, 20, 200)
GRAPHS = [(size, degree) for size in SIZES for degree in DEGREES]
DEVICES = {"fermi-gf100": 0, "kepler-gk104": 1}


def _features(size: str, degree: int) -> GraphFeatures:
    return GraphFeatures.from_mean_degree(f"random{size}-d{degree}", SIZES[size][0], degree)


@pytest.mark.parametrize("device_name", sorted(DEVICES))
@pytest.mark.parametrize("size, degree", GRAPHS, ids=[f"{s}-d{d}" for s, d in GRAPHS])
def test_predictions_are_table_4_2_candidates(device_name, size, degree, sssp):
    device = load_device(device_name)
    prediction = predict(_features(size, degree), device, sssp)
    st_class = prediction.graph.stress_class.value
    assert st_class == SIZES[size][1], "the thesis's graph falls in the thesis's stressing class"
    for kernel in ("relax", "minimum", "update"):
        sizes, cache = TABLE_4_2[kernel][st_class][DEVICES[device_name]], TABLE_4_2[kernel][st_class][2]
        launch = prediction.config.kernels[kernel]
        assert launch.block_size in sizes, f"{kernel}: {launch.block_size} not in Table 4.2's {sorted(sizes)}"
        assert launch.cache.value == cache, f"{kernel}: {launch.cache.value}, Table 4.2 says {cache}"


# Thesis Table 4.4: the best block sizes measured (exhaustive search), same order as GRAPHS.
TABLE_4_4_BEST = {
    ("fermi-gf100", "relax"): [{192}, {192}, {192}, {192}, {192, 256}, {256}, {192}, {256}, {384}],
    ("fermi-gf100", "minimum"): [{128}] * 6 + [{192}] * 3,
    ("fermi-gf100", "update"): [{192}] * 9,
    ("kepler-gk104", "relax"): [{128}] * 3 + [{256}] * 6,
    ("kepler-gk104", "minimum"): [{96}] * 6 + [{128}] * 3,
    ("kepler-gk104", "update"): [{128}] * 9,
}


def test_block_sizes_agree_with_the_measured_best_of_table_4_4(sssp):
    agree, cases, misses = 0, 0, []
    for (device_name, kernel), best in TABLE_4_4_BEST.items():
        device = load_device(device_name)
        for (size, degree), sizes in zip(GRAPHS, best):
            block = predict(_features(size, degree), device, sssp).config.kernels[kernel].block_size
            cases += 1
            if block in sizes:
                agree += 1
            else:
                misses.append(f"{device_name} {kernel} {size}-d{degree}: {block} vs {sorted(sizes)}")
    # Misses: Fermi relax 98k-d2 (256 vs 192) and 98k-d200 (256 vs 384), Kepler relax 49k-d2 and
    # 49k-d20 (128 vs 256); all four are Table 4.2 candidates.
    assert cases == 54
    assert agree >= 50, misses


def test_answers_follow_the_occupancy_not_a_table(sssp, fermi):
    # A relax compiled to 32 registers cannot keep 48 warps on Fermi: 32768 / 1024 = 32 warps, so
    # the sizes that maximize occupancy become 128/256/512/1024, and low st takes 128.
    heavy = replace(sssp.kernel("relax"), resources=KernelResources(32))
    kernels = dict(sssp.kernels, relax=heavy)
    characterization = Characterization(kernels=kernels)
    assert max_occupancy_block_sizes(fermi, heavy.resources) == (128, 256, 512, 1024)
    prediction = predict(_features("24k", 2), fermi, characterization)
    assert prediction.config.relax.block_size == 128
    # A Fermi that held 16 blocks per SM would maximize occupancy from 96 threads on.
    roomy = replace(fermi, max_blocks_per_sm=16)
    assert predict(_features("24k", 2), roomy, sssp).config.update.block_size == 96
    # Twice the SMs halve st(G, GPU): 98k falls to medium stress, and update keeps an increased L1.
    wide = replace(fermi, sm_count=30)
    prediction = predict(_features("98k", 2), wide, sssp)
    assert prediction.graph.stress_class is Level.MEDIUM
    assert prediction.config.update.cache.value == "prefer_l1"
