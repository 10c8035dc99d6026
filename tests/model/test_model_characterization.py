"""Kernel characterizations: the shipped file against thesis Table 4.1, and user files."""
from __future__ import annotations

import pytest

from autotune.errors import InputError
from autotune.model import AccessPattern, Level, load_characterization
from autotune.model.characterization import ByDegree, KernelResources

D = ("low", "medium", "high")

# Thesis Table 4.1: kernel -> (MAp, CLr, DSr at d(G) low/medium/high).
TABLE_4_1 = {
    "relax": ("medium_coalesced", "low", ("low", "medium", "high")),
    "minimum": ("coalesced", "medium", ("low", "low", "low")),
    "update": ("coalesced", "low", ("low", "low", "low")),
}


@pytest.mark.parametrize("name", sorted(TABLE_4_1))
def test_shipped_classes_are_table_4_1(sssp, name):
    pattern, load, sharing = TABLE_4_1[name]
    kernel = sssp.kernel(name)
    assert kernel.memory_access_pattern is AccessPattern(pattern)
    assert kernel.computational_load is Level(load)
    assert tuple(kernel.data_sharing.at(Level(d)).value for d in D) == sharing


def test_shipped_threads_per_vertex(sssp):
    # relax: L lanes per vertex; minimum: two vertices per thread (Alg. 9); update: one.
    assert sssp.kernel("relax").uses_lanes
    assert sssp.kernel("relax").threads_launched_per_vertex(8) == 8
    assert sssp.kernel("minimum").threads_launched_per_vertex() == 0.5
    assert sssp.kernel("update").threads_launched_per_vertex() == 1
    assert sssp.kernel("relax").data_sharing_grows_with_stress
    assert not sssp.kernel("minimum").data_sharing_grows_with_stress


def test_shipped_resources_were_compiled(sssp):
    assert sssp.resources_arch == "sm_90"
    assert "nvcc --resource-usage" in sssp.resources_command
    assert sssp.source == "kernels/sssp.cu"
    for name in ("relax", "minimum", "update"):
        assert sssp.kernel(name).resources.registers_per_thread > 0
    assert sssp.kernel("minimum").resources.static_shared_memory_bytes > 0  # its warp_min[32]


def test_unknown_kernel_names_the_file(sssp):
    with pytest.raises(InputError, match=r"no \[kernels.init\] table"):
        sssp.kernel("init")


USER = """
source = "my.cu"
[kernels.relax]
memory_access_pattern = "scatter"
computational_load = "high"
data_sharing = "medium"
threads_per_vertex = 2
registers_per_thread = 40
dynamic_shared_memory_bytes_per_thread = 4
notes = "a user's kernel"
"""


def test_user_characterization(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(USER)
    loaded = load_characterization(path)
    kernel = loaded.kernel("relax")
    assert kernel.memory_access_pattern is AccessPattern.SCATTER
    assert kernel.data_sharing == ByDegree.constant(Level.MEDIUM)
    assert kernel.memory_accesses == ByDegree.constant(Level.LOW)  # the default
    assert kernel.threads_launched_per_vertex() == 2.0
    assert kernel.resources == KernelResources(40, 0, 4)
    assert kernel.resources.shared_memory_bytes(256) == 1024
    assert loaded.path == path and loaded.source == "my.cu"


@pytest.mark.parametrize(
    "replace, message",
    [
        (('"scatter"', '"random"'), "memory_access_pattern: 'random' is not one of coalesced"),
        (('"high"', '"huge"'), "computational_load: 'huge' is not one of low"),
        (('data_sharing = "medium"', 'data_sharing = { low = "low" }'), "exactly the keys low, medium, high"),
        (("registers_per_thread = 40", ""), "missing registers_per_thread"),
        (("registers_per_thread = 40", "registers_per_thread = -1"), "registers_per_thread: expected an integer >= 1"),
        (("threads_per_vertex = 2", "threads_per_vertex = \"many\""), "threads_per_vertex must be a positive number"),
        (("notes =", "colour = 1\nnotes ="), "unknown key(s) colour"),
    ],
)
def test_bad_characterizations_name_file_kernel_and_key(tmp_path, replace, message):
    path = tmp_path / "bad.toml"
    path.write_text(USER.replace(*replace))
    with pytest.raises(InputError) as caught:
        load_characterization(path)
    assert str(path) in str(caught.value) and "[kernels.relax]" in str(caught.value)
    assert message in str(caught.value)


def test_file_without_kernels_or_unreadable(tmp_path):
    path = tmp_path / "empty.toml"
    path.write_text('source = "x.cu"\n')
    with pytest.raises(InputError, match=r"expected \[kernels.<name>\] tables"):
        load_characterization(path)
    with pytest.raises(InputError, match="cannot read the characterization"):
        load_characterization(tmp_path / "absent.toml")
    path.write_text("[kernels\n")
    with pytest.raises(InputError, match="invalid TOML"):
        load_characterization(path)
