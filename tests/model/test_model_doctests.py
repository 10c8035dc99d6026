"""The examples in the model's and the tables' docstrings run."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "autotune.model",
    "autotune.model.characterization",
    "autotune.model.device",
    "autotune.model.features",
    "autotune.model.memory",
    "autotune.model.occupancy",
    "autotune.algorithms.thesis.rules",
    "autotune.table.format",
    "autotune.algorithms.base",
    "autotune.algorithms.delta.shared",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
