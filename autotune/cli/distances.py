"""Writing distances (`sssp --save`, `--save-dir`): int64 .npy files, -1 for unreachable, atomically."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from autotune.errors import AutotuneError, InputError
from autotune.files import atomic_write


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
