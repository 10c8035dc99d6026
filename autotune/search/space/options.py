"""Parsing the search-space options of the command line (`--block-sizes 64-512`, `--caches`,
`--ck`, `--lanes`): every error names its option and the bad item."""
from __future__ import annotations

from typing import Iterable

from autotune.errors import InputError
from autotune.launch import WARP_SIZE, CacheState


def join(values: Iterable[object]) -> str:
    return ",".join(str(v) for v in values)


def parse_ints(text: str, option: str) -> tuple[int, ...]:
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            values.append(int(item))
        except ValueError:
            raise InputError(f"{option}: {item!r} is not an integer") from None
    if not values:
        raise InputError(f"{option}: give at least one value")
    return tuple(values)


def parse_block_sizes(text: str) -> tuple[int, ...]:
    values: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if "-" in item:
            low_text, _, high_text = item.partition("-")
            low, high = parse_ints(low_text, "--block-sizes")[0], parse_ints(high_text, "--block-sizes")[0]
            if low > high:
                raise InputError(f"--block-sizes: range {item} runs backwards. Try 64-512.")
            first = -(-low // WARP_SIZE) * WARP_SIZE
            values.extend(range(first, high + 1, WARP_SIZE))
        elif item:
            values.extend(parse_ints(item, "--block-sizes"))
    if not values:
        raise InputError("--block-sizes: give at least one block size, e.g. 64,128,256 or 64-512")
    return tuple(values)


def parse_caches(text: str) -> tuple[CacheState, ...]:
    states = []
    for item in text.split(","):
        item = item.strip().lower().replace("-", "_")
        if not item:
            continue
        try:
            states.append(CacheState(item))
        except ValueError:
            names = ",".join(c.value for c in CacheState)
            raise InputError(f"--caches: unknown cache state {item!r}. Choose from {names}.") from None
    if not states:
        raise InputError("--caches: give at least one cache state")
    return tuple(states)
