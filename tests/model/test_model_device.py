"""Device profiles: loading, errors, `auto` without a GPU, and the shipped numbers against the
vendors' published figures (cited in characterizations/README.md, "Device profiles")."""
from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from autotune.errors import GpuUnavailable, InputError
from autotune.model import load_device, shipped_device_names, shipped_devices
from autotune.model.device import (
    gpu_facts,
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    load_device_file,
    profile_from_attributes,
)
from autotune.launch import CacheState

ROOT_DEVICES = Path(__file__).resolve().parents[2] / "characterizations" / "devices"
SHIPPED = ("fermi-gf100", "kepler-gk104", "kepler-gk110b", "volta-v100", "ampere-a100", "hopper-h100", "hopper-h200")

# Published figures, one row per profile: the product's CUDA cores (vendor product page or
# whitepaper), cores per SM of its architecture (whitepaper), and the per-compute-capability limits
# of the CUDA C++ Programming Guide ("Technical Specifications per Compute Capability").
# columns: cc, CUDA cores, cores per SM, threads/SM, blocks/SM, registers/SM, max registers/thread,
#          max shared memory/SM (KB), threads/block
PUBLISHED = {
    "fermi-gf100": ("2.0", 480, 32, 1536, 8, 32 * 1024, 63, 48, 1024),  # GeForce GTX 480
    "kepler-gk104": ("3.0", 1536, 192, 2048, 16, 64 * 1024, 63, 48, 1024),  # GeForce GTX 680
    "kepler-gk110b": ("3.5", 2880, 192, 2048, 16, 64 * 1024, 255, 48, 1024),  # GTX Titan Black
    "volta-v100": ("7.0", 5120, 64, 2048, 32, 64 * 1024, 255, 96, 1024),  # Tesla V100 SXM2
    "ampere-a100": ("8.0", 6912, 64, 2048, 32, 64 * 1024, 255, 164, 1024),  # A100 SXM4
    "hopper-h100": ("9.0", 16896, 128, 2048, 32, 64 * 1024, 255, 228, 1024),  # H100 SXM5
    "hopper-h200": ("9.0", 16896, 128, 2048, 32, 64 * 1024, 255, 228, 1024),  # H200 SXM (GH100 as H100 SXM5)
}


def test_the_issue_profiles_are_shipped():
    assert set(SHIPPED) <= set(shipped_device_names())


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profile_matches_published_figures(name):
    cc, cores, cores_per_sm, threads, blocks, registers, max_registers, shared_kb, per_block = PUBLISHED[name]
    device = load_device(name)
    assert device.name == name
    assert device.compute_capability == cc
    assert device.sm_count * cores_per_sm == cores
    assert device.warp_size == 32
    assert device.max_threads_per_sm == threads
    assert device.max_blocks_per_sm == blocks
    assert device.registers_per_sm == registers
    assert device.max_registers_per_thread == max_registers
    assert device.shared_memory_per_sm == shared_kb * 1024
    assert device.max_threads_per_block == per_block


def test_thesis_resident_threads_of_its_gpus(fermi, kepler):
    # Thesis 4.6.1: "GTX 480 (Fermi GF100) and GTX 680 (Kepler GK104) with 23 040 and 16 384
    # maximum concurrent threads respectively".
    assert fermi.max_resident_threads == 23040
    assert kepler.max_resident_threads == 16384


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_hold_every_key(name):
    device = load_device(name)
    assert device.origin == "shipped"
    assert set(REQUIRED_KEYS) <= set(device.to_json())
    assert device.description
    assert device.max_concurrent_kernels is not None
    assert device.shared_memory_configs[-1] == device.shared_memory_per_sm


def test_prefer_l1_asks_for_the_smallest_shared_memory(fermi, hopper):
    assert fermi.preferred_shared_memory_per_sm(CacheState.PREFER_L1) == 16 * 1024
    assert fermi.preferred_shared_memory_per_sm(CacheState.DEFAULT) == 48 * 1024
    assert hopper.preferred_shared_memory_per_sm(CacheState.PREFER_L1) == 0
    assert hopper.preferred_shared_memory_per_sm(CacheState.NO_L1) == 228 * 1024


def test_user_profile_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\ncompute_capability = "8.6"\nsm_count = 84\nwarp_size = 32\n'
        "max_threads_per_sm = 1536\nmax_blocks_per_sm = 16\nregisters_per_sm = 65536\n"
        "register_allocation_unit = 256\nmax_registers_per_thread = 255\n"
        "shared_memory_per_sm = 102400\nmax_threads_per_block = 1024\n"
    )
    device = load_device(str(path))
    assert device.name == "mine" and device.origin == str(path)
    assert device.max_registers_per_block == 65536  # default: registers_per_sm
    assert device.shared_memory_configs == (102400,)
    assert device.sm_arch == "sm_86"
    assert load_device_file(path) == device


def _write(tmp_path, text: str) -> str:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return str(path)


GOOD = dict(
    name='"x"', compute_capability='"9.0"', sm_count=1, warp_size=32, max_threads_per_sm=2048,
    max_blocks_per_sm=32, registers_per_sm=65536, register_allocation_unit=256,
    max_registers_per_thread=255, shared_memory_per_sm=1024, max_threads_per_block=1024,
)


