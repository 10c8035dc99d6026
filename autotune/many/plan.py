"""What a many-source run solves, in which order and in which shards (pure: no GPU, no files).

The order is fixed by the sources and the verification sample alone (the sample first, then the
other sources in their order), and shard `k` is `order[k * size:(k + 1) * size]`: the same command
plans the same shards however many devices run it and in whatever order they finish, which is what
lets a killed run go on where it stopped and end with the same files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from autotune.errors import InputError

SHARD_BYTES = 256 * 2**20  # a shard's int64 distances stay near this (one CK batch at least)
SHARDS = 16  # shards where there are enough batches: 8 each for two devices; a Dask task costs about 1-3 ms


def verification_sample(sources: Sequence[int], count: int) -> list[int]:
    """`count` sources spread evenly over `sources` (all of them when there are fewer)."""
    if count >= len(sources):
        return list(sources)
    picks = np.linspace(0, len(sources) - 1, num=count).round().astype(int)
    return [sources[i] for i in dict.fromkeys(picks.tolist())]


def solve_order(sources: Sequence[int], sample: Sequence[int]) -> list[int]:
    """The sample first (verified before the rest runs), then the other sources in their order."""
    chosen = set(sample)
    return list(sample) + [s for s in sources if s not in chosen]


def batches(order: Sequence[int], ck: int) -> list[tuple[list[int], int]]:
    """Batches of `ck` sources and how many of each are real: the last batch is padded with its
    first source (a solve always runs CK instances)."""
    out = []
    for start in range(0, len(order), ck):
        part = list(order[start:start + ck])
        out.append((part + [part[0]] * (ck - len(part)), len(part)))
    return out


def shard_size(n_sources: int, n_vertices: int, ck: int, rows_kept: bool) -> int:
    """Sources a shard holds: a multiple of `ck`; when its rows are kept (`--save-dir` distances), at
    most about `SHARD_BYTES` of them; and small enough to make `SHARDS` shards where there are as
    many batches (so that a faster device takes more). It does not depend on the devices: a run
    goes on with any number of them."""
    batches_total = -(-n_sources // ck)
    per_shard = max(1, batches_total // SHARDS)
    if rows_kept:
        per_shard = min(per_shard, max(1, SHARD_BYTES // (8 * max(1, n_vertices) * ck)))
    return per_shard * ck


@dataclass(frozen=True)
class ShardPlan:
    """The sources in solve order, cut into shards of `size` (the last may be shorter)."""

    order: tuple[int, ...]
    size: int

    @classmethod
    def of(cls, sources: Sequence[int], sample: Sequence[int], size: int) -> ShardPlan:
        if size < 1:
            raise InputError(f"a shard holds at least 1 source, found {size}")
        return cls(tuple(solve_order(sources, sample)), size)

    def __len__(self) -> int:
        return -(-len(self.order) // self.size)

    def shard(self, k: int) -> tuple[int, ...]:
        return self.order[k * self.size:(k + 1) * self.size]


__all__ = ["SHARD_BYTES", "ShardPlan", "batches", "shard_size", "solve_order",
           "verification_sample"]
