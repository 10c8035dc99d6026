"""The refine stage of a sampling search: a hill climb from its best. The best configuration's
neighbours are measured (`neighbours.neighbourhood`: block sizes halved and doubled, each integer
parameter one step down and up, then every kernel in each other L1 state); when one of them is
faster, its neighbours are measured in turn, up to `MAX_CENTRES` climbs.

A search of CK as one dimension among many spends few of its trials at each CK: on the H100 the
default sweep's batch end (40 trials over CK 32 to 1,024) stopped at 0.00994 ms per SSSP on
ca-CondMat at CK 1,024, where a sweep of CK 1,024 alone (100 trials) found 0.00742, two
thresholds and the L1 state away (suite `answers` at commit 6f1346d; its rows and the table as
committed in fa687da). With the climb (commit 9923aae) the default sweep's CK 1,024 point timed
0.00683 ms per SSSP, 12% faster than the best of a sweep of CK 1,024 alone (0.00776) timed
beside it.
"""
from __future__ import annotations

from typing import Sequence

from autotune.launch import LaunchConfig
from autotune.search.space.neighbours import cache_neighbours, neighbourhood
from autotune.search.results import ConfigResult
from autotune.search.space import SearchSpace

MAX_CENTRES = 4  # climbs from the search's best and at most three better neighbours


def climb_neighbours(config: LaunchConfig, space: SearchSpace) -> list[LaunchConfig]:
    """What a climb measures around `config`: its neighbourhood, then its other L1 states."""
    return list(dict.fromkeys([*neighbourhood(config, space), *cache_neighbours(config, space)]))


def next_centre(points: Sequence[ConfigResult], centres: Sequence[str]) -> LaunchConfig | None:
    """Where the climb goes on from (`points`: the tuned configurations, fastest first; `centres`:
    the keys it climbed from): the fastest, unless it was climbed from already or the climb has
    had its `MAX_CENTRES`; None then (the climb is over).

    Example:
        >>> next_centre([], []) is None
        True
    """
    if not points or len(centres) >= MAX_CENTRES or points[0].config.key() in centres:
        return None
    return points[0].config


__all__ = ["MAX_CENTRES", "climb_neighbours", "next_centre"]
