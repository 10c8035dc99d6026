"""Which of an entry's measured configurations a table keeps (`x-top`): the fastest overall and
the fastest at each CK, so that a lookup for at most K sources finds its own."""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

TOP_CONFIGURATIONS = 12  # the fastest configurations a table entry lists (`x-top`) ...
TOP_PER_CK = 4  # ... and the fastest at each CK measured, for lookups of at most K queries


def top_of(ranked: Sequence[T], ck_of: Callable[[T], int], overall: int = TOP_CONFIGURATIONS,
           per_ck: int = TOP_PER_CK) -> list[T]:
    """Of items ranked fastest first: the `overall` fastest and the `per_ck` fastest of each CK
    (`ck_of`), in their order."""
    counts: dict[int, int] = {}
    chosen = []
    for index, item in enumerate(ranked):
        ck = ck_of(item)
        counts[ck] = counts.get(ck, 0) + 1
        if index < overall or counts[ck] <= per_ck:
            chosen.append(item)
    return chosen
