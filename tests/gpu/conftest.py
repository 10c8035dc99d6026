"""Fixtures of the GPU tests: a CUDA context per module, and the test graphs loaded once."""
from __future__ import annotations

from pathlib import Path

import pytest

from autotune.graphs import load_graph


@pytest.fixture(scope="module")
def session():
    from autotune.gpu import gpu_session

    with gpu_session() as device:
        yield device


@pytest.fixture(scope="module")
def graphs():
    """load(name): a graph file of tests/data (`*.gz`) or a generated graph's spec, loaded once."""
    data = Path(__file__).resolve().parents[1] / "data"
    loaded: dict = {}

    def load(name):
        if name not in loaded:
            loaded[name] = load_graph(str(data / name) if name.endswith(".gz") else name)
        return loaded[name]

    return load
