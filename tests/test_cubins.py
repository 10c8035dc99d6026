"""The kernels' builds kept on disk (`autotune.gpu.cubins`): a kept build is read back without
nvcc, a change of source, header or options builds again, one the driver refuses is built again,
and the command line keeps them in the cache directory. PyCUDA's compiler and driver are stand-ins
that count their builds and loads."""
from __future__ import annotations

import sys
import types

import pytest

from autotune.gpu import compile as compile_module
from autotune.gpu import cubins


@pytest.fixture
def nvcc(monkeypatch):
    builds: list[tuple[str, tuple[str, ...]]] = []

    def compile(source, options, arch, **_):
        builds.append((arch, tuple(options)))
        return f"cubin of {len(source)} chars {options} {arch}".encode()

    fake = types.ModuleType("pycuda.compiler")
    fake.compile = compile  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pycuda", types.ModuleType("pycuda"))
    monkeypatch.setitem(sys.modules, "pycuda.compiler", fake)
    return builds


@pytest.fixture
def kernel(tmp_path):
    source = tmp_path / "src" / "k.cu"
    source.parent.mkdir()
    source.write_text('#include "h.cuh"\n__global__ void k() {}\n')
    (source.parent / "h.cuh").write_text("#define H 1\n")
    return source


def test_a_kept_build_is_read_back_without_nvcc(nvcc, kernel, tmp_path):
    kept = tmp_path / "cubins"
    first = cubins.cubin(kernel, ["-DA=1"], "sm_90", [str(kernel.parent)], kept)
    again = cubins.cubin(kernel, ["-DA=1"], "sm_90", [str(kernel.parent)], kept)
    assert first == again and len(nvcc) == 1
    assert [p.suffix for p in kept.iterdir()] == [".cubin"]  # no temporary file left


def test_what_the_build_reads_builds_it_again(nvcc, kernel, tmp_path):
    kept = tmp_path / "cubins"
    build = lambda options=("-DA=1",), arch="sm_90": cubins.cubin(kernel, options, arch, [str(kernel.parent)], kept)  # noqa: E731
    build()
    build(("-DA=2",))
    build(arch="sm_80")
    (kernel.parent / "h.cuh").write_text("#define H 2\n")
    build()
    kernel.write_text(kernel.read_text() + "// changed\n")
    build()
    assert len(nvcc) == 5 and len(list(kept.iterdir())) == 5


def test_an_unreadable_entry_is_built_again_and_nothing_kept_builds_each_time(nvcc, kernel, tmp_path):
    kept = tmp_path / "cubins"
    cubins.cubin(kernel, [], "sm_90", [str(kernel.parent)], kept)
    (entry,) = kept.iterdir()
    entry.unlink()
    entry.mkdir()  # a directory where the entry was: unreadable, and not replaceable either
    assert cubins.cubin(kernel, [], "sm_90", [str(kernel.parent)], kept)
    assert [p.name for p in kept.iterdir()] == [entry.name]  # its temporary file removed
    cubins.cubin(kernel, [], "sm_90", [str(kernel.parent)], None)
    cubins.cubin(kernel, [], "sm_90", [str(kernel.parent)], None)
    assert len(nvcc) == 4


def test_a_cold_start_skips_what_an_earlier_start_kept(nvcc, tmp_path):
    from autotune import algorithms

    compile_module.keep_builds_in(tmp_path / "cubins")
    try:
        lanes = algorithms.get("delta_lanes")
        compile_module.precompile([lanes], "sm_90")()
        compile_module.precompile([lanes], "sm_90")()
    finally:
        compile_module.keep_builds_in(None)
    assert len(nvcc) == 2  # both L1 states, once


def test_the_command_line_keeps_builds_in_the_cache_directory(tmp_path):
    from autotune.cli.options import keep_builds

    keep_builds({"AUTOTUNE_CACHE_DIR": str(tmp_path)})
    try:
        assert compile_module.kept_builds() == tmp_path / "cubins"
    finally:
        compile_module.keep_builds_in(None)
    assert compile_module.kept_builds().name == "cubins"


def test_a_kept_build_the_driver_refuses_is_built_again_with_a_note(nvcc, tmp_path, monkeypatch, capsys):
    class Refused(Exception):
        pass

    loaded: list[bytes] = []

    def module_from_buffer(data: bytes):
        if data == b"damaged":
            raise Refused("CUDA_ERROR_INVALID_IMAGE")
        loaded.append(data)
        return "module"

    device = types.SimpleNamespace(compute_capability=lambda: (9, 0))
    driver = types.ModuleType("pycuda.driver")
    driver.Error = Refused  # type: ignore[attr-defined]
    driver.module_from_buffer = module_from_buffer  # type: ignore[attr-defined]
    driver.Context = types.SimpleNamespace(get_device=lambda: device)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)
    from autotune.resources import kernels_dir

    verify = kernels_dir() / "verify.cu"
    compile_module.keep_builds_in(tmp_path)
    try:
        assert compile_module._build(verify, []) == "module"  # built and kept
        (entry,) = tmp_path.iterdir()
        entry.write_bytes(b"damaged")
        assert compile_module._build(verify, []) == "module"
    finally:
        compile_module.keep_builds_in(None)
    assert len(nvcc) == 2 and len(loaded) == 2 and entry.read_bytes() != b"damaged"
    assert "did not load" in capsys.readouterr().err
