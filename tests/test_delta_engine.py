"""The Delta-stepping engine's pure decisions (no GPU): when `solve_block` keeps its duplicate
stamps in shared memory, the state fields it reads from the kernel source, and the bin thresholds
it passes."""
from __future__ import annotations

import re

from autotune.algorithms import get
from autotune.algorithms.delta.shared import bitmap_words
from autotune.algorithms.delta.engine import state_fields

H100_SMS = 132


def test_bitmaps_of_n_bits_when_every_instance_has_an_sm_and_they_fit():
    assert bitmap_words(87_575, 1, H100_SMS, 200_000) == 2737  # ceil(87,575 / 32)
    assert bitmap_words(64, H100_SMS, H100_SMS, 32) == 2  # four bitmaps of two words


def test_global_stamps_when_instances_share_sms_or_the_bitmaps_do_not_fit():
    assert bitmap_words(87_575, H100_SMS + 1, H100_SMS, 10**9) == 0  # residency unknown: none beyond the SMs
    assert bitmap_words(1_048_576, 1, H100_SMS, 200_000) == 0  # rmat20: four bitmaps are 512 KiB
    assert bitmap_words(64, 1, H100_SMS, 31) == 0


def test_bitmaps_beyond_the_sm_count_where_they_cost_no_residency():
    from autotune.model.device import load_device
    from autotune.model.occupancy import blocks_with_extra_shared

    h100 = load_device("hopper-h100")

    def resident(block_size: int, base: int):
        return blocks_with_extra_shared(h100, 56, base, block_size)

    usa_roads, queues = 87_575, 16_384  # 2,737 words: 43,792 bytes of bitmaps
    assert bitmap_words(usa_roads, 1024, H100_SMS, 150_000, resident(1024, queues)) == 2737  # one block per SM anyway
    assert bitmap_words(usa_roads, 1024, H100_SMS, 150_000, resident(512, queues)) == 2737  # two blocks fit both ways
    assert bitmap_words(usa_roads, 1024, H100_SMS, 150_000, resident(128, queues)) == 0  # nine blocks would drop to three


def test_solve_block_takes_the_bitmap_words_last():
    source = get("delta").source_path.read_text()
    signature = re.search(r"void (?:__maxnreg__\(\d+\) )?solve_block\((.*?)\)\s*\{", source, re.S).group(1)
    assert signature.split(",")[-1].split() == ["int", "bitmap_words"]
    assert state_fields(source)["F_DONE"] == 0


def test_a_bin_no_vertex_reaches_is_passed_as_off():
    from autotune.algorithms.delta import OFF, threshold_argument

    assert threshold_argument(1024, max_degree=6) == 0  # usa-roads: the block bin would find nobody
    assert threshold_argument(6, max_degree=6) == 6  # a vertex of exactly the threshold is in the bin
    assert threshold_argument(32, max_degree=None) == 32
    assert threshold_argument(OFF, max_degree=10**6) == 0


def test_a_target_query_stops_early_unless_its_grid_defers():
    from autotune.algorithms.delta.engine import stops_early
    from autotune.launch import LaunchConfig

    def config(**params):
        kernel = {"block_size": 512, "cache": "default"}
        return LaunchConfig.from_json({"algorithm": "delta", "concurrent_kernels": 1,
                                       "kernels": {"advance": kernel, "split": kernel},
                                       "params": {"block_threshold": 512, "delta": "inf", "loop": "persistent",
                                                  "tiles": 2, "warp_threshold": "off", **params}})

    assert not stops_early(config(blocks=128, defer_work=100))  # the TARGETED build would drop the deferral
    assert stops_early(config(blocks=64, defer_work="off"))
    assert stops_early(config(blocks=1, defer_work="off"))
    assert stops_early(config(blocks=4, defer_work="off", loop="host"))


def test_the_iteration_cap_fits_the_kernels_int_on_the_largest_graphs():
    """rmat24's 16.8M vertices x delta_lanes' 128 iterations a vertex passed 2^31 - 1: the sweep died
    packing the cap as an int32 (suite `large` at 821c5b2)."""
    from types import SimpleNamespace

    from autotune.algorithms.delta_lanes.engine import LanesSolver
    from autotune.gpu.engine import KERNEL_INT_MAX, Solver

    for engine, n in ((LanesSolver, 2**24), (LanesSolver, 1000), (Solver, 2**30)):
        fake = SimpleNamespace(graph=SimpleNamespace(n_vertices=n), iterations_per_vertex=engine.iterations_per_vertex)
        cap = Solver.max_iterations(fake)
        assert cap == min(engine.iterations_per_vertex * (n + 2), KERNEL_INT_MAX) and cap <= KERNEL_INT_MAX
    assert LanesSolver.iterations_per_vertex == 32 * Solver.iterations_per_vertex
