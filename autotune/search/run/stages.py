"""The names a study keeps its progress under (its stage, and the user attributes the stages
write), shared by the sweep that advances the stages (`search.sweep`) and what reads them back
(`search.resume`); how many of a study's search trials its sampler proposed, and how long its
quickest took."""
from __future__ import annotations

from typing import Any

from optuna.trial import TrialState

from autotune.search.run.storage import ATTR_BOOKKEEPING, ATTR_INTERRUPTED
from autotune.search.run.trials import ATTR_UNUSED, phase_of, task_of

SEARCH, REFINE, HELD, CURVE, COMPOSE, REMEASURE, DONE = (
    "search", "refine", "held", "curve", "compose", "remeasure", "done")
ATTR_STAGE = "stage"
ATTR_ELAPSED = "elapsed_s"
ATTR_FINALISTS = "finalists"
ATTR_SAMPLED = "sampled_budget"
ATTR_ABANDONED = "abandoned"
ATTR_BASELINE = "baseline"  # the probed candidate measured whole (None: none was needed)
ATTR_CUT = "cut_by_budget"  # the stages the wall-time budget cut short
ATTR_CENTRES = "climbed_from"  # the keys of the configurations the refine stage climbed from
ATTR_CONVERGED = "converged_after"  # the finished trials after which the search converged (`SweepSettings.patience`)
ATTR_OUTPACED = "outpaced"  # the bridges and rounds left unmeasured: another study's point was faster at their CK


def sampled_trials(study: Any, finished_only: bool = False) -> int:
    """The search trials a study's sampler proposed, against `ATTR_SAMPLED` (a retried trial is not
    a new one, an interrupted or unused one is replaced); `finished_only`: none in flight."""
    states = (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED) if finished_only else None
    return sum(1 for t in study.get_trials(deepcopy=False, states=states)
               if phase_of(t) == "search" and task_of(t) is None and "failed_trial" not in t.system_attrs
               and not t.user_attrs.get(ATTR_INTERRUPTED) and not t.user_attrs.get(ATTR_UNUSED))


def measured_trials(study: Any) -> list[Any]:
    """The study's finished trials that measured: complete, or pruned after a warm-up (not those
    ended before their first measurement, nor those answered from an earlier one: `cached`)."""
    return [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
            if (t.state is TrialState.COMPLETE or t.intermediate_values)
            and not (t.user_attrs.get(ATTR_BOOKKEEPING) or {}).get("cached")]


def quickest_trial_s(study: Any) -> float:
    """The wall time of the study's quickest trial that measured (0 before one did): no trial begins
    that it says would end past the run (on rmat23 at 735bb51 a batch-end trial begun 4.4 s before
    the run's end, the study's others 6.9 to 9.4 s, ran 18.8 s: the sweep ended 15 s past its budget)."""
    return min(((t.datetime_complete - t.datetime_start).total_seconds() for t in measured_trials(study)
                if t.datetime_start and t.datetime_complete), default=0.0)
