"""What users of shortest paths ask of one query beyond its distances, timed and checked: the
shortest-path tree (`sssp --paths`) and a source-target stop (`sssp --target`).

Both solve one source at a time (CK 1) with the configuration given, and time it against the
plain solve of the same source in the same process: a warm-up solve, then `repetitions` of each,
alternated, CUDA events around the launches; the medians are reported.

* `tree_costs`: per source, the solve's time and the tree pass's (`autotune.gpu.paths`); every
  tree is checked on the CPU (`autotune.reference.paths.tree_error`).
* `target_costs`: per (source, target) pair, the full solve's time and the early-stopping one's
  (`Solver.solve_to`); the target's distance is checked against the CPU's.
A solve whose distances differ from the CPU's, or a tree that is not one, raises `WrongResult`.
"""
from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from autotune.errors import WrongResult
from autotune.gpu.engine import Solver
from autotune.gpu.paths import PathTrees
from autotune.gpu.timer import distance_error
from autotune.launch import LaunchConfig
from autotune.reference.distance_range import NARROW
from autotune.reference.paths import tree_error

DEFAULT_REPETITIONS = 5


@dataclass(frozen=True)
class TreeCost:
    """One source: medians of the solve alone and of the tree pass after it, milliseconds."""

    source: int
    solve_ms: float
    tree_ms: float

    @property
    def share(self) -> float:
        """The tree's time over the solve's: 0.3 is a tree costing 30% more than distances alone."""
        return self.tree_ms / self.solve_ms

    def to_json(self) -> dict[str, float | int]:
        return {**dataclasses.asdict(self), "share": self.share}


@dataclass(frozen=True)
class TargetCost:
    """One (source, target) pair: medians of the full solve and of the one that stops at the
    target, milliseconds, and the target's distance (`INF` when unreachable)."""

    source: int
    target: int
    distance: int
    full_ms: float
    target_ms: float

    @property
    def speedup(self) -> float:
        return self.full_ms / self.target_ms

    def to_json(self) -> dict[str, float | int]:
        return {**dataclasses.asdict(self), "speedup": self.speedup}


def _one_source(config: LaunchConfig) -> LaunchConfig:
    return config if config.concurrent_kernels == 1 else config.replace(concurrent_kernels=1)


def _checked_distances(result, source: int, expected: np.ndarray) -> np.ndarray:
    distances = result.distances[0]
    error = distance_error(source, distances, expected)
    if error:
        raise WrongResult(error)
    return distances


def tree_costs(solver: Solver, config: LaunchConfig, sources: Sequence[int], expected: Mapping[int, np.ndarray],
               repetitions: int = DEFAULT_REPETITIONS) -> tuple[list[TreeCost], dict[int, np.ndarray]]:
    """The tree's cost from each source, and the trees (int32 parents, -1 for none), all checked.

    Raises:
        WrongResult: distances that differ from `expected`, or a tree that is not a shortest-path tree.
    """
    config = _one_source(config)
    costs, trees = [], {}
    with PathTrees(solver) as paths:
        for source in sources:
            solve_ms, tree_ms = [], []
            for repetition in range(repetitions + 1):  # the first is the warm-up
                result = solver.solve(config, [source])
                distances = _checked_distances(result, source, expected[source])
                tree = paths.build([source], result.distances)
                if repetition == 0:
                    error = tree_error(solver.graph, distances, tree.parents[0], source, solver.width.inf)
                    if error:
                        raise WrongResult(f"source {source}: not a shortest-path tree: {error}")
                    trees[source] = tree.parents[0].copy()
                    continue
                solve_ms.append(result.elapsed_ms)
                tree_ms.append(tree.elapsed_ms)
                if not np.array_equal(tree.parents[0], trees[source]) and \
                        tree_error(solver.graph, distances, tree.parents[0], source, solver.width.inf):
                    raise WrongResult(f"source {source}: a repeated tree is not a shortest-path tree")
            costs.append(TreeCost(source, statistics.median(solve_ms), statistics.median(tree_ms)))
    return costs, trees


def target_costs(solver: Solver, config: LaunchConfig, pairs: Sequence[tuple[int, int]],
                 expected: Mapping[int, np.ndarray], repetitions: int = DEFAULT_REPETITIONS) -> list[TargetCost]:
    """The full solve's and the target solve's times for each (source, target) pair, checked:
    the full solve's distances against `expected[source]`, the target solve's distance to the
    target against the same.

    Raises:
        WrongResult: a distance that differs from the CPU's.
    """
    config = _one_source(config)
    costs = []
    for source, target in pairs:
        full_ms, target_ms = [], []
        want = int(expected[source][target])
        for repetition in range(repetitions + 1):
            full = solver.solve(config, [source])
            _checked_distances(full, source, expected[source])
            early = solver.solve_to(config, [source], [target])
            got = int(early.distances[0][target])
            if got != want:
                raise WrongResult(f"source {source}, target {target}: the early stop gave {got}, the CPU {want}")
            if repetition:
                full_ms.append(full.elapsed_ms)
                target_ms.append(early.elapsed_ms)
        costs.append(TargetCost(source, target, want, statistics.median(full_ms), statistics.median(target_ms)))
    return costs


def random_pairs(expected: Mapping[int, np.ndarray], seed: int = 0, inf: int = NARROW.inf) -> list[tuple[int, int]]:
    """A target for each source of `expected` (rows with `inf` unreachable), drawn uniformly among
    the vertices it reaches (other than itself; the source itself when it reaches none)."""
    rng = np.random.default_rng(seed)
    pairs = []
    for source, distances in expected.items():
        reached = np.flatnonzero(distances != inf)
        reached = reached[reached != source]
        pairs.append((int(source), int(rng.choice(reached)) if len(reached) else int(source)))
    return pairs


__all__ = ["TargetCost", "TreeCost", "random_pairs", "target_costs", "tree_costs"]
