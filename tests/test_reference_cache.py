"""The reference distances kept on disk: `ensure` computes only what is missing and reads nothing."""
from __future__ import annotations

import numpy as np

from autotune.graphs import build_csr
from autotune.reference.cache import ReferenceCache


def _graph():
    return build_csr("g", 4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([4, 0, 7]))


def test_ensure_computes_the_missing_sources_only_and_reads_none(tmp_path):
    cache = ReferenceCache(tmp_path)
    assert cache.ensure(_graph(), [0, 1, 0]) == 2 and cache.computed == 2
    kept = tmp_path / _graph().sha256 / "0.npy"
    kept.write_bytes(b"not read by ensure")
    assert cache.ensure(_graph(), [0, 1, 2]) == 1 and cache.computed == 3
    # distances reads what is kept: the damaged row is computed again (and kept)
    assert cache.distances(_graph(), [0])[0].tolist() == [0, 4, 4, 11] and cache.computed == 4
    assert np.load(kept).tolist() == [0, 4, 4, 11]


def test_ensure_without_a_directory_computes_nothing(tmp_path):
    cache = ReferenceCache(None)
    assert cache.ensure(_graph(), [0, 1]) == 0 and cache.computed == 0
