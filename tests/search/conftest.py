"""Fixtures of the search tests: a small space, a synthetic GPU and graph, and a sweep runner."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from autotune.search import (
    GraphPlan,
    GraphResult,
    SearchSpace,
    Specials,
    StudyKey,
    SweepSettings,
    open_storage,
    open_study,
    sweep_graph,
)
from autotune.search.run import specials as sp
from autotune.search.timers.synthetic import synthetic_device, synthetic_graph
from search_shared import SMALL_SPACE, default_specials


@pytest.fixture
def small_space() -> SearchSpace:
    return SearchSpace.from_options("crauser", **SMALL_SPACE)


@pytest.fixture(scope="session")
def device() -> dict[str, Any]:
    return synthetic_device()


@pytest.fixture
def graph(device):
    """A made-up graph, classified on the synthetic GPU (so tables validate)."""
    return sp.classify_graph(synthetic_graph(), sp.profile_from_json(device))


@pytest.fixture
def run_sweep(device, graph) -> Callable[..., tuple[GraphResult, Any]]:
    """run_sweep(timer, space, strategy, storage="memory", resume=False, specials=None, settings=None,
    siblings=None, budget=None, rivals=None, hold=False) -> (result, handle)."""

    def run(timer, space, strategy, storage: str = "memory", resume: bool = False,
            specials: Specials | None = None, settings: SweepSettings | None = None, storage_obj=None, siblings=None,
            budget=None, rivals=None, hold=False):
        if storage_obj is None:
            storage_obj, url = open_storage(storage)
        else:
            url = storage
        key = StudyKey(graph.sha256, "crauser", device["name"], strategy.label, space.digest(), {"repetitions": 3})
        handle = open_study(storage_obj, url, key, strategy.sampler(space), resume=resume)
        plan = GraphPlan(graph, space, strategy, specials or default_specials(), settings or SweepSettings())
        return sweep_graph(timer, plan, handle, device, siblings=siblings, budget=budget, rivals=rivals,
                           hold=hold), handle

    return run
