"""Time a sweep's budget left over, given back: a study whose slice ended its search early
searches on once every study of the run has had its turn (`cli.sweep`).

The budget hands each study a slice of what is left, and what one leaves unused carries over to
the studies after it, never back: on rome99 the batch end's slice cut its search after 11 trials,
and the whole sweep then took 22.8 s of its 55 (`tables/h100.json`, the sweep of commit 38abdf5),
GPU Crauser's and Martín's studies being abandoned early.
"""
from __future__ import annotations

from typing import Any

from optuna.trial import TrialState

from autotune.launch import LaunchConfig
from autotune.search.run.stages import (ATTR_ABANDONED, ATTR_CUT, ATTR_SAMPLED, ATTR_STAGE, DONE, HELD, SEARCH,
                                        measured_trials, sampled_trials)
from autotune.search.run.storage import trial_measurement
from autotune.search.run.trials import ATTR_TASK, task_of

REQUEUED_PHASES = ("search", "transfer", "refine")  # what the curve and the rounds do not queue again themselves


def cut_short(handle: Any) -> bool:
    """Whether the study's search ended at its slice's end with sampled trials still to take (and
    it was not abandoned, nor outrun: every trial it measured pruned as far behind another's best,
    as Δ-stepping's batch end on rmat22 at 8cc3615, whose three trials more, sent back, were pruned
    too, 21 s); the study is done, or held after its ends (`sweep_graph`'s `hold`)."""
    attrs = handle.study.user_attrs
    if attrs.get(ATTR_STAGE) not in (HELD, DONE) or SEARCH not in (attrs.get(ATTR_CUT) or []) \
            or attrs.get(ATTR_ABANDONED):
        return False
    measured = measured_trials(handle.study)
    if measured and all(t.state is TrialState.PRUNED for t in measured):
        return False
    return sampled_trials(handle.study, finished_only=True) < int(attrs.get(ATTR_SAMPLED, 0))


def is_held(handle: Any) -> bool:
    """Whether the study waits after its ends for its curve and rounds (`sweep_graph`'s `hold`)."""
    return handle.study.user_attrs.get(ATTR_STAGE) == HELD


def reopen(handle: Any) -> bool:
    """Send a study cut short back to its search (then its later stages again), its dropped trials
    queued again first (`requeue_dropped`); True if it was."""
    if not cut_short(handle):
        return False
    requeue_dropped(handle.study)
    handle.study.set_user_attr(ATTR_STAGE, SEARCH)
    return True


def requeue_dropped(study: Any) -> int:
    """Queue again, in their order, the tasks the slice's end dropped (FAIL without ever starting)
    whose configurations no trial measured since: the prediction's neighbourhood, the design, the
    transfers. Without them a search sent back samples only: on road-FLA (H100, the records
    `benchmarks/data/h100/road-FLA-curve-gpu-check.records.jsonl.gz` at 68a5795) the batch end's slice ended
    after the prediction and one neighbour, and the 18 sampled trials it searched on with never
    tried the prediction's Δ neighbours; with them (`road-FLA-curve-75197ef`) Δ 256 came first,
    0.195 ms per SSSP against 0.221. Returns how many."""
    trials = study.get_trials(deepcopy=False)
    done = {m.config for t in trials if (m := trial_measurement(t)) is not None}
    queued = 0
    for trial in trials:
        task = task_of(trial)
        if not (trial.state is TrialState.FAIL and trial.datetime_start is None and task is not None
                and task.get("phase") in REQUEUED_PHASES):
            continue
        config = LaunchConfig.from_json(task["config"], f"trial {trial.number}")
        if config not in done:
            done.add(config)
            study.enqueue_trial(dict(trial.system_attrs.get("fixed_params", {})), user_attrs={ATTR_TASK: dict(task)})
            queued += 1
    return queued


__all__ = ["cut_short", "is_held", "reopen", "requeue_dropped"]
