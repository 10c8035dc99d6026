"""Writing distances (`sssp --save`, `--save-dir`): int64 .npy files, -1 for unreachable, atomically."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from autotune.errors import AutotuneError, InputError
from autotune.files import atomic_write


def unreachable_as_minus_one(distances: np.ndarray, inf: int) -> np.ndarray:
    """The GPU's distances (int32 or int64) as saved: int64, -1 where they hold `inf` (unreachable)."""
    return np.where(distances == inf, -1, distances).astype(np.int64)


def save_distances(distances: np.ndarray, path: Path, option: str = "--save") -> None:
    """Write int64 distances (-1 = unreachable; a row or a matrix) to `path` as .npy, atomically.

    Raises:
        InputError: if the file cannot be written.
    """
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(distances, dtype=np.int64))
    try:
        atomic_write(path, buffer.getvalue(), "the distances")
    except AutotuneError as error:
        raise InputError(f"{option}: {error}") from None
