"""The compiled variants of kernels/sssp.cu (with nvcc, no GPU): the `no_l1` cache state must
really keep global loads out of L1."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from autotune.gpu.kernels import Variant
from autotune.resources import kernels_dir

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def _global_loads(variant: Variant, tmp_path) -> dict[str, int]:
    """Counts of each kind of global load in the variant's PTX (ld.global.nc: read-only path)."""
    ptx = tmp_path / "sssp.ptx"
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", *variant.nvcc_options(), "-o", str(ptx),
                    str(kernels_dir() / "sssp.cu")], check=True, capture_output=True)
    kinds: dict[str, int] = {}
    for kind in re.findall(r"\bld\.global(\.nc)?\.", ptx.read_text()):
        kinds["nc" if kind else "plain"] = kinds.get("nc" if kind else "plain", 0) + 1
    return kinds


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
def test_no_l1_loads_nothing_through_the_read_only_path(algorithm, tmp_path):
    # ld.global.nc (LDG.E.CONSTANT in SASS) is cached in L1 whatever -dlcm says; plain loads are
    # what -Xptxas -dlcm=cg turns into L2-only loads.
    cached = _global_loads(Variant(algorithm, no_l1=False), tmp_path)
    uncached = _global_loads(Variant(algorithm, no_l1=True), tmp_path)
    assert cached.get("nc", 0) > 0  # the other states do use it: the test can tell them apart
    assert uncached.get("nc", 0) == 0 and uncached["plain"] > 0
    assert "-Xptxas=-dlcm=cg" in Variant(algorithm, no_l1=True).nvcc_options()
