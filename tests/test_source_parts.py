"""Sources built in parts (`Algorithm.source_parts`): every kernel of the source lies in one part,
the engines load each kernel from its part's build, and a cold start builds every part of both L1
states side by side."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import types

import pytest

from autotune import algorithms
from autotune.gpu import compile as compile_module

PARTED = [a for a in algorithms.names() if algorithms.get(a).source_parts]


def _kernels(source: str) -> set[str]:
    return set(re.findall(r'extern "C" __global__ void (?:__maxnreg__\(\d+\) )?(\w+)\(', source))


def test_delta_builds_in_parts():
    assert "delta" in PARTED  # the longest build of a cold start


@pytest.mark.parametrize("name", PARTED)
def test_every_kernel_of_a_parted_source_lies_in_exactly_one_part(name):
    algorithm = algorithms.get(name)
    groups = [set(g) for g in algorithm.source_parts]
    assert sum(len(g) for g in groups) == len(set().union(*groups))  # disjoint
    assert set().union(*groups) == _kernels(algorithm.source_path.read_text())
    for k, group in enumerate(groups, 1):
        assert all(algorithm.source_part(f) == k for f in group)
    assert algorithm.builds() == tuple(range(1, len(groups) + 1))


def test_an_algorithm_without_parts_builds_its_source_whole():
    lanes = algorithms.get("delta_lanes")
    assert lanes.builds() == (0,) and lanes.source_part("lanes_advance") == 0
    assert compile_module.build_options(lanes, False) == []


def test_a_cold_start_builds_every_part_of_both_l1_states_and_the_timers_source(monkeypatch, tmp_path):
    built: list[tuple[str, ...]] = []
    fake = types.ModuleType("pycuda.compiler")
    fake.compile = lambda source, options, **_: built.append(tuple(options)) or b"cubin"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pycuda", types.ModuleType("pycuda"))
    monkeypatch.setitem(sys.modules, "pycuda.compiler", fake)
    delta = algorithms.get("delta")
    compile_module.keep_builds_in(tmp_path)
    try:
        compile_module.precompile([delta], "sm_90", ("verify.cu",))()
    finally:
        compile_module.keep_builds_in(None)
    expected = {tuple(compile_module.build_options(delta, no_l1, part=k)) for k in (1, 2, 3, 4) for no_l1 in (False, True)}
    assert len(built) == 9 and set(built) == expected | {()}  # verify.cu: no options


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("name", PARTED)
def test_each_part_compiles_exactly_its_kernels(name, tmp_path):
    algorithm = algorithms.get(name)
    for k, group in enumerate(algorithm.source_parts, 1):
        out = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "--resource-usage",
                              *compile_module.build_options(algorithm, False, part=k), "-o", str(tmp_path / "part.cubin"),
                              str(algorithm.source_path)], check=True, capture_output=True, text=True)
        compiled = set(re.findall(r"Compiling entry function '(\w+)'", out.stdout + out.stderr))
        assert compiled == set(group), k


def test_a_build_is_loaded_once_per_process(monkeypatch):
    """`compiled_module` loads each build once; every later launch reuses its module (a module
    loaded per launch would take the driver's time and memory each trial)."""
    loads = []
    monkeypatch.setattr(compile_module, "_build", lambda source, options: loads.append((source.name, *options)))
    compile_module.compiled_module.cache_clear()
    try:
        phast = algorithms.get("phast")
        for _ in range(3):
            compile_module.compiled_module(phast, False)
            compile_module.compiled_module(phast, False, wide=True)
        assert loads == [("phast.cu",), ("phast.cu", "-DWIDE_DISTANCES=1")]
    finally:
        compile_module.compiled_module.cache_clear()