def _profile_text(**changes) -> str:
    values = {**GOOD, **changes}
    return "".join(f"{key} = {value}\n" for key, value in values.items() if value is not None)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"sm_count": None}, "lacks sm_count"),
        ({"sm_count": 0}, "sm_count must be a positive integer"),
        ({"warp_size": '"32"'}, "warp_size must be a positive integer"),
        ({"compute_capability": '"nine"'}, "compute_capability must read 'major.minor'"),
        ({"colour": '"red"'}, "unknown device profile key(s) colour"),
        ({"max_threads_per_sm": 2000}, "multiples of warp_size"),
        ({"shared_memory_configs": "[0, 4096]"}, "exceed shared_memory_per_sm"),
    ],
)
def test_bad_profiles_name_the_file_and_key(tmp_path, changes, message):
    path = _write(tmp_path, _profile_text(**changes))
    with pytest.raises(InputError) as caught:
        load_device(path)
    assert path in str(caught.value)
    assert message in str(caught.value)


def test_invalid_toml_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="invalid TOML"):
        load_device(_write(tmp_path, "name = \n"))
    with pytest.raises(InputError, match="cannot read"):
        load_device(str(tmp_path / "absent.toml"))


def test_unknown_name_lists_the_shipped_ones():
    with pytest.raises(InputError) as caught:
        load_device("pascal-gp100")
    assert "hopper-h100" in str(caught.value) and "auto" in str(caught.value)


def test_auto_without_pycuda_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_pycuda(name, *args, **kwargs):
        if name.startswith("pycuda"):
            raise ImportError("No module named 'pycuda'")
        return real_import(name, *args, **kwargs)

    from autotune.gpu.device import load_profile

    monkeypatch.setattr(builtins, "__import__", no_pycuda)
    with pytest.raises(GpuUnavailable, match="--device auto needs PyCUDA"):
        load_profile("auto")
    with pytest.raises(GpuUnavailable, match="autotune.gpu.device.load_profile"):  # the model never touches CUDA
        load_device("auto")


# The attributes an NVIDIA H200 reported through PyCUDA on this project's device machine
# (driver 580.159.04), as far as the profile uses them.
H200_ATTRIBUTES = {
    "MULTIPROCESSOR_COUNT": 132,
    "WARP_SIZE": 32,
    "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
    "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
    "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472,
    "MAX_SHARED_MEMORY_PER_BLOCK": 49152,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
    "RESERVED_SHARED_MEMORY_PER_BLOCK": 1024,
    "MAX_THREADS_PER_BLOCK": 1024,
}


def test_profile_from_live_attributes_equals_the_shipped_one():
    live = profile_from_attributes("NVIDIA H200", 9, 0, H200_ATTRIBUTES)
    shipped = load_device("hopper-h200")
    for key in REQUIRED_KEYS[1:] + OPTIONAL_KEYS[1:]:
        if key != "global_memory_bytes":  # the driver's total_memory(), not an attribute
            assert getattr(live, key) == getattr(shipped, key), key
    assert live.origin == "auto" and live.global_memory_bytes is None
    assert profile_from_attributes("NVIDIA H200", 9, 0, H200_ATTRIBUTES, 150 * 2**30).global_memory_bytes == 150 * 2**30


def test_the_facts_of_a_pycuda_device_are_what_a_profile_is_built_from():
    class Gpu:  # what PyCUDA's Device answers (attribute keys print as device_attribute.NAME)
        def get_attributes(self):
            return {f"device_attribute.{name}": value for name, value in H200_ATTRIBUTES.items()}

        def name(self):
            return "NVIDIA H200"

        def compute_capability(self):
            return 9, 0

        def total_memory(self):
            return 150 * 2**30

    facts = gpu_facts(Gpu())
    assert facts == ("NVIDIA H200", 9, 0, H200_ATTRIBUTES, 150 * 2**30)
    profile, shipped = profile_from_attributes(*facts), load_device("hopper-h200")
    assert profile.global_memory_bytes == 150 * 2**30
    assert (profile.sm_count, profile.max_threads_per_sm) == (shipped.sm_count, shipped.max_threads_per_sm)


# The shipped memory figures (characterizations/README.md, "Device profiles"): the smaller model
# where a product came in two.
PUBLISHED_MEMORY = {"fermi-gf100": 1536 * 2**20, "kepler-gk104": 2 * 2**30, "kepler-gk110b": 6 * 2**30,
                    "volta-v100": 16 * 2**30, "ampere-a100": 40 * 2**30, "hopper-h100": 81559 * 2**20,
                    "hopper-h200": 141 * 10**9}


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_know_their_memory_and_keep_it_out_of_tables(name):
    device = load_device(name)
    assert device.global_memory_bytes == PUBLISHED_MEMORY[name]
    assert "global_memory_bytes" not in device.to_json()  # tables and records keep their device section


def test_a_profile_s_memory_is_a_positive_integer(tmp_path):
    text = (ROOT_DEVICES / "hopper-h100.toml").read_text()
    path = tmp_path / "gpu.toml"
    path.write_text(text.replace("global_memory_bytes = 85520809984", "global_memory_bytes = -1"))
    with pytest.raises(InputError, match="global_memory_bytes must be a positive integer"):
        load_device_file(path)


def test_profile_from_attributes_needs_the_core_ones():
    attributes = dict(H200_ATTRIBUTES)
    del attributes["MULTIPROCESSOR_COUNT"]
    with pytest.raises(GpuUnavailable, match="MULTIPROCESSOR_COUNT"):
        profile_from_attributes("x", 9, 0, attributes)


def test_shipped_devices_are_sorted_and_loadable():
    devices = shipped_devices()
    assert [device.name for device in devices] == sorted(device.name for device in devices)
