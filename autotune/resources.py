"""Locate the data directories shipped with autotune: `kernels/` and `characterizations/`.

In a regular install they are inside the package, at `autotune/_data/<name>` (the wheel build puts
them there); in an editable install or a source checkout they are at the repository's top level.
"""
from __future__ import annotations

from pathlib import Path

from autotune.errors import AutotuneError

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the directory of shipped data `name` ("kernels" or "characterizations").

    Raises:
        AutotuneError: if the installation lacks it.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise AutotuneError(f"autotune's '{name}' directory is missing from this installation")


def kernels_dir() -> Path:
    return data_dir("kernels")


def characterizations_dir() -> Path:
    return data_dir("characterizations")


def header_template() -> str:
    """The C/C++ header that `autotune table export --format c-header` fills (package data)."""
    return (_PACKAGE_DIR / "templates" / "tuned_sssp.h.in").read_text(encoding="utf-8")
