"""What Delta-stepping's `solve_block` (`kernels/delta.cu`) keeps in a block's shared memory beside
the advance tile's arrays: the heads of its two near queues, and its duplicate stamps as bitmaps
where they fit. The engine sizes its launch from these (`gpu.delta_engine`), the model's rule 4
reads them (`model.delta_rules`), and the `shared` loop mode's bound is taken after them
(`algorithms.delta`).
"""
from __future__ import annotations

from typing import Callable

QUEUE_CAPACITY = 2048  # near-queue entries solve_block keeps in shared memory (each of two queues)


def bitmap_words(n: int, ck: int, sm_count: int, free_bytes: int,
                 resident: Callable[[int], int] | None = None) -> int:
    """Words of each of `solve_block`'s four shared duplicate bitmaps (n bits each), or 0 to keep
    its stamps in global memory. Bitmaps where the four fit in the `free_bytes` of shared memory
    the block has left, and they cost no residency: every instance has an SM to itself (CK at
    most the SMs), or `resident(extra)`, the blocks an SM holds when each takes `extra` more bytes
    of shared memory, is no lower with the bitmaps than without (a block of 1,024 threads: the
    registers already allow one block per SM). Without `resident`, CK beyond the SMs gets none.

    Example:
        >>> bitmap_words(87_575, 1, 132, 200_000)  # usa-roads: ceil(87,575 / 32)
        2737
        >>> bitmap_words(87_575, 1024, 132, 200_000, resident=lambda extra: 1)  # one block per SM anyway
        2737
        >>> bitmap_words(87_575, 1024, 132, 200_000, resident=lambda extra: 9 if extra == 0 else 3)
        0
    """
    words = (n + 31) // 32
    if 4 * 4 * words > free_bytes:
        return 0
    costs_nothing = ck <= sm_count or (resident is not None and resident(4 * 4 * words) >= resident(0))
    return words if costs_nothing else 0


__all__ = ["QUEUE_CAPACITY", "bitmap_words"]
