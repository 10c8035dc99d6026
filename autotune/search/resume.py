"""Time a sweep's budget left over, given back: a study whose slice ended its search early
searches on once every study of the run has had its turn (`cli.sweep`).

The budget hands each study a slice of what is left, and what one leaves unused carries over to
the studies after it, never back: on rome99 the batch end's slice cut its search after 11 trials,
and the whole sweep then took 22.8 s of its 55 (`tables/h100.json`, the sweep of commit 38abdf5),
GPU Crauser's and Martín's studies being abandoned early.
"""
from __future__ import annotations

from typing import Any

from autotune.search.stages import ATTR_ABANDONED, ATTR_CUT, ATTR_SAMPLED, ATTR_STAGE, DONE, SEARCH, sampled_trials


def cut_short(handle: Any) -> bool:
    """Whether the study's search ended at its slice's end with sampled trials still to take (and
    it was not abandoned)."""
    attrs = handle.study.user_attrs
    if attrs.get(ATTR_STAGE) != DONE or SEARCH not in (attrs.get(ATTR_CUT) or []) or attrs.get(ATTR_ABANDONED):
        return False
    return sampled_trials(handle.study, finished_only=True) < int(attrs.get(ATTR_SAMPLED, 0))


def reopen(handle: Any) -> bool:
    """Send a study cut short back to its search (then its later stages again); True if it was."""
    if not cut_short(handle):
        return False
    handle.study.set_user_attr(ATTR_STAGE, SEARCH)
    return True


__all__ = ["cut_short", "reopen"]
