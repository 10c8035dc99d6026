"""Shared fixtures; GPU tests (`-m gpu`) are skipped with the reason when no GPU responds."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA_DIR = Path(__file__).parent / "data"


def _gpu_unavailable_reason() -> str | None:
    try:
        import pycuda.driver as driver  # noqa: F401
    except Exception as error:  # ImportError, or a broken CUDA install
        return f"PyCUDA is not importable ({type(error).__name__}: {error})"
    try:
        driver.init()
        if driver.Device.count() == 0:
            return "no CUDA device"
    except Exception as error:
        return f"no CUDA device responds ({error})"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any("gpu" in item.keywords for item in items):
        return
    reason = _gpu_unavailable_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"GPU test: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def data_dir() -> Path:
    return DATA_DIR
