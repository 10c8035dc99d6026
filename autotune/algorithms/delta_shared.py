"""What Delta-stepping's `solve_block` (`kernels/delta.cu`) keeps in a block's shared memory beside
the advance tile's arrays: the heads of its two near queues, and its duplicate stamps as bitmaps
where they fit. The engine sizes its launch from these (`gpu.delta_engine`), the model's rule 4
reads them (`model.delta_rules`), and the `shared` loop mode's bound is taken after them
(`algorithms.delta`).
"""
from __future__ import annotations

QUEUE_CAPACITY = 2048  # near-queue entries solve_block keeps in shared memory (each of two queues)


def bitmap_words(n: int, ck: int, sm_count: int, free_bytes: int) -> int:
    """Words of each of `solve_block`'s four shared duplicate bitmaps (n bits each), or 0 to keep
    its stamps in global memory: bitmaps only when every instance has an SM to itself (CK at most
    the SMs, so that a larger block costs no residency) and the four fit in the `free_bytes` of
    shared memory the block has left.

    Example:
        >>> bitmap_words(87_575, 1, 132, 200_000)  # usa-roads: ceil(87,575 / 32)
        2737
    """
    words = (n + 31) // 32
    return words if ck <= sm_count and 4 * 4 * words <= free_bytes else 0


__all__ = ["QUEUE_CAPACITY", "bitmap_words"]
