"""Transfers between the studies of one graph's queries curve: when a study's search ends, the
fastest configuration its sibling studies (the other ends of the curve, same algorithm) verified
at each CK is measured at the nearest CK of its own space, where that is at most a factor of two
away (`Algorithm.bridge_candidates`: CK set to it, and the shapes that spread a few instances over
the GPU). The curve's ends are searched by studies of their own, and each point is good where its
study spent trials: on the H100 the middle (CK 2 to 16) found 0.0863 ms per SSSP on mesh-bcsstk25
at CK 16, where the batch end's best at CK 32 was Δ 32 at 0.0404 and a sweep of CK 16 alone found
Δ 32 at 0.0549 (suite `answers` at 6f1346d, committed in fa687da); with the transfers and
the climb (commit 9923aae) the table's CK 16 answer came within 4.0% of that sweep's best.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

from optuna.trial import FrozenTrial, TrialState

from autotune.launch import LaunchConfig
from autotune.measure import Measurement, Status
from autotune.search.run.plan import moved
from autotune.search.space import SearchSpace
from autotune.search.run.storage import ATTR_BOOKKEEPING, ATTR_INTERRUPTED, trial_measurement


def nearest_ck(concurrent_kernels: int, values: Sequence[int]) -> int | None:
    """The CK of `values` nearest (by ratio) to `concurrent_kernels`, if it is not among them and
    the nearest is at most a factor of two away.

    Example:
        >>> nearest_ck(32, (2, 4, 8, 16)), nearest_ck(1, (2, 4, 8, 16)), nearest_ck(128, (1,)), nearest_ck(4, (2, 4))
        (16, 2, None, None)
    """
    if not values or concurrent_kernels in values:
        return None
    near = min(values, key=lambda ck: (max(ck, concurrent_kernels) / min(ck, concurrent_kernels), ck))
    return near if max(near, concurrent_kernels) <= 2 * min(near, concurrent_kernels) else None


def transfers(points: Iterable[LaunchConfig], space: SearchSpace) -> list[LaunchConfig]:
    """The configurations to measure in `space` for the siblings' `points` (canonical, inside it,
    each once): each point at the nearest CK, and in the curve's middle (a space with points of
    both ends around it) a point of the latency end first at the space's largest CK, where a study
    that ranks by time per SSSP finds its best. At CK 2 it is pruned against that best: on road-FLA
    (H100) the one-query winner (one block, Δ 512) was moved to CK 2 and pruned there, while a
    sweep of CK 16 alone found that very shape at 1.14 ms per SSSP, against the middle's 1.83."""
    out: list[LaunchConfig] = []
    points = [p for p in points if p.algorithm == space.algorithm]
    values = space.concurrent_kernels
    middle = bool(values) and any(p.concurrent_kernels > max(values) for p in points)
    for point in points:
        below = middle and point.concurrent_kernels < min(values)
        for ck in dict.fromkeys([*([max(values)] if below else []), nearest_ck(point.concurrent_kernels, values)]):
            if ck is not None:
                out += moved(point, ck, space)
    return list(dict.fromkeys(out))


REFERENCE_ROLES = {"default", "baseline_candidate"}  # measured to compare with: never a curve point where untuned


def fastest_per_ck(trials: Iterable[FrozenTrial]) -> list[LaunchConfig]:
    """The fastest verified configuration at each CK among `trials` (finished trials of studies,
    `storage.trial_measurement`), by CK; ties to the smaller configuration key."""
    best: dict[int, Measurement] = {}
    for trial in trials:
        measurement = trial_measurement(trial)
        if measurement is None or not measurement.ok:
            continue
        ck = measurement.config.concurrent_kernels
        held = best.get(ck)
        if held is None or (measurement.ms_per_sssp, measurement.config.key()) < (held.ms_per_sssp, held.config.key()):
            best[ck] = measurement
    return [best[ck].config for ck in sorted(best)]


def fastest_ms_per_ck(trials: Iterable[FrozenTrial]) -> dict[int, float]:
    """The fastest verified ms per SSSP at each CK among `trials`, leaving out the references
    measured only to compare with (which need not be a CK's point of the curve). Read before every
    trial: it reads the two numbers it needs from each trial's bookkeeping, not a whole measurement
    (80 us a trial, 13 ms before each of the main job's last trials)."""
    best: dict[int, float] = {}
    for trial in trials:
        if trial.user_attrs.get(ATTR_INTERRUPTED) or not trial.state.is_finished():
            continue
        attrs = trial.user_attrs.get(ATTR_BOOKKEEPING) or {}
        data = attrs.get("measurement")
        if not data or data.get("status") != Status.OK.value:
            continue
        roles = set(attrs.get("roles") or ())
        if roles and roles <= REFERENCE_ROLES:
            continue
        ck, ms = int(data["config"]["concurrent_kernels"]), float(data["ms_per_sssp"])
        best[ck] = min(ms, best.get(ck, ms))
    return best


def complete_trials(storage: Any, study_ids: Iterable[int]) -> Iterator[FrozenTrial]:
    """The finished, measured trials of the studies `study_ids` of an Optuna `storage`."""
    for study_id in study_ids:
        yield from storage.get_all_trials(study_id, deepcopy=False, states=(TrialState.COMPLETE,))


__all__ = ["complete_trials", "fastest_ms_per_ck", "fastest_per_ck", "nearest_ck", "transfers"]
