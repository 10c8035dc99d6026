"""The examples in the docstrings of every module of the package and the benchmarks hold (a
docstring's example is run as a doctest; `# doctest: +SKIP` leaves one out)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import autotune
import benchmarks


def modules() -> list[str]:
    names = []
    for package in (autotune, benchmarks):
        names += [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                  if not info.name.endswith("__main__")]
    return sorted(names)


@pytest.mark.parametrize("name", modules())
def test_the_examples_in_the_docstrings_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (above)"
