"""Locate the data directories shipped with autotune: `kernels/` and `characterizations/`; and the
cores this process may run on (`usable_cores`).

In a regular install they are inside the package, at `autotune/_data/<name>` (the wheel build puts
them there); in an editable install or a source checkout they are at the repository's top level.
"""
from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from autotune.errors import AutotuneError

_PACKAGE_DIR = Path(__file__).resolve().parent


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


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


def algorithm_file(package: str, name: str) -> Path:
    """A file shipped in a built-in algorithm's package (`autotune/algorithms/<package>/<name>`),
    for the layers below the registry (the thesis model's default characterization)."""
    return _PACKAGE_DIR / "algorithms" / package / name


def header_template() -> str:
    """The C/C++ header that `autotune table export --format c-header` fills (package data)."""
    return (_PACKAGE_DIR / "templates" / "tuned_sssp.h.in").read_text(encoding="utf-8")


@cache
def source_commit() -> str | None:
    """The commit of the checkout autotune runs from (`git describe --always --dirty`), or None in
    an install outside one: what a table entry records of the code that measured it. `BENCH_COMMIT`,
    where set, names it instead (a copy of the tree whose git directory is not its own, as on a
    lent GPU machine, whose copy's `git describe` names another commit; the benchmarks read it too)."""
    import os
    import subprocess

    if os.environ.get("BENCH_COMMIT"):
        return os.environ["BENCH_COMMIT"]

    try:
        done = subprocess.run(["git", "-C", str(_PACKAGE_DIR.parent), "describe", "--always", "--dirty", "--abbrev=7"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None

