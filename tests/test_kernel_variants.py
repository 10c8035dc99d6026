"""The compiled builds of every algorithm's kernels (with nvcc, no GPU): the `no_l1` cache state
must really keep global loads out of L1; delta's grid solve spills nothing; the probes' builds of
delta.cu compile, and the traced one declares what its probe reads."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from autotune import algorithms

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def _global_loads(algorithm: str, no_l1: bool, tmp_path) -> dict[str, int]:
    """Counts of each kind of global load in the build's PTX (ld.global.nc: read-only path)."""
    entry = algorithms.get(algorithm)
    ptx = tmp_path / "kernels.ptx"
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", *entry.compile_options(no_l1), "-o", str(ptx),
                    str(entry.source_path)], check=True, capture_output=True)
    kinds: dict[str, int] = {}
    for kind in re.findall(r"\bld\.global(\.nc)?\.", ptx.read_text()):
        kinds["nc" if kind else "plain"] = kinds.get("nc" if kind else "plain", 0) + 1
    return kinds


@pytest.mark.parametrize("algorithm", algorithms.names())
def test_no_l1_loads_nothing_through_the_read_only_path(algorithm, tmp_path):
    # ld.global.nc (LDG.E.CONSTANT in SASS) is cached in L1 whatever -dlcm says; plain loads are
    # what -Xptxas -dlcm=cg turns into L2-only loads.
    cached = _global_loads(algorithm, False, tmp_path)
    uncached = _global_loads(algorithm, True, tmp_path)
    assert cached.get("nc", 0) > 0  # the other states do use it: the test can tell them apart
    assert uncached.get("nc", 0) == 0 and uncached["plain"] > 0
    assert "-Xptxas=-dlcm=cg" in algorithms.get(algorithm).compile_options(True)


def _resource_usage(options: list[str], tmp_path) -> str:
    entry = algorithms.get("delta")
    out = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "--resource-usage", *options, "-o",
                          str(tmp_path / "delta.cubin"), str(entry.source_path)],
                         check=True, capture_output=True, text=True)
    return out.stdout + out.stderr


def test_the_shipped_grid_solve_spills_at_most_five_words(tmp_path):
    # solve_grid runs one query on R-MAT and web graphs with 64 registers a thread; a spill in its
    # loop (a tile size kept in a register spilled 12 bytes) costs every iteration local memory.
    # Since the block's copy of its fields (GRID_COUNTS) it kept two words in local memory, stored
    # once before the loop and loaded once a tile's prefix sum and once a split (H100 SASS, run AF
    # of docs/notes/delta-kernels.md); the hub chunks' stream (CHUNK_STREAM) spills three more (with
    # them rmat20's one query 0.885 -> 0.732 ms, run AK). Anything more is a new spill to measure.
    usage = _resource_usage(algorithms.get("delta").compile_options(False), tmp_path)
    grid = usage.split("Function properties for solve_grid", 1)[1].splitlines()[1]
    spilled = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", grid)
    assert spilled and int(spilled.group(1)) <= 20 and int(spilled.group(2)) <= 20, grid


def test_only_the_grid_solve_carries_the_push_buffer(tmp_path):
    # BUFFERED_PUSH's shared buffer (2,048 entries, 8 KB) is solve_grid's; a batch kernel carrying
    # it would fit fewer blocks an SM.
    usage = _resource_usage(algorithms.get("delta").compile_options(False), tmp_path)
    smem = {part.split()[0]: int(re.search(r"(\d+) bytes smem", part).group(1))
            for part in usage.split("Function properties for ")[1:] if "bytes smem" in part}
    assert smem["solve_grid"] >= 8192, smem
    assert all(size < 1024 for name, size in smem.items() if name != "solve_grid"), smem


@pytest.mark.parametrize("options", [["-DHUBS_AT_ONCE=0"], ["-DHUBS_AT_ONCE=2"], ["-DHUBS_AT_ONCE=2", "-DTARGETED=1"], ["-DGRID_TILES=0"],
                                     ["-DDEFER_ADAPT=0"], ["-DDEFER_ADAPT=2", "-DHUBS_AT_ONCE=0"],
                                     ["-DBUFFERED_PUSH=0"], ["-DBUFFER_FROM=0"], ["-DBUFFERED_PUSH=2048", "-DTARGETED=1"],
                                     ["-DBARRIER_ACQUIRE=0", "-DGRID_COUNTS=0"], ["-DCHUNK_STREAM=0"]])
def test_the_probe_options_of_delta_compile(options, tmp_path):
    # The kernel's A/B switches (each a measured alternative, docs/notes/delta-kernels.md) still compile.
    assert "Function properties for solve_grid" in _resource_usage(
        [*algorithms.get("delta").compile_options(False), *options], tmp_path)
