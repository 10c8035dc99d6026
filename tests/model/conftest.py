"""Fixtures of the model tests: the shipped characterization and device profiles."""
from __future__ import annotations

import pytest

from autotune.model import Characterization, DeviceProfile, load_characterization, load_device


@pytest.fixture(scope="session")
def sssp() -> Characterization:
    return load_characterization()


@pytest.fixture(scope="session")
def fermi() -> DeviceProfile:
    return load_device("fermi-gf100")


@pytest.fixture(scope="session")
def kepler() -> DeviceProfile:
    return load_device("kepler-gk104")


@pytest.fixture(scope="session")
def hopper() -> DeviceProfile:
    return load_device("hopper-h100")
