"""`autotune.gpu.compile.experimental_build` (no GPU): the defines it adds to every compile inside
its block, and the compiled modules it drops on the way in and out."""
from __future__ import annotations

import pytest

from autotune.gpu import compile as compile_module


def test_an_experimental_build_adds_its_defines_inside_the_block_only(monkeypatch):
    cleared = []
    monkeypatch.setattr(compile_module.compiled_module, "cache_clear", lambda: cleared.append("module"))
    monkeypatch.setattr(compile_module.compiled_source, "cache_clear", lambda: cleared.append("source"))
    assert compile_module._EXPERIMENTAL == ()
    with compile_module.experimental_build("CHAIN_HOPS=4", "X=1"):
        assert compile_module._EXPERIMENTAL == ("-DCHAIN_HOPS=4", "-DX=1")
    assert compile_module._EXPERIMENTAL == ()
    assert cleared == ["module", "source"] * 2
    with pytest.raises(RuntimeError), compile_module.experimental_build("Y=2"):
        raise RuntimeError("a failed probe")
    assert compile_module._EXPERIMENTAL == ()  # restored all the same
