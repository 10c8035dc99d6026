"""scripts/refresh_characterization.py: parsing nvcc's resource usage, rewriting the TOML, and (with
nvcc installed) that the shipped numbers are those of the current kernels/sssp.cu."""
from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from autotune.model import load_characterization

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "refresh_characterization.py"


@pytest.fixture(scope="module")
def refresh():
    spec = importlib.util.spec_from_file_location("refresh_characterization", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


NVCC_OUTPUT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'update' for 'sm_90'
ptxas info    : Function properties for update
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 23.660 ms
ptxas info    : Compiling entry function 'minimum' for 'sm_90'
ptxas info    : Function properties for minimum
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, used 1 barriers, 128 bytes smem
ptxas info    : Compiling entry function 'relax' for 'sm_90'
ptxas info    : Function properties for relax
ptxas info    : Used 19 registers, used 0 barriers
"""


def test_parse_resource_usage(refresh):
    usage = refresh.parse_resource_usage(NVCC_OUTPUT)
    assert usage == {
        "update": refresh.Usage(12, 0),
        "minimum": refresh.Usage(20, 128),
        "relax": refresh.Usage(19, 0),
    }


TOML = """\
source = "k.cu"

[kernels.relax]
memory_access_pattern = "medium_coalesced"  # a comment that stays
computational_load = "low"
data_sharing = "low"
registers_per_thread = 1

[kernels.minimum]
memory_access_pattern = "coalesced"
computational_load = "medium"
data_sharing = "low"
registers_per_thread = 99  # old
static_shared_memory_bytes = 7
"""


def test_rewrite_keeps_classes_and_comments(refresh):
    usage = {
        "a": refresh.parse_resource_usage(NVCC_OUTPUT),
        "b": {"relax": refresh.Usage(23, 0), "minimum": refresh.Usage(18, 128)},
    }
    text = refresh.rewrite(TOML, usage, "sm_90", {"arch": "sm_90", "command": "nvcc ..."})
    data = tomllib.loads(text)
    assert data["compiled"] == {"arch": "sm_90", "command": "nvcc ..."}
    assert data["kernels"]["relax"]["registers_per_thread"] == 23  # the most over the builds
    assert data["kernels"]["relax"]["static_shared_memory_bytes"] == 0
    assert data["kernels"]["minimum"]["registers_per_thread"] == 20
    assert data["kernels"]["minimum"]["static_shared_memory_bytes"] == 128
    assert "# a comment that stays" in text
    assert "registers_per_thread = 20  # sm_90: a 20, b 18" in text
    # Rewriting again changes nothing.
    assert refresh.rewrite(text, usage, "sm_90", {"arch": "sm_90", "command": "nvcc ..."}) == text


def test_rewrite_lists_each_function_s_registers_where_several_launch_as_one_kernel(tmp_path, refresh):
    usage = {"a": refresh.parse_resource_usage(NVCC_OUTPUT), "b": {"relax": refresh.Usage(23, 0), "update": refresh.Usage(9, 4096)}}
    text = refresh.rewrite(TOML, usage, "sm_90", {"arch": "sm_90"}, {"relax": ("relax", "update"), "minimum": ("minimum",)})
    data = tomllib.loads(text)
    assert data["kernels"]["relax"]["registers_per_thread"] == 23
    assert data["kernels"]["relax"]["registers_by_function"] == {"relax": 23, "update": 12}  # the most over the builds
    assert data["kernels"]["relax"]["static_shared_memory_bytes"] == 4096  # the most over its functions
    assert data["kernels"]["relax"]["static_shared_by_function"] == {"relax": 0, "update": 4096}
    assert "registers_by_function" not in data["kernels"]["minimum"]
    path = tmp_path / "c.toml"
    path.write_text(text)
    relax = load_characterization(path).kernel("relax")
    assert relax.resources_of("update").registers_per_thread == 12
    assert relax.resources_of("relax").registers_per_thread == 23 == relax.resources_of("other").registers_per_thread
    # a function's own shared memory: relax's occupancy is not priced with update's buffer
    assert relax.resources_of("relax").static_shared_memory_bytes == 0
    assert relax.resources_of("update").static_shared_memory_bytes == 4096 == relax.resources.static_shared_memory_bytes


def test_rewrite_refuses_a_kernel_missing_from_the_source(refresh):
    with pytest.raises(SystemExit, match="'relax' of the characterization is not in the compiled source"):
        refresh.rewrite(TOML, {"a": {"minimum": refresh.Usage(1, 0)}}, "sm_90", {})


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_shipped_characterization_is_up_to_date(refresh, capsys):
    status = refresh.main(["--check"])
    assert status == 0, (
        "a shipped characterization is out of date with its kernels: "
        "run python3 scripts/refresh_characterization.py"
    )


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_refresh_writes_a_loadable_characterization(refresh, tmp_path):
    output = tmp_path / "sssp.toml"
    assert refresh.main(["--algorithm", "crauser", "--output", str(output)]) == 0
    loaded = load_characterization(output)
    assert loaded.resources_arch == "sm_90"
    assert loaded.kernel("minimum").resources.static_shared_memory_bytes == 128
