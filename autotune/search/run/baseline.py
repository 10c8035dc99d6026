"""The baseline of thesis 4.6.1: "of the block sizes that maximize occupancy, the slowest; default
cache; CK 1" (`Specials.baseline_candidates`), and how a pruning sweep finds it for less.

A sweep without pruning measures every candidate whole and the slowest is the baseline. With
pruning on, the candidates that are nothing else (not the default, not the prediction, which are
measured whole for their own entries) are *probed*: one whose warm-up batch (the sample's first
source at CK 1, the same work for every candidate) the pruner would prune stops there. After the
search, the slowest candidate on that warm-up (the default's counts too) is measured whole unless
it was; the others stay in the table as probed (pruned, with their warm-up time).
"""
from __future__ import annotations

from typing import Any, Sequence

from autotune.launch import LaunchConfig
from autotune.search.results import ConfigResult
from autotune.search.run.specials import Specials
from autotune.search.run.trials import Evaluation


def probed(plan: Any) -> list[LaunchConfig]:
    """The baseline candidates a sweep of `plan` (a `GraphPlan`) probes: none without pruning, and
    none outside the space where the references are pruned (`sweep.GraphSweep.prepare`)."""
    if not plan.settings.prune:
        return []
    roles = plan.specials.roles()
    return [c for c in plan.specials.baseline_candidates if roles.get(c.key()) == ("baseline_candidate",)
            and (plan.space.contains(c) or not plan.settings.prune_references)]


def warm_up_time(evaluation: Evaluation) -> float | None:
    """What a candidate is ranked on: its warm-up's time per SSSP (from records that lack it, its
    first timed repetition)."""
    measurement = evaluation.measurement
    if measurement.warm_up_ms is not None:
        return measurement.warm_up_ms
    return measurement.times_ms[0] if measurement.times_ms else None


def to_measure_whole(specials: Specials, evaluations: Sequence[Evaluation]) -> LaunchConfig | None:
    """The candidate slowest on the warm-up, unless it was already measured whole and ok (None
    then, and when no candidate has a warm-up time)."""
    candidates = {c.key(): c for c in specials.baseline_candidates}
    ranked_on: dict[str, float] = {}
    whole: set[str] = set()
    for evaluation in evaluations:
        key = evaluation.config.key()
        if key not in candidates:
            continue
        if evaluation.measurement.ok:
            whole.add(key)
        time = warm_up_time(evaluation)
        if time is not None:
            ranked_on.setdefault(key, time)
    if not ranked_on:
        return None
    slowest_key = max(ranked_on, key=lambda k: (ranked_on[k], k))
    return None if slowest_key in whole else candidates[slowest_key]


def slowest(candidates: Sequence[ConfigResult]) -> ConfigResult | None:
    """The baseline: the slowest candidate measured ok (None if none was)."""
    ok = [c for c in candidates if c.ok]
    return max(ok, key=lambda r: (r.ms_per_sssp, r.config.key())) if ok else None
