"""A configuration's neighbours in a search space: what a sweep measures next to the model's
prediction before its sampler proposes anything (`neighbourhood`, issue 28: the prediction's
neighbourhood searched first), and next to the search's best once it is done (the `refine`
phase's climb, `search.climb`, which adds `cache_neighbours`).

Along the block size a neighbour is the size halved or doubled; along an algorithm's integer
parameter (Delta, the thresholds, blocks per instance), the value just below or above in the
space's ordered values (`inf` after every integer, `off` after every threshold). Named-only
parameters (the loop mode) have no order and no neighbours.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from autotune.launch import LaunchConfig
from autotune.search.space import SearchSpace


def block_neighbours(best: LaunchConfig, space: SearchSpace) -> list[LaunchConfig]:
    """The best configuration with every kernel's block size halved, and doubled (canonical,
    inside the space, each once): a Bayesian search samples the block size as one dimension among
    many and often stops next to its best along it (rome99 at CK 1024: the curve's search ended at
    256 threads, 0.00082 ms per SSSP, where a search of CK 1024 alone found 128, 0.00059 ms).

    Example:
        >>> from autotune import algorithms
        >>> best = algorithms.get("delta").uniform(256, concurrent_kernels=1024)
        >>> [c.kernel("advance").block_size for c in block_neighbours(best, SearchSpace("delta"))]
        [128, 512]
    """
    candidates = []
    for scale in (0.5, 2.0):
        sizes = {name: int(launch.block_size * scale) for name, launch in best.kernels.items()}
        if any(size not in space.kernel_block_sizes(name) for name, size in sizes.items()):
            continue
        candidates.append(best.replace(**{name: dataclasses.replace(launch, block_size=sizes[name])
                                           for name, launch in best.kernels.items()}))
    return distinct(best, candidates, space)


def parameter_neighbours(config: LaunchConfig, space: SearchSpace) -> list[LaunchConfig]:
    """`config` with one integer parameter moved to the value below, then above, in the space's
    values, parameter by parameter in the algorithm's order (canonical, inside the space, each
    once; a parameter whose value the space lacks is left alone).

    Example:
        >>> from autotune import algorithms
        >>> config = algorithms.get("delta").uniform(256, concurrent_kernels=1024, params={"delta": 64})
        >>> space = SearchSpace("delta", params={"delta": (16, 32, 64, 128, "inf")})
        >>> [c.param("delta") for c in parameter_neighbours(config, space)][:2]
        [32, 128]
    """
    candidates = []
    for name, values in space.params:
        if not space.entry.parameter(name).integers or config.param(name) not in values:
            continue
        at = values.index(config.param(name))
        candidates += [config.replace(**{name: values[at + step]}) for step in (-1, 1) if 0 <= at + step < len(values)]
    return distinct(config, candidates, space)


def cache_neighbours(config: LaunchConfig, space: SearchSpace) -> list[LaunchConfig]:
    """`config` with every kernel in each other L1 state of the space (canonical, inside it)."""
    return distinct(config, [config.replace(**{name: dataclasses.replace(launch, cache=cache)
                                               for name, launch in config.kernels.items()})
                             for cache in space.caches], space)


def distinct(config: LaunchConfig, candidates: Iterable[LaunchConfig], space: SearchSpace) -> list[LaunchConfig]:
    """`candidates` in canonical form, inside the space, each once, without `config` itself."""
    out = dict.fromkeys(space.entry.canonical(c) for c in candidates)
    return [c for c in out if c != config and space.contains(c)]


def neighbourhood(config: LaunchConfig, space: SearchSpace) -> list[LaunchConfig]:
    """The configurations one step from `config` (the model's prediction), block sizes first: on
    the H100's seeded sweeps (benchmark suite `seeded`, commit 5d89ed2) 6 of the 10 batch ends that
    missed were won by the prediction's block size halved or doubled, found only by the refine step
    after the 15 search trials."""
    if not space.contains(config):
        return []
    return list(dict.fromkeys([*block_neighbours(config, space), *parameter_neighbours(config, space)]))
