"""Seeded random streams that give the same numbers on any machine and numpy version.

Only the raw 64-bit output of PCG64 seeded through `SeedSequence` is used (both are fixed
algorithms); every derived value (uniform integers, permutations) is plain integer arithmetic here,
so no numpy `Generator` method whose stream may change between numpy releases is involved.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np


class Stream(IntEnum):
    """Independent purposes of random numbers; one PCG64 stream each."""

    TOPOLOGY = 1
    PERMUTATION = 2
    WEIGHTS = 3


def stream(seed: int, purpose: Stream) -> np.random.PCG64:
    """Return the PCG64 bit generator for `purpose` under `seed`."""
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(int(purpose),)))


def raw(bitgen: np.random.PCG64, shape: int | tuple[int, ...]) -> np.ndarray:
    """Next raw 64-bit outputs of `bitgen`, as uint64, in row-major order."""
    return bitgen.random_raw(shape)


def below(bitgen: np.random.PCG64, shape: int | tuple[int, ...], bound: int) -> np.ndarray:
    """Uniform integers in [0, bound) as uint64 (modulo of 64-bit words; bias < bound / 2**64)."""
    return raw(bitgen, shape) % np.uint64(bound)


def uniform_int32(bitgen: np.random.PCG64, count: int, lo: int, hi: int) -> np.ndarray:
    """`count` uniform integers in [lo, hi] as int32, drawn in chunks to bound memory."""
    out = np.empty(count, dtype=np.int32)
    span = hi - lo + 1
    chunk = 1 << 22
    for start in range(0, count, chunk):
        stop = min(count, start + chunk)
        if span == 1:
            out[start:stop] = lo
        else:
            values = below(bitgen, stop - start, span)
            values += np.uint64(lo)
            out[start:stop] = values
    return out


def permutation(bitgen: np.random.PCG64, n: int) -> np.ndarray:
    """A uniformly random permutation of range(n) as int64 (stable argsort of random words)."""
    return np.argsort(raw(bitgen, n), kind="stable").astype(np.int64, copy=False)
