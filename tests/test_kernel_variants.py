"""The compiled builds of every algorithm's kernels (with nvcc, no GPU): the `no_l1` cache state
must really keep global loads out of L1."""
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
