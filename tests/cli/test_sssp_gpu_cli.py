"""`autotune sssp` GPU mode on a machine without PyCUDA, and its argument checks (CPU only)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from autotune.cli import main

no_pycuda = pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="PyCUDA is installed")


@no_pycuda
def test_without_pycuda_says_so_in_one_line(capsys):
    assert main(["sssp", "--graph", "rmat8"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "PyCUDA" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "config, message",
    [
        ('{"concurrent_kernels": 1}', "needs the keys"),
        ('{"concurrent_kernels": 1, "kernels": {"relax": {"block_size": 48}, "minimum": {"block_size": 32},'
         ' "update": {"block_size": 32}}}', "not a multiple of the warp size"),
        ('{"concurrent_kernels": 1, "kernels": {', "invalid JSON"),
        ("missing-file.json", "cannot read"),
    ],
)
def test_bad_config_is_one_line_before_any_gpu_work(capsys, config, message):
    assert main(["sssp", "--graph", "rmat8", "--config", config]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_unknown_preset(capsys):
    assert main(["sssp", "--graph", "rmat8", "--preset", "fastest"]) == 2
    assert "unknown preset" in capsys.readouterr().err


def test_what_the_sources_reach_is_counted_from_their_reference_rows():
    # rmat17's vertex 0 reaches itself only: its GTEPS (the graph's arcs over the time) alone would mislead
    from autotune.cli.sssp_gpu import reached_counts, reached_text
    from autotune.reference.cache import INF

    rows = {0: np.array([0, INF, INF, INF], np.int32), 3: np.array([5, 2, INF, 0], np.int32)}
    assert reached_counts(rows, [0, 3]) == [1, 3]
    wide = np.array([0, INF, 2**40, 2**63 - 1], np.int64)  # a 64-bit row's unreachable is 2^63 - 1
    assert reached_counts({0: wide}, [0]) == [3]
    assert reached_text([1], 4) == "1 of 4 vertices"
    assert reached_text([1, 3], 4) == "2 of 4 vertices (median of 2 sources; 1 to 3)"
